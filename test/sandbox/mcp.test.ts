// An MCP stdio server the user marks `sandbox = true` starts through the sandbox's launcher: it still serves
// (a real SDK server, through `scv mcp test`), and what it tries outside its workspace is refused; the same
// server unmarked is not confined (so the test can fail). The target lives in a throwaway directory.
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { requireBinary } from "../fake/binary";
import { EVERYTHING, JS_RUNTIME, serverToml } from "../fake/mcp-servers";

const root = mkdtempSync(join("/var/tmp", "scv-sandbox-mcp-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// Inside the sandbox /tmp is the command's private directory, so a checkout under /tmp (where a CI may clone it)
// would hide the server's own files: they are then named a writable root. The write under test (outside/) is not.
const modules = EVERYTHING.slice(0, EVERYTHING.indexOf("/node_modules/") + "/node_modules".length);
const reachModules = /^\/tmp\//.test(modules) ? `[sandbox]\nwritable_roots = [${JSON.stringify(modules)}]\n` : "";

function run(sandbox: boolean) {
  const dir = join(root, sandbox ? "on" : "off");
  const home = join(dir, "scv");
  const ws = join(dir, "ws");
  const outside = join(dir, "outside");
  for (const d of [home, ws, outside]) mkdirSync(d, { recursive: true });
  // The server first tries a write outside its workspace, then serves as usual.
  const script = join(dir, "server.sh");
  writeFileSync(script, `#!/bin/sh\necho x > ${outside}/planted 2>/dev/null\nexec ${JS_RUNTIME} ${EVERYTHING}\n`, { mode: 0o755 });
  writeFileSync(join(home, "config.toml"), reachModules + serverToml("every", { command: script, ...(sandbox ? { sandbox: true } : {}) }));
  const r = Bun.spawnSync([requireBinary(), "mcp", "test", "every", "--yes"], { cwd: ws, env: { PATH: process.env.PATH!, HOME: dir, SCV_HOME: home }, stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, out: r.stdout.toString() + r.stderr.toString(), planted: existsSync(join(outside, "planted")) };
}

test("sandbox = true: the server serves, and its write outside the workspace is refused; unmarked it is not", () => {
  const on = run(true);
  expect(on.code).toBe(0);
  expect(on.out).toMatch(/tools?/);
  expect(on.planted).toBe(false);
  const off = run(false);
  expect(off.code).toBe(0);
  expect(off.planted).toBe(true);
}, 120_000);

test("sandbox = true and a launch the sandbox refuses: the server is reported not started, with the launcher's reason", () => {
  const dir = join(root, "refused");
  const home = join(dir, "scv");
  const ws = join(dir, "ws");
  for (const d of [home, ws]) mkdirSync(d, { recursive: true });
  writeFileSync(join(home, "config.toml"), serverToml("gone", { command: join(dir, "no-such-server"), sandbox: true }));
  const r = Bun.spawnSync([requireBinary(), "mcp", "test", "gone", "--yes"], { cwd: ws, env: { PATH: process.env.PATH!, HOME: dir, SCV_HOME: home }, stdout: "pipe", stderr: "pipe" });
  const out = r.stdout.toString() + r.stderr.toString();
  expect(r.exitCode).not.toBe(0);
  expect(out).toContain(`could not start in the sandbox: the command was not run: executing ${join(dir, "no-such-server")} failed (ENOENT)`);
  expect(out).not.toContain("exited with code 125");
}, 60_000);
