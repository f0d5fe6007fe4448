// The person's own slash commands as Markdown files, in Claude Code's format: `~/.scv/commands/<name>.md`
// (under SCV_HOME) and `<project>/.scv/commands/<name>.md`. The body is the prompt; `$ARGUMENTS` is everything
// typed after the name, `$1`, `$2`… the words (a quoted phrase is one word); a body with neither gets the
// arguments after it as `ARGUMENTS: …`, as Claude Code does. Front matter: `description` (the menu's line),
// `argument-hint`, `model` (a profile or model for that command's turn), `allowed-tools` (tools that run
// without asking during that command's turn). A project's files are read only once the person trusted that
// project (`scv commands trust`), because they come with whatever repository was cloned.
//
// Bad input never crashes and is never dropped silently: each skipped file comes back as a notice naming the
// file and the field.
import { existsSync, mkdirSync, readdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { readBoundedText, readBoundedTextIfExists } from "../fs/safe-read";
import { writePrivateFileAtomic } from "../fs/private-file";

export const MAX_COMMAND_BYTES = 64 * 1024;
const MAX_FILES = 200;
const NAME = /^[a-z0-9][a-z0-9_.-]{0,63}$/;

export interface CommandFile {
  name: string;
  description: string;
  argumentHint?: string;
  model?: string;
  /** Claude Code's tool names and patterns as written (`Bash(git add:*)`, `Edit`); see allowsTool. */
  allowedTools: string[];
  body: string;
  file: string;
  kind: "user" | "project";
}

export interface Loaded<T> {
  items: T[];
  /** One line per file left out: the file, the field and why. */
  notices: string[];
}

/** A Markdown file's YAML front matter and body; `problem` names what is wrong with the front matter. */
export function splitFrontMatter(text: string): { data: Record<string, unknown>; body: string } | { problem: string } {
  const opening = /^\uFEFF?---[ \t]*\r?\n/.exec(text);
  if (!opening) return { data: {}, body: text };
  const rest = text.slice(opening[0].length);
  const closing = /^---[ \t]*\r?$/m.exec(rest);
  if (!closing) return { problem: "front matter: not closed by a line `---`" };
  let data: unknown;
  try {
    data = Bun.YAML.parse(rest.slice(0, closing.index)) ?? {};
  } catch (e) {
    return { problem: `front matter: not valid YAML (${String((e as Error).message).split("\n")[0]!.slice(0, 160)})` };
  }
  if (typeof data !== "object" || Array.isArray(data)) return { problem: "front matter: not a list of `key: value` lines" };
  return { data: data as Record<string, unknown>, body: rest.slice(closing.index + closing[0].length).replace(/^\r?\n/, "") };
}

/** A list field (`allowed-tools: Read, Grep` or a YAML list) as its items; undefined when it has the wrong type. */
export function listField(v: unknown): string[] | undefined {
  if (v === undefined || v === null) return [];
  if (typeof v === "string") return splitTools(v);
  if (Array.isArray(v) && v.every((x) => typeof x === "string")) return v.map((x) => x.trim()).filter(Boolean);
  return undefined;
}

/** `Read, Bash(git add:*), Edit` → its items; commas inside parentheses stay. */
function splitTools(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = "";
  for (const ch of s) {
    if (ch === "(") depth++;
    if (ch === ")") depth = Math.max(0, depth - 1);
    if (ch === "," && depth === 0) {
      if (cur.trim()) out.push(cur.trim());
      cur = "";
    } else cur += ch;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

/** The `.md` files of one directory, name-ordered and bounded; a missing directory has none. */
export function markdownFiles(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((n) => n.endsWith(".md")).sort().slice(0, MAX_FILES).map((n) => join(dir, n));
}

/** The directories commands are read from: the user's, then the project's when it is trusted. */
export function commandDirs(opts: { scvHome: string; workspace: string }): { dir: string; kind: "user" | "project"; trusted: boolean }[] {
  return [
    { dir: join(opts.scvHome, "commands"), kind: "user", trusted: true },
    { dir: join(opts.workspace, ".scv", "commands"), kind: "project", trusted: isTrustedProject(opts.scvHome, opts.workspace) },
  ];
}

/**
 * The command files a session here offers. `builtins` are names that cannot be taken (SCV's own commands); a
 * project file does not replace a user file of the same name.
 */
export function loadCommandFiles(opts: { scvHome: string; workspace: string; builtins: readonly string[] }): Loaded<CommandFile> {
  const items: CommandFile[] = [];
  const notices: string[] = [];
  for (const { dir, kind, trusted } of commandDirs(opts)) {
    const files = markdownFiles(dir);
    if (!trusted) {
      if (files.length) notices.push(`${dir}: ${files.length} project command file${files.length === 1 ? "" : "s"} not loaded: this project is not trusted yet (scv commands trust ${opts.workspace})`);
      continue;
    }
    for (const file of files) {
      const r = readCommandFile(file, kind);
      if ("problem" in r) {
        notices.push(`${file}: ${r.problem}; skipped`);
        continue;
      }
      if (opts.builtins.includes(r.name)) {
        notices.push(`${file}: name: /${r.name} is one of SCV's own commands; rename the file; skipped`);
        continue;
      }
      if (items.some((c) => c.name === r.name)) {
        notices.push(`${file}: name: /${r.name} is already defined by ${items.find((c) => c.name === r.name)!.file}; skipped`);
        continue;
      }
      items.push(r);
    }
  }
  return { items, notices };
}

/**
 * A command or agent file read: its name (the file's, lower-cased, checked against `name.pattern`), front matter
 * and body; or what is wrong with it.
 */
export function readMarkdownFile(file: string, name: { pattern: RegExp; rule: string }, what: string, maxBytes: number): { name: string; data: Record<string, unknown>; body: string } | { problem: string } {
  const base = file.split("/").pop()!.replace(/\.md$/, "").toLowerCase();
  if (!name.pattern.test(base)) return { problem: `name: ${JSON.stringify(base)} is not ${name.rule}` };
  let text: string;
  try {
    text = readBoundedText(file, { what, maxBytes });
  } catch (e) {
    return { problem: (e as Error).message };
  }
  const split = splitFrontMatter(text);
  return "problem" in split ? split : { name: base, ...split };
}

/** One command file, or what is wrong with it. */
export function readCommandFile(file: string, kind: "user" | "project"): CommandFile | { problem: string } {
  const read = readMarkdownFile(file, { pattern: NAME, rule: "a command name (letters, digits, - _ . ; at most 64)" }, "command file", MAX_COMMAND_BYTES);
  if ("problem" in read) return read;
  const { name, data, body } = read;
  const field = (key: string): string | undefined | { problem: string } => {
    const v = data[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "string" && typeof v !== "number") return { problem: `${key}: must be text` };
    return String(v).replace(/\s+/g, " ").trim();
  };
  const description = field("description");
  const hint = field("argument-hint");
  const model = field("model");
  for (const f of [description, hint, model]) if (typeof f === "object") return f;
  const allowed = listField(data["allowed-tools"]);
  if (!allowed) return { problem: "allowed-tools: must be a list of tool names (Read, Edit, Bash(git add:*))" };
  for (const t of allowed) if (!toolNameOf(t)) return { problem: `allowed-tools: unknown tool ${JSON.stringify(t)} (known: ${Object.keys(CLAUDE_TOOLS).join(", ")} or SCV's own tool names)` };
  if (!body.trim()) return { problem: "body: the file has no prompt after its front matter" };
  const firstLine = body.trim().split("\n")[0]!.replace(/^#+\s*/, "");
  return {
    name,
    description: (description as string | undefined) || firstLine.slice(0, 100),
    ...(hint ? { argumentHint: hint as string } : {}),
    ...(model ? { model: model as string } : {}),
    allowedTools: allowed,
    body,
    file,
    kind,
  };
}

/** Claude Code's tool names → SCV's. */
export const CLAUDE_TOOLS: Readonly<Record<string, string>> = {
  Bash: "bash",
  Read: "read",
  Write: "write",
  Edit: "edit",
  MultiEdit: "edit",
  Grep: "grep",
  Glob: "glob",
  LS: "glob",
  WebFetch: "web_fetch",
  WebSearch: "web_search",
  Task: "agent",
  TodoWrite: "plan",
};

const SCV_TOOLS = new Set([...Object.values(CLAUDE_TOOLS), "clarify", "read_skill", "schedule", "memory", "chat_history"]);

/** The SCV tool a `allowed-tools` item names (`Bash(git add:*)` → bash), or undefined for an unknown one. */
export function toolNameOf(item: string): string | undefined {
  const m = /^([A-Za-z_][\w-]*)(?:\((.*)\))?$/.exec(item.trim());
  if (!m) return undefined;
  const name = m[1]!;
  if (CLAUDE_TOOLS[name]) return CLAUDE_TOOLS[name];
  if (SCV_TOOLS.has(name) || name.startsWith("mcp__")) return name;
  return undefined;
}

/**
 * Whether a call a command's `allowed-tools` lets run unasked: the tool matches, and for `Bash(prefix:*)` the
 * command starts with the prefix (`Bash(npm test)` is the exact command). `command` is the bash call's command.
 */
export function allowsTool(allowed: readonly string[], tool: string, command?: string): boolean {
  return allowed.some((item) => {
    if (toolNameOf(item) !== tool) return false;
    const pattern = /\((.*)\)$/.exec(item.trim())?.[1];
    if (pattern === undefined || pattern === "*" || tool !== "bash") return true;
    if (command === undefined) return false;
    const c = command.trim();
    if (pattern.endsWith(":*")) {
      const prefix = pattern.slice(0, -2);
      return c === prefix || c.startsWith(`${prefix} `);
    }
    return c === pattern;
  });
}

/** The words of an argument string: spaces split, a quoted phrase is one word. */
export function argumentWords(args: string): string[] {
  const words: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(args); m; m = re.exec(args)) words.push(m[1] ?? m[2] ?? m[3]!);
  return words;
}

/** The prompt a command sends: `$ARGUMENTS` and `$1…$9` filled in, or the arguments after it (Claude Code). */
export function expandCommand(body: string, args: string): string {
  const words = argumentWords(args);
  const uses = /\$ARGUMENTS|\$[1-9]/.test(body);
  const filled = body.replace(/\$ARGUMENTS|\$([1-9])/g, (whole, n: string | undefined) => (n ? (words[Number(n) - 1] ?? "") : args));
  return !uses && args.trim() ? `${filled.trimEnd()}\n\nARGUMENTS: ${args.trim()}` : filled;
}

// ---- project trust ----

const TRUST_FILE = "trusted-projects.json";

function trustedList(scvHome: string): string[] {
  try {
    const text = readBoundedTextIfExists(join(scvHome, TRUST_FILE), { what: "trusted projects file", maxBytes: 256 * 1024 });
    const data = text ? JSON.parse(text) : undefined;
    return Array.isArray(data?.projects) ? data.projects.filter((p: unknown) => typeof p === "string") : [];
  } catch {
    return [];
  }
}

const real = (dir: string) => {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
};

/** Whether the person trusted this project's own command and agent files (`scv commands trust`). */
export function isTrustedProject(scvHome: string, workspace: string): boolean {
  return trustedList(scvHome).includes(real(workspace));
}

/** Records the project as trusted; returns false when it already was. */
export function trustProject(scvHome: string, workspace: string): boolean {
  if (!existsSync(workspace)) throw new Error(`${workspace}: no such directory`);
  const list = trustedList(scvHome);
  const dir = real(workspace);
  if (list.includes(dir)) return false;
  mkdirSync(scvHome, { recursive: true, mode: 0o700 });
  writePrivateFileAtomic(join(scvHome, TRUST_FILE), `${JSON.stringify({ projects: [...list, dir] }, null, 2)}\n`);
  return true;
}
