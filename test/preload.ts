// Runs before every test file: no test may see the developer's real home, SCV state or keys, and nothing a
// test creates outlives the run: every temp dir (os.tmpdir() reads TMPDIR) lands under one root removed at exit.
import { afterAll } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { agentConfigRules } from "../src/agents/config-rules";
import { registerConfigChecks } from "../src/config/checks";

// The per-test timeout is `bun test --timeout 30000` (package.json, .ci/run, README): a setDefaultTimeout here
// would reach only the first test file (checked with bun 1.4.5), and bunfig's [test] timeout is not read.

const root = mkdtempSync(join(tmpdir(), "scv-test-"));
process.env.TMPDIR = join(root, "tmp");
mkdirSync(process.env.TMPDIR);
const removeRoot = () => rmSync(root, { recursive: true, force: true });
afterAll(removeRoot); // global hook: tests leave no temp dirs behind
process.on("exit", removeRoot);
process.env.HOME = join(root, "home");
process.env.SCV_HOME = join(root, "scv-home");
process.env.XDG_CONFIG_HOME = join(root, "home", ".config");
process.env.XDG_DATA_HOME = join(root, "home", ".local", "share");
process.env.XDG_STATE_HOME = join(root, "home", ".local", "state");
for (const name of Object.keys(process.env)) {
  if (name.endsWith("_API_KEY") || name === "SCV_PROVIDER" || name === "SCV_MODEL" || /_PROXY$/i.test(name)) {
    delete process.env[name];
  }
}
delete process.env.BUN_OPTIONS;
delete process.env.BUN_BE_BUN;
delete process.env.SCV_DELEGATION_DEPTH;
delete process.env.SCV_PARENT;
mkdirSync(process.env.HOME!, { recursive: true });
// As src/cli/main.ts does: the agents hand config/ their rules about agent settings.
registerConfigChecks(agentConfigRules);
