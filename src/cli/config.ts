import { defineCommand } from "./command";
import { terminalSafe } from "../text/terminal-safe";
import { ConfigError, loadConfig, scvHome } from "../config/load";
import { effectiveEntries, renderEntries } from "../config/show";

const show = defineCommand({
  meta: { name: "show", description: "Print the effective configuration and where each value came from (secrets as set/unset)" },
  args: {
    cwd: { type: "string", description: "workspace whose .scv/config.toml applies (default: current directory)" },
    json: { type: "boolean", description: "print JSON" },
  },
  async run({ args }) {
    try {
      const loaded = loadConfig({ cwd: args.cwd ?? process.cwd() });
      const entries = effectiveEntries(loaded);
      // What a `bash` command's environment holds here: names only (a listed value may be a secret).
      const { bashEnvironmentNames } = await import("../tools/bash-env");
      entries.push({ key: "bash environment (names)", value: bashEnvironmentNames(process.env, loaded.config.tools.bash_env), source: "allowlist + tools.bash_env" });
      // Imported agent setups: whether each copy still matches its source (docs/configuration.md).
      const { importSummaries } = await import("../accounts/imports/index");
      const imports = importSummaries({ scvHome: scvHome(), config: loaded.config, env: process.env });
      if (args.json) process.stdout.write(`${JSON.stringify({ user_file: loaded.userFile, project_file: loaded.projectFile ?? null, entries, imports }, null, 2)}\n`);
      else {
        process.stdout.write(`# user file: ${loaded.userFile}\n# project file: ${loaded.projectFile ?? "(none)"}\n`);
        process.stdout.write(`${terminalSafe(renderEntries(entries))}\n`);
        if (imports.length) process.stdout.write(`# imported agent setups:\n${imports.map((i) => `#   ${i.agent}: ${i.line}`).join("\n")}\n`);
      }
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      process.stderr.write(`scv config: ${e.message}\n`);
      process.exit(78);
    }
  },
});

export default defineCommand({ meta: { name: "config", description: "Inspect SCV's configuration" }, subCommands: { show } });
