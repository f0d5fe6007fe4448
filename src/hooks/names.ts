// Which hooks an event's subject selects. A tool event's subject is the tool: SCV's name and Claude Code's for
// the same tool both count, so a matcher copied from Claude Code's settings (`Edit|Write`, `mcp__github__.*`)
// selects the same calls here.
import type { HookEntry } from "../config/schema";

/** SCV's tool names and Claude Code's for the same tools; `edit` takes a list of edits, so it is MultiEdit too. */
const CLAUDE_NAMES: Readonly<Record<string, readonly string[]>> = {
  bash: ["Bash"],
  edit: ["Edit", "MultiEdit"],
  write: ["Write"],
  read: ["Read"],
  grep: ["Grep"],
  glob: ["Glob"],
  web_fetch: ["WebFetch"],
  web_search: ["WebSearch"],
};

/** Claude Code's names for an SCV tool: its own list, or `mcp__<server>__<tool>` for an MCP server's tool. */
export function claudeToolNames(tool: string): readonly string[] {
  const known = CLAUDE_NAMES[tool];
  if (known) return known;
  return tool.includes("__") ? [`mcp__${tool}`] : [];
}

/** Claude Code's main name for an SCV tool, for `claude_tool_name` in a hook's input. */
export function claudeToolName(tool: string): string | undefined {
  return claudeToolNames(tool)[0];
}

const SIMPLE = /^[A-Za-z0-9_|]+$/;

/**
 * Whether `matcher` selects a subject known by any of `names`. As Claude Code reads it: unset, empty or `*` is
 * every subject; letters, digits, _ and | are exact names; anything else is a regular expression searched in the
 * name. A pattern the config check let through never throws here.
 */
export function matches(matcher: string | undefined, names: readonly string[]): boolean {
  if (matcher === undefined || matcher === "" || matcher === "*") return true;
  if (SIMPLE.test(matcher)) {
    const wanted = matcher.split("|");
    return names.some((n) => wanted.includes(n));
  }
  let re: RegExp;
  try {
    re = new RegExp(matcher);
  } catch {
    return false;
  }
  return names.some((n) => re.test(n));
}

/** The hooks of `entries` whose matcher selects `subject` (the names it goes by); none given: every hook. */
export function selectHooks(entries: readonly HookEntry[] | undefined, subject?: readonly string[]): HookEntry[] {
  if (!entries?.length) return [];
  return subject ? entries.filter((e) => matches(e.matcher, subject)) : [...entries];
}
