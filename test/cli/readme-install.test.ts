// The README's quick start ends with `scv` on the PATH: its install line, run as written in a fresh home, puts the
// built binary in a user-writable bin directory and `scv --version` answers through the PATH.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { requireBinary } from "../fake/binary";

const root = join(import.meta.dir, "..", "..");
const home = mkdtempSync(join(tmpdir(), "scv-readme-home-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

test("the README's install line puts scv on the PATH and scv --version answers", () => {
  requireBinary();
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const quickStart = readme.slice(readme.indexOf("## Quick start"), readme.indexOf("## Commands"));
  const blocks = [...quickStart.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());
  const install = blocks.find((b) => b.includes("scv --version"));
  expect(install).toBeDefined();
  expect(install).toContain("~/.local/bin");
  // As a person runs it from the checkout, with a home of their own whose bin directory is on the PATH.
  const r = Bun.spawnSync(["sh", "-c", install!], { cwd: root, env: { HOME: home, PATH: `${home}/.local/bin:/usr/bin:/bin` }, stdout: "pipe", stderr: "pipe" });
  expect(r.stderr.toString()).toBe("");
  expect(r.exitCode).toBe(0);
  expect(r.stdout.toString()).toMatch(/^scv \d+\.\d+\.\d+\n$/);
});
