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
  { name: "stop", description: "stop the running turn and the goal, if one runs (as Ctrl-C)" },
  { name: "model", args: "[NAME]", description: "pick a profile or model (type to filter, Enter); with NAME (a profile or a model) switch to it; the conversation is kept" },
  { name: "mode", args: "[ask|accept-edits]", description: "how changes are approved: ask each time, or accept edits inside the workspace (Shift-Tab switches)" },
  { name: "effort", args: "[LEVEL]", description: "show the reasoning effort; with LEVEL switch it for the next turn" },
  { name: "jobs", description: "background jobs of this session" },
  { name: "agents", description: "the coding agents this session can delegate to" },
  { name: "tools", description: "the tools this session offers the model" },
  { name: "status", description: "model, context used, memory sizes, the sandbox and session ID" },
  { name: "memory", description: "what SCV remembers about you and this project (edit: scv memory edit)" },
  { name: "skills", args: "[accept|reject NAME]", description: "the skills SCV drafted, as diffs; accept or reject one" },
  { name: "usage", description: "tokens (and cost, where priced) of this session and of today" },
  { name: "help", description: "keys and commands" },
  { name: "quit", description: "close the session (stops its jobs) and exit" },
];

/** The commands whose name starts with what follows the slash; nothing once an argument is being typed. */
export function completions(input: string): SlashCommand[] {
  if (!input.startsWith("/") || /\s/.test(input) || input.includes("\n")) return [];
  const prefix = input.slice(1).toLowerCase();
  return SLASH_COMMANDS.filter((c) => c.name.startsWith(prefix));
}

export function parseSlash(input: string): { name: string; arg: string } | undefined {
  const m = /^\/(\w+)(?:\s+([\s\S]*))?$/.exec(input.trim());
  if (!m) return undefined;
  return { name: m[1]!.toLowerCase(), arg: (m[2] ?? "").trim() };
}

export const KEY_HELP = [
  "Enter send · Shift+Enter, Alt+Enter or \\ at line end: new line · Up/Down: earlier prompts",
  "Ctrl-C cancel the turn (twice within 2 s: exit) · Ctrl-D on an empty prompt: exit · Ctrl-O: the last result or long prompt in full (again: the one before)",
  "Ctrl-R search earlier prompts (this and earlier sessions) · Ctrl-L clear the screen · @ pick a file to mention",
  "Shift-Tab: accept edits on/off (edit and write inside the workspace run unasked; /mode shows it)",
  "At an approval: y approve once · a approve identical calls for this session (an MCP server's connection: for this project) · t don't ask again for this tool this session · p/u keep the offered rule for this project/every project · n deny and say why (Enter alone: no reason) · Esc deny",
];
