// Claude Code's hooks (the `hooks` block of ~/.claude/settings.json) as SCV's `[[hooks.<Event>]]` tables: each
// command hook becomes one table with its matcher and timeout. What SCV cannot run (a prompt or HTTP hook, an
// event SCV has no moment for) is listed as skipped, with why; a hook the user config already has is not added twice.
import { DEFAULT_HOOK_TIMEOUT_SECONDS, HOOK_EVENTS, type HookEvent, type HooksConfig, matcherProblem } from "../config/schema";

export interface ImportedHook {
  event: HookEvent;
  matcher?: string;
  command: string;
  timeout_seconds: number;
}

export interface ClaudeImport {
  add: ImportedHook[];
  /** Already in SCV's config, left out. */
  present: ImportedHook[];
  /** What could not be taken, each with the reason. */
  skipped: string[];
}

const MAX_TIMEOUT_SECONDS = 3600;

/** Reads the settings' `hooks` block against the hooks SCV already has. `text` is the settings file's text. */
export function importClaudeHooks(text: string, file: string, existing: HooksConfig): ClaudeImport {
  let settings: unknown;
  try {
    settings = JSON.parse(text);
  } catch (e) {
    throw new Error(`${file} is not valid JSON (${(e as Error).message}); fix it or import by hand (docs/hooks.md)`);
  }
  const hooks = (settings as { hooks?: unknown })?.hooks;
  const out: ClaudeImport = { add: [], present: [], skipped: [] };
  if (hooks === undefined) return out;
  if (!hooks || typeof hooks !== "object" || Array.isArray(hooks)) throw new Error(`${file}: "hooks" is not an object of events; nothing was imported`);
  for (const [event, groups] of Object.entries(hooks)) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      out.skipped.push(`${event}: SCV has no such event (it has ${HOOK_EVENTS.join(", ")})`);
      continue;
    }
    if (!Array.isArray(groups)) {
      out.skipped.push(`${event}: not a list of matcher groups`);
      continue;
    }
    for (const group of groups as unknown[]) {
      const g = (group ?? {}) as { matcher?: unknown; hooks?: unknown };
      const matcher = typeof g.matcher === "string" && g.matcher !== "" ? g.matcher : undefined;
      const problem = matcher !== undefined ? matcherProblem(matcher) : undefined;
      if (problem) {
        out.skipped.push(`${event} matcher ${JSON.stringify(matcher)}: ${problem}`);
        continue;
      }
      for (const h of Array.isArray(g.hooks) ? (g.hooks as unknown[]) : []) {
        const hook = (h ?? {}) as { type?: unknown; command?: unknown; timeout?: unknown };
        if (hook.type !== "command" || typeof hook.command !== "string" || !hook.command.trim()) {
          out.skipped.push(`${event}${matcher ? ` (${matcher})` : ""}: a ${typeof hook.type === "string" ? `"${hook.type}"` : "typeless"} hook; SCV runs command hooks only`);
          continue;
        }
        const timeout = typeof hook.timeout === "number" && hook.timeout > 0 ? Math.min(MAX_TIMEOUT_SECONDS, Math.ceil(hook.timeout)) : DEFAULT_HOOK_TIMEOUT_SECONDS;
        const entry: ImportedHook = { event: event as HookEvent, ...(matcher ? { matcher } : {}), command: hook.command, timeout_seconds: timeout };
        const known = (existing[entry.event] ?? []).some((e) => e.command === entry.command && (e.matcher || undefined) === entry.matcher);
        const again = out.add.some((e) => e.event === entry.event && e.command === entry.command && e.matcher === entry.matcher);
        if (known) out.present.push(entry);
        else if (!again) out.add.push(entry);
      }
    }
  }
  return out;
}

/** The tables to append to config.toml for `hooks`. */
export function hooksToml(hooks: readonly ImportedHook[], source: string): string {
  const blocks = hooks.map((h) => {
    const lines = [`[[hooks.${h.event}]]`];
    if (h.matcher !== undefined) lines.push(`matcher = ${tomlString(h.matcher)}`);
    lines.push(`command = ${tomlString(h.command)}`);
    if (h.timeout_seconds !== DEFAULT_HOOK_TIMEOUT_SECONDS) lines.push(`timeout_seconds = ${h.timeout_seconds}`);
    return lines.join("\n");
  });
  return `\n# Imported from ${source} by \`scv hooks import claude\` on ${new Date().toISOString().slice(0, 10)}\n${blocks.join("\n\n")}\n`;
}

/** A TOML basic string: JSON's escapes are TOML's (\\ \" \n \t \uXXXX), and JSON escapes every control character. */
export function tomlString(s: string): string {
  return JSON.stringify(s).replace(/\u007f/g, "\\u007F");
}
