// `scv hooks list|import claude`: the user's hooks (docs/hooks.md), and copying Claude Code's from
// ~/.claude/settings.json into SCV's config, after showing what would be added and asking.
import { join } from "node:path";
import { ConfigError, loadConfig, MAX_CONFIG_BYTES, scvHome } from "../config/load";
import { HOOK_EVENTS } from "../config/schema";
import { readBoundedTextIfExists } from "../fs/safe-read";
import { writePrivateFileAtomic } from "../fs/private-file";
import { maskKeyFormats } from "../text/scrub";
import { userHome } from "../user-home";
import { defineCommand } from "./command";
import { confirm } from "./confirm";

function fail(command: string, message: string, code = 1): void {
  process.stderr.write(`scv hooks ${command}: ${message}\n`);
  process.exitCode = code;
}

const list = defineCommand({
  meta: { name: "list", description: "List the hooks configured in your user config, by event" },
  args: { json: { type: "boolean", description: "print JSON" } },
  run({ args }) {
    let hooks;
    try {
      hooks = loadConfig().config.hooks ?? {};
    } catch (e) {
      if (e instanceof ConfigError) return fail("list", e.message);
      throw e;
    }
    // A command may carry a key of its own: shown masked, as everything SCV prints.
    for (const list of Object.values(hooks)) for (const h of list ?? []) h.command = maskKeyFormats(h.command);
    if (args.json) {
      process.stdout.write(`${JSON.stringify({ file: join(scvHome(), "config.toml"), hooks }, null, 2)}\n`);
      return;
    }
    const events = HOOK_EVENTS.filter((e) => hooks[e]?.length);
    if (!events.length) {
      process.stdout.write("no hooks configured (add [[hooks.<Event>]] tables to your user config, or run scv hooks import claude; see docs/hooks.md)\n");
      return;
    }
    for (const event of events) {
      process.stdout.write(`${event}\n`);
      for (const h of hooks[event]!) {
        const matcher = h.matcher !== undefined && h.matcher !== "" ? h.matcher : "*";
        process.stdout.write(`  ${matcher}  $ ${h.command.replace(/\s*\n\s*/g, " ⏎ ")}  (timeout ${h.timeout_seconds} s)\n`);
      }
    }
  },
});

const importCommand = defineCommand({
  meta: { name: "import", description: "Copy hooks from another agent's settings into your user config (claude: ~/.claude/settings.json); asks first unless --yes" },
  args: {
    from: { type: "positional", description: "where from: claude" },
    yes: { type: "boolean", description: "add them without asking", alias: "y" },
  },
  async run({ args }) {
    if (args.from !== "claude") return fail("import", `cannot import from ${JSON.stringify(args.from)}; the one source is claude (~/.claude/settings.json)`, 2);
    const settingsFile = join(userHome(), ".claude", "settings.json");
    const configFile = join(scvHome(), "config.toml");
    let settings: string | undefined;
    let current: string | undefined;
    let existing;
    try {
      settings = readBoundedTextIfExists(settingsFile, { what: "Claude Code settings", maxBytes: MAX_CONFIG_BYTES });
      current = readBoundedTextIfExists(configFile, { what: "config file", maxBytes: MAX_CONFIG_BYTES });
      existing = loadConfig().config.hooks ?? {};
    } catch (e) {
      return fail("import", (e as Error).message);
    }
    if (settings === undefined) return fail("import", `${settingsFile} does not exist; nothing to import`);
    const { hooksToml, importClaudeHooks } = await import("../hooks/claude-import");
    let found;
    try {
      found = importClaudeHooks(settings, settingsFile, existing);
    } catch (e) {
      return fail("import", (e as Error).message);
    }
    for (const s of found.skipped) process.stderr.write(`skipped ${s}\n`);
    if (found.present.length) process.stderr.write(`${found.present.length} hook(s) already in ${configFile}, left as they are\n`);
    if (!found.add.length) {
      process.stderr.write(`nothing to add from ${settingsFile}\n`);
      return;
    }
    const addition = hooksToml(found.add, settingsFile);
    process.stderr.write(`These tables would be added to ${configFile}:\n${maskKeyFormats(addition)}\n`);
    process.stderr.write("Hooks run with your permissions, unsandboxed, at every matching moment of every session.\n");
    if (!args.yes) {
      const { isatty } = await import("node:tty");
      if (!isatty(0)) return fail("import", "nothing was added; pass --yes to add them without a terminal to ask on", 2);
      if (!(await confirm(`Add ${found.add.length} hook(s)? [y/N] `))) {
        process.stderr.write("nothing was added\n");
        return;
      }
    }
    const next = `${current ?? ""}${current && !current.endsWith("\n") ? "\n" : ""}${addition}`;
    try {
      writePrivateFileAtomic(configFile, next);
      loadConfig(); // the result must load; if it does not, the old file comes back
    } catch (e) {
      if (current !== undefined) writePrivateFileAtomic(configFile, current);
      return fail("import", `the imported hooks would make the config invalid, so ${configFile} was left as it was: ${(e as Error).message}`);
    }
    process.stderr.write(`added ${found.add.length} hook(s) to ${configFile}; scv hooks list shows them\n`);
  },
});

export default defineCommand({ meta: { name: "hooks", description: "Your own programs run at a session's moments (Claude Code's hooks)" }, subCommands: { list, import: importCommand } });
