// What `scv import claude` and `scv import codex` find in a Claude Code or Codex setup and how each piece lands
// in SCV: hooks and MCP servers as tables in config.toml, commands as ~/.scv/commands files, skills as ~/.scv/skills folders, the user's
// CLAUDE.md as a section of USER.md (the owner's memory). Each piece is an item shown before it is written; one
// already in SCV is "present" (never written twice); what SCV cannot take is skipped with the reason.
import { cpSync, existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { readAgentFile } from "../command-files/agents";
import { markdownFiles, readCommandFile } from "../command-files/index";
import { DESCRIPTORS } from "../agents/descriptors";
import { type Config, MCP_SERVER_NAME } from "../config/schema";
import { readBoundedText, readBoundedTextIfExists } from "../fs/safe-read";
import { writePrivateFileAtomic } from "../fs/private-file";
import { hooksToml, importClaudeHooks, tomlString } from "../hooks/claude-import";
import * as memory from "../memory/files";
import { maskKeyFormats } from "../text/scrub";

export interface ImportItem {
  kind: "hooks" | "command" | "agent" | "skill" | "mcp server" | "memory";
  name: string;
  /** What will be written, as a person reads it (secrets masked). */
  shown: string;
  /** Where it goes. */
  to: string;
  /** TOML appended to config.toml, or a write of its own. */
  toml?: string;
  write?(): void;
}

export interface ImportPlan {
  items: ImportItem[];
  present: string[];
  skipped: string[];
}

const MAX_BYTES = 1024 * 1024;

/** Runs one source's step; an unreadable source is said, naming it, and the rest goes on. */
function stepper(plan: ImportPlan) {
  return (what: string, f: () => void) => {
    try {
      f();
    } catch (e) {
      plan.skipped.push(`${what}: ${(e as Error).message}`);
    }
  };
}

export function planClaudeImport(opts: { home: string; scvHome: string; config: Config; workspace: string }): ImportPlan {
  const plan: ImportPlan = { items: [], present: [], skipped: [] };
  const claude = join(opts.home, ".claude");
  const step = stepper(plan);
  step(join(claude, "settings.json"), () => hooksOf(plan, join(claude, "settings.json"), opts.config));
  step(join(claude, "commands"), () => commandsOf(plan, join(claude, "commands"), join(opts.scvHome, "commands")));
  step(join(claude, "agents"), () => agentsOf(plan, join(claude, "agents"), join(opts.scvHome, "agents")));
  step(join(claude, "skills"), () => skillsOf(plan, join(claude, "skills"), join(opts.scvHome, "skills")));
  step(join(opts.home, ".claude.json"), () => mcpOf(plan, join(opts.home, ".claude.json"), opts.config));
  step(join(claude, "CLAUDE.md"), () => memoryOf(plan, join(claude, "CLAUDE.md"), opts));
  return plan;
}

/**
 * Codex's setup: its custom prompts (`~/.codex/prompts/NAME.md`, the same front matter and `$1`/`$ARGUMENTS`) as
 * commands, `[mcp_servers.NAME]` of `~/.codex/config.toml`, and `~/.codex/AGENTS.md` as a section of USER.md.
 */
export function planCodexImport(opts: { home: string; scvHome: string; config: Config; workspace: string }): ImportPlan {
  const plan: ImportPlan = { items: [], present: [], skipped: [] };
  const codex = join(opts.home, ".codex");
  const step = stepper(plan);
  step(join(codex, "prompts"), () => commandsOf(plan, join(codex, "prompts"), join(opts.scvHome, "commands")));
  step(join(codex, "config.toml"), () => {
    const text = readBoundedTextIfExists(join(codex, "config.toml"), { what: "Codex config", maxBytes: MAX_BYTES });
    if (text === undefined) return;
    let data: any;
    try {
      data = Bun.TOML.parse(text);
    } catch (e) {
      throw new Error(`not valid TOML (${(e as Error).message.split("\n")[0]}); its MCP servers were not imported`);
    }
    const servers: Record<string, unknown> = {};
    for (const [name, s] of Object.entries((data?.mcp_servers ?? {}) as Record<string, any>)) {
      if (s?.bearer_token_env_var) {
        plan.skipped.push(`mcp server ${name}: bearer_token_env_var; add it by hand as bearer_token_env = "${s.bearer_token_env_var}"`);
        continue;
      }
      servers[name] = { ...s, type: s?.url ? "http" : "stdio", headers: s?.http_headers ?? s?.headers };
    }
    mcpServersOf(plan, join(codex, "config.toml"), servers, opts.config, "`scv import codex`");
  });
  step(join(codex, "AGENTS.md"), () => memoryOf(plan, join(codex, "AGENTS.md"), opts, "## From Codex (~/.codex/AGENTS.md)"));
  return plan;
}

function hooksOf(plan: ImportPlan, file: string, config: Config) {
  const text = readBoundedTextIfExists(file, { what: "Claude Code settings", maxBytes: MAX_BYTES });
  if (text === undefined) return;
  const found = importClaudeHooks(text, file, config.hooks ?? {});
  for (const s of found.skipped) plan.skipped.push(`hook ${s}`);
  for (const h of found.present) plan.present.push(`hook ${h.event}${h.matcher ? ` (${h.matcher})` : ""}: ${maskKeyFormats(h.command)}`);
  if (!found.add.length) return;
  const toml = hooksToml(found.add, file).replace("`scv hooks import claude`", "`scv import claude`");
  plan.items.push({ kind: "hooks", name: `${found.add.length} hook${found.add.length === 1 ? "" : "s"}`, shown: `${maskKeyFormats(toml.trim())}\n(hooks run with your permissions, unsandboxed, at every matching moment of every session)`, to: "config.toml", toml });
}

function commandsOf(plan: ImportPlan, dir: string, target: string) {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir).sort()) {
    if (statSync(join(dir, name)).isDirectory()) plan.skipped.push(`command folder ${join(dir, name)}: namespaced commands (/${name}:…) are not taken; move its files up a level to import them`);
  }
  for (const file of markdownFiles(dir)) {
    const c = readCommandFile(file, "user");
    if ("problem" in c) {
      plan.skipped.push(`command ${file}: ${c.problem}`);
      continue;
    }
    const text = readBoundedText(file, { what: "command file", maxBytes: MAX_BYTES });
    const dest = join(target, `${c.name}.md`);
    const there = readBoundedTextIfExists(dest, { what: "command file", maxBytes: MAX_BYTES });
    if (there === text) plan.present.push(`command /${c.name}`);
    else if (there !== undefined) plan.skipped.push(`command /${c.name}: ${dest} exists with other text; left as it is`);
    else
      plan.items.push({
        kind: "command",
        name: `/${c.name}`,
        shown: `${c.description}${c.allowedTools.length ? ` (allowed-tools: ${c.allowedTools.join(", ")})` : ""}`,
        to: dest,
        write: () => {
          mkdirSync(target, { recursive: true, mode: 0o700 });
          writePrivateFileAtomic(dest, text);
        },
      });
  }
}

/** Claude Code's subagents as SCV agent files: the same front matter (`tools` mapped, `model: sonnet` and the like mean the session's own). */
function agentsOf(plan: ImportPlan, dir: string, target: string) {
  for (const file of markdownFiles(dir)) {
    const a = readAgentFile(file, "user");
    if ("problem" in a) {
      plan.skipped.push(`agent ${file}: ${a.problem}`);
      continue;
    }
    if ((DESCRIPTORS as readonly { name: string }[]).some((d) => d.name === a.name)) {
      plan.skipped.push(`agent ${file}: ${a.name} is the name of one of SCV's coding agents; rename the file to import it`);
      continue;
    }
    const text = readBoundedText(file, { what: "agent file", maxBytes: MAX_BYTES });
    const dest = join(target, `${a.name}.md`);
    const there = readBoundedTextIfExists(dest, { what: "agent file", maxBytes: MAX_BYTES });
    if (there === text) plan.present.push(`agent ${a.name}`);
    else if (there !== undefined) plan.skipped.push(`agent ${a.name}: ${dest} exists with other text; left as it is`);
    else
      plan.items.push({
        kind: "agent",
        name: a.name,
        shown: `${a.description}${a.tools ? ` (tools: ${a.tools.join(", ")})` : ""}; runs as a nested SCV session (the nested SCV needs its provider: scv agents login scv)`,
        to: dest,
        write: () => {
          mkdirSync(target, { recursive: true, mode: 0o700 });
          writePrivateFileAtomic(dest, text);
        },
      });
  }
}

function skillsOf(plan: ImportPlan, dir: string, target: string) {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir).sort()) {
    const from = join(dir, name);
    if (!statSync(from).isDirectory()) continue;
    if (!existsSync(join(from, "SKILL.md"))) {
      plan.skipped.push(`skill ${from}: no SKILL.md in it`);
      continue;
    }
    const dest = join(target, name);
    if (existsSync(dest)) {
      plan.present.push(`skill ${name} (${dest})`);
      continue;
    }
    plan.items.push({
      kind: "skill",
      name,
      shown: `the folder ${from} (${readdirSync(from).length} entries), copied`,
      to: dest,
      write: () => {
        mkdirSync(target, { recursive: true, mode: 0o700 });
        cpSync(from, dest, { recursive: true, dereference: false, errorOnExist: true, force: false });
      },
    });
  }
}

function mcpOf(plan: ImportPlan, file: string, config: Config) {
  const text = readBoundedTextIfExists(file, { what: "Claude Code's ~/.claude.json", maxBytes: 64 * MAX_BYTES });
  if (text === undefined) return;
  let data: any;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new Error(`not valid JSON (${(e as Error).message}); its MCP servers were not imported`);
  }
  const servers = data?.mcpServers;
  if (!servers || typeof servers !== "object") return;
  mcpServersOf(plan, file, servers, config, "`scv import claude`");
}

/** MCP servers in Claude Code's shape (`type`, `command`, `args`, `env`, `url`, `headers`) as `[mcp.servers.NAME]`. */
function mcpServersOf(plan: ImportPlan, file: string, servers: Record<string, unknown>, config: Config, by: string) {
  for (const [name, raw] of Object.entries(servers as Record<string, any>)) {
    const s = (raw ?? {}) as Record<string, any>;
    const type = s.type ?? (s.url ? "http" : "stdio");
    if (!MCP_SERVER_NAME.test(name)) {
      plan.skipped.push(`mcp server ${JSON.stringify(name)}: SCV's server names use 1-32 letters, digits, - and single _`);
      continue;
    }
    if (config.mcp.servers[name]) {
      plan.present.push(`mcp server ${name}`);
      continue;
    }
    if (type === "sse") {
      plan.skipped.push(`mcp server ${name}: the SSE transport; SCV speaks stdio and streamable HTTP (if the server offers /mcp, add it with url)`);
      continue;
    }
    const lines = [`[mcp.servers.${name}]`];
    const shown = [`[mcp.servers.${name}]`];
    if (type === "http") {
      if (typeof s.url !== "string") {
        plan.skipped.push(`mcp server ${name}: an http server without a url`);
        continue;
      }
      lines.push(`url = ${tomlString(s.url)}`);
      shown.push(`url = ${tomlString(maskKeyFormats(s.url))}`);
      const headers = Object.entries((s.headers ?? {}) as Record<string, unknown>).filter(([, v]) => typeof v === "string") as [string, string][];
      if (headers.length) {
        lines.push(`headers = { ${headers.map(([k, v]) => `${tomlString(k)} = ${tomlString(v)}`).join(", ")} }`);
        shown.push(`headers = { ${headers.map(([k]) => `${tomlString(k)} = "…"`).join(", ")} }`);
      }
    } else if (type === "stdio" && typeof s.command === "string") {
      const args = Array.isArray(s.args) ? s.args.map(String) : [];
      lines.push(`command = ${tomlString(s.command)}`, `args = [${args.map(tomlString).join(", ")}]`);
      shown.push(`command = ${tomlString(s.command)}`, `args = [${args.map((a: string) => tomlString(maskKeyFormats(a))).join(", ")}]`);
      const env = Object.entries((s.env ?? {}) as Record<string, unknown>).filter(([, v]) => typeof v === "string") as [string, string][];
      if (env.length) {
        lines.push(`env = { ${env.map(([k, v]) => `${tomlString(k)} = ${tomlString(v)}`).join(", ")} }`);
        shown.push(`env = { ${env.map(([k]) => `${tomlString(k)} = "…"`).join(", ")} }`);
      }
    } else {
      plan.skipped.push(`mcp server ${name}: type ${JSON.stringify(type)} without a command; SCV takes stdio (command) and http (url) servers`);
      continue;
    }
    plan.items.push({ kind: "mcp server", name, shown: `${shown.join("\n")}\n(each session asks before it first connects)`, to: "config.toml", toml: `\n# Imported from ${file} by ${by}\n${lines.join("\n")}\n` });
  }
}

function memoryOf(plan: ImportPlan, file: string, opts: { scvHome: string; config: Config; workspace: string }, heading = "## From Claude Code (~/.claude/CLAUDE.md)") {
  const text = readBoundedTextIfExists(file, { what: file.split("/").pop()!, maxBytes: MAX_BYTES });
  if (text === undefined || !text.trim()) return;
  if (!opts.config.memory.enabled) {
    plan.skipped.push(`memory ${file}: memory is turned off (memory.enabled = false)`);
    return;
  }
  const place = { home: opts.scvHome, workspace: opts.workspace, config: opts.config.memory };
  const current = memory.readMemoryWhole(place, "user");
  if (current.includes(text.trim())) {
    plan.present.push(`memory: ${file} is in USER.md already`);
    return;
  }
  const section = `${heading}\n\n${text.trim()}\n`;
  const after = current.trim() ? `${current.trimEnd()}\n\n${section}` : section;
  const cap = memory.memoryCap(place, "user");
  if (Buffer.byteLength(after) > cap) {
    plan.skipped.push(`memory ${file}: ${Buffer.byteLength(text)} bytes do not fit USER.md's cap (${cap} bytes, memory.user_max_bytes); raise it, or keep the lines that matter with scv memory edit`);
    return;
  }
  plan.items.push({
    kind: "memory",
    name: file.split("/").pop()!,
    shown: maskKeyFormats(section.trim()),
    to: memory.memoryFile(place, "user"),
    write: () => void memory.updateMemory(place, "user", (now) => (now.trim() ? `${now.trimEnd()}\n\n${section}` : section)),
  });
}
