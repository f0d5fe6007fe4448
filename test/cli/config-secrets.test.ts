// Keys in fields not marked secret (red team finding 10): a `base_url` query string and an agent's `args` are
// masked by `scv config show` and never kept in the config check cache, through the compiled binary.
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, fakeModelForFile, runBinary } from "../fake/binary";

const fake = fakeModelForFile();

test("config show and the config check cache keep neither a query-string key nor agent args", async () => {
  const { env, home, workspace } = fakeHome(`${fake.url}?api-version=2024&key=QUERYSECRET123`, '[agents.codex]\nargs = ["--api-key", "ARGSSECRET456"]\n');
  const shown = await runBinary(["config", "show"], env, workspace);
  expect(shown.code).toBe(0);
  expect(shown.stdout).not.toContain("QUERYSECRET123");
  expect(shown.stdout).not.toContain("ARGSSECRET456");
  expect(shown.stdout).toContain("key=***");
  expect(shown.stdout).toMatch(/agents\.codex\.args = "set"/);
  // exec validates the configuration and writes the check cache (the model request itself fails: the fake
  // serves no query-string route, which is beside the point here).
  const first = await runBinary(["exec", "hi"], env, workspace);
  const cache = join(home, "state", "config-check.json");
  expect(existsSync(cache)).toBe(true);
  const cached = readFileSync(cache, "utf8");
  expect(cached).not.toContain("QUERYSECRET123");
  expect(cached).not.toContain("ARGSSECRET456");
  expect(cached).toContain("secrets");
  // A second run takes the cached result, its secrets read back from the file: it gets exactly as far.
  const second = await runBinary(["exec", "hi"], env, workspace);
  expect(second.code).toBe(first.code);
  expect(second.stderr).toBe(first.stderr);
  expect(second.stderr).not.toContain("QUERYSECRET123");
}, 30_000);
