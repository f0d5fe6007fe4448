// Slash commands: one table that help, completion and dispatch all read.
export interface SlashCommand {
  name: string;
  args?: string;
  description: string;
}

export const SLASH_COMMANDS: readonly SlashCommand[] = [
  { name: "new", description: "end this session and start a fresh one here" },
  { name: "resume", args: "[ID]", description: "reopen a stored session (a list to pick from without ID)" },
  { name: "rewind", description: "go back to an earlier prompt: files and conversation, conversation only, or files only (also Esc Esc on an empty prompt)" },
  { name: "undo", description: "put back the files the last turn changed (its edits, commands and delegated agents' changes in the workspace)" },
  { name: "redo", description: "redo what the last /undo undid" },
  { name: "compact", description: "summarise the conversation so far to free context" },
  { name: "goal", args: "CHECK", description: "keep working on the task until the shell command CHECK passes (it runs after each turn; its failure starts the next)" },
  { name: "model", args: "[NAME]", description: "pick a profile or model (type to filter, Enter); with NAME (a profile or a model) switch to it; the conversation is kept" },
  { name: "mode", args: "[ask|accept-edits]", description: "how changes are approved: ask each time, or accept edits inside the workspace (Shift-Tab switches)" },
  { name: "effort", args: "[LEVEL]", description: "show the reasoning effort; with LEVEL switch it for the next turn" },
  { name: "jobs", description: "background jobs of this session" },
  { name: "agents", description: "the coding agents this session can delegate to" },
  { name: "tools", description: "the tools this session offers the model" },
  { name: "status", description: "model, context used, memory sizes, the sandbox and session ID" },
  { name: "stop", description: "stop the running turn and the goal, if one runs (as Ctrl-C)" },
  { name: "memory", description: "what SCV remembers about you and this project (edit: scv memory edit)" },
  { name: "skills", args: "[accept|reject NAME]", description: "the skills SCV drafted, as diffs; accept or reject one" },
  { name: "usage", description: "tokens (and cost, where priced) of this session and of today" },
  { name: "init", description: "ask the model to write an AGENTS.md for this project (what it is, how to build and test it)" },
  { name: "hooks", description: "the hooks configured in your user config, by event" },
  { name: "mcp", description: "the MCP servers a session here offers" },
  { name: "permissions", description: "the kept approval rules (scv rules rm ID removes one)" },
  { name: "help", description: "keys and commands" },
  { name: "quit", description: "close the session (stops its jobs) and exit" },
];

/** Claude Code's names for SCV's commands: they run the SCV command (the guide lists every mapping). */
export const SLASH_ALIASES: Readonly<Record<string, string>> = { clear: "new", cost: "usage", exit: "quit", config: "status" };

/**
 * The commands whose name starts with what follows the slash; nothing once an argument is being typed.
 * `extra` are the person's own command files (src/commands-files), after the built-ins.
 */
export function completions(input: string, extra: readonly SlashCommand[] = []): SlashCommand[] {
  if (!input.startsWith("/") || /\s/.test(input) || input.includes("\n")) return [];
  const prefix = input.slice(1).toLowerCase();
  return [...SLASH_COMMANDS, ...extra].filter((c) => c.name.startsWith(prefix));
}

export function parseSlash(input: string): { name: string; arg: string } | undefined {
  const m = /^\/([\w.:-]+)(?:\s+([\s\S]*))?$/.exec(input.trim());
  if (!m) return undefined;
  const name = m[1]!.toLowerCase();
  return { name: SLASH_ALIASES[name] ?? name, arg: (m[2] ?? "").trim() };
}

/** The nearest command name to a mistyped one (edit distance at most 2, or a prefix), for "did you mean". */
export function didYouMean(name: string, names: readonly string[]): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const n of names) {
    const d = n.startsWith(name) || name.startsWith(n) ? 1 : editDistance(name, n);
    if (d <= 2 && (!best || d < best.d)) best = { name: n, d };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

export const KEY_HELP = [
  "Enter send · Shift+Enter, Alt+Enter or \\ at line end: new line · Up/Down: earlier prompts",
  "Ctrl-C cancel the turn (twice within 2 s: exit) · Ctrl-D on an empty prompt: exit · Ctrl-O: the last result or long prompt in full (again: the one before)",
  "Ctrl-R search earlier prompts (this and earlier sessions) · Ctrl-L clear the screen · @ pick a file to mention",
  "Shift-Tab: accept edits on/off (edit and write inside the workspace run unasked; /mode shows it)",
  "At an approval: y approve once · a approve identical calls for this session (an MCP server's connection: for this project) · t don't ask again for this tool this session · p/u keep the offered rule for this project/every project · n deny and say why (Enter alone: no reason) · Esc deny",
];
