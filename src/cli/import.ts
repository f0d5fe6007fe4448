// `scv import claude [--dry-run] [--yes]`: a Claude Code user's setup brought over in one go (import-claude.ts
// finds it): each piece shown before it is written, asked one by one on a terminal, never written twice, and
// what SCV cannot take listed with the reason.
import { join } from "node:path";
import { ConfigError, loadConfig, MAX_CONFIG_BYTES, scvHome } from "../config/load";
import { readBoundedTextIfExists } from "../fs/safe-read";
import { writePrivateFileAtomic } from "../fs/private-file";
import { userHome } from "../user-home";
import { defineCommand } from "./command";
import { confirm } from "./confirm";
import { type ImportItem, planClaudeImport, planCodexImport } from "./import-plan";

function fail(message: string, code = 1) {
  process.stderr.write(`scv import: ${message}\n`);
  process.exitCode = code;
}

/** Appends TOML to config.toml; the result must load, or the file is put back as it was. */
function appendToml(toml: string): void {
  const file = join(scvHome(), "config.toml");
  const current = readBoundedTextIfExists(file, { what: "config file", maxBytes: MAX_CONFIG_BYTES });
  writePrivateFileAtomic(file, `${current ?? ""}${current && !current.endsWith("\n") ? "\n" : ""}${toml}`);
  try {
    loadConfig();
  } catch (e) {
    if (current !== undefined) writePrivateFileAtomic(file, current);
    throw new Error(`it would make ${file} invalid, so the file was left as it was: ${(e as Error).message}`);
  }
}

function apply(item: ImportItem): void {
  if (item.toml) appendToml(item.toml);
  else item.write!();
}

export default defineCommand({
  meta: { name: "import", description: "Bring a Claude Code or Codex setup over: hooks, commands (Codex prompts), skills, MCP servers and the user's CLAUDE.md / AGENTS.md (asks for each on a terminal)" },
  notes: "Agents (~/.claude/agents) become agent files of SCV's own loop (~/.scv/agents), run on the nested SCV. Project files (CLAUDE.md, AGENTS.md) need no import: sessions read them. docs/guide.md, \"Coming from Claude Code\", lists every mapping.",
  args: {
    from: { type: "positional", description: "where from: claude or codex" },
    "dry-run": { type: "boolean", description: "show what would be imported and skipped; write nothing" },
    yes: { type: "boolean", alias: "y", description: "import everything found without asking" },
  },
  async run({ args }) {
    if (args.from !== "claude" && args.from !== "codex") return fail(`cannot import from ${JSON.stringify(args.from ?? "")}; the sources are claude (~/.claude, ~/.claude.json) and codex (~/.codex)`, 2);
    let config;
    try {
      config = loadConfig().config;
    } catch (e) {
      if (e instanceof ConfigError) return fail(`your config has a problem; fix it first:\n${e.message}`, 78);
      throw e;
    }
    const plan = (args.from === "codex" ? planCodexImport : planClaudeImport)({ home: userHome(), scvHome: scvHome(), config, workspace: process.cwd() });
    const out = process.stderr;
    for (const p of plan.present) out.write(`already in SCV: ${p}\n`);
    for (const s of plan.skipped) out.write(`skipped ${s}\n`);
    if (!plan.items.length) return void out.write("nothing new to import\n");
    const dry = !!args["dry-run"];
    const { isatty } = await import("node:tty");
    const ask = !args.yes && !dry && isatty(0);
    let written = 0;
    for (const item of plan.items) {
      out.write(`\n${item.kind} ${item.name} → ${item.to}\n${item.shown.split("\n").map((l) => `  ${l}`).join("\n")}\n`);
      if (dry || (!ask && !args.yes)) continue;
      if (ask && !(await confirm(`Import ${item.kind} ${item.name}? [y/N] `))) continue;
      try {
        apply(item);
        written++;
      } catch (e) {
        out.write(`  not imported: ${(e as Error).message}\n`);
      }
    }
    if (dry) return void out.write(`\n--dry-run: ${plan.items.length} item(s) would be imported; nothing was written\n`);
    if (!ask && !args.yes) return fail(`nothing was written; pass --yes to import these ${plan.items.length} item(s) without a terminal to ask on, or --dry-run to only look`, 2);
    out.write(`\nimported ${written} of ${plan.items.length}\n`);
  },
});
