// One hook's result read as Claude Code's contract says: exit 0 is success (stdout is context for the events
// that take it, or a JSON object deciding more), exit 2 is a blocking decision with stderr as the reason, any
// other exit is an error shown to the person and otherwise ignored. A hook that hangs, prints too much or prints
// a broken JSON object is an error too: the event goes on as if it were absent.
import type { HookEvent } from "../config/schema";
import type { RunResult } from "../process/index";

/** How one hook ended, as the records and the client see it. */
export type HookVerdict = "ok" | "block" | "allow" | "deny" | "ask" | "error";

export interface HookRun {
  /** The hook's command as configured, secrets masked (shown to say which hook). */
  command: string;
  exit_code: number | null;
  timed_out: boolean;
  duration_ms: number;
  verdict: HookVerdict;
  /** Why it blocked, decided or failed. */
  reason?: string;
  /** Text it adds to the model's context (stdout or additionalContext). */
  context?: string;
  /** `continue: false`: the turn stops, with this reason for the person. */
  stop?: string;
  /** `systemMessage`: a line for the person. */
  message?: string;
  /** `suppressOutput`: its stdout is not recorded. */
  suppressed?: boolean;
  /** The start of its stdout, for the record (unless suppressed). */
  output?: string;
}

/** Events whose plain stdout (exit 0, not JSON) is added to the model's context, as in Claude Code. */
const STDOUT_IS_CONTEXT: ReadonlySet<HookEvent> = new Set(["SessionStart", "UserPromptSubmit"]);

const OUTPUT_RECORD_CHARS = 400;

/** Reads one finished hook. `clean` scrubs secrets and bounds text before anyone sees it. */
export function readOutcome(event: HookEvent, command: string, r: RunResult, timeoutSeconds: number, clean: (text: string) => string): HookRun {
  const base = { command, exit_code: r.exitCode, timed_out: r.timedOut, duration_ms: r.durationMs };
  const stdout = clean(r.stdout.text);
  const stderr = clean(r.stderr.text).trim();
  const error = (reason: string): HookRun => ({ ...base, verdict: "error", reason });
  if (r.timedOut) return error(`timed out after ${timeoutSeconds} s and was killed (timeout_seconds)`);
  if (r.cancelled) return error("cancelled with its turn");
  if (r.stdout.truncated || r.stderr.truncated) return error(`printed more than a hook may (${r.stdout.totalBytes + r.stderr.totalBytes} bytes); its output was ignored`);
  if (r.exitCode === 2) {
    return { ...base, verdict: "block", reason: stderr || `exited with status 2 (blocking) and gave no reason on stderr` };
  }
  if (r.exitCode !== 0) {
    const why = r.exitCode === null ? `was killed by ${r.signal ?? "a signal"}` : `exited with status ${r.exitCode}`;
    return error(`${why}${stderr ? `: ${firstLine(stderr)}` : ""}`);
  }
  const text = stdout.trim();
  const output = text ? { output: text.slice(0, OUTPUT_RECORD_CHARS) } : {};
  if (!text.startsWith("{")) {
    return { ...base, verdict: "ok", ...output, ...(text && STDOUT_IS_CONTEXT.has(event) ? { context: text } : {}) };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return error(`printed a JSON object that does not parse (${(e as Error).message}); its output was ignored`);
  }
  if (!json || typeof json !== "object" || Array.isArray(json)) return error("printed JSON that is not an object; its output was ignored");
  return { ...base, ...readJson(event, json as Record<string, unknown>), ...(json as { suppressOutput?: unknown }).suppressOutput === true ? { suppressed: true } : output };
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v.trim() ? v.trim() : undefined);

/** The fields of Claude Code's JSON output this event takes. */
function readJson(event: HookEvent, j: Record<string, unknown>): Omit<HookRun, "command" | "exit_code" | "timed_out" | "duration_ms"> {
  const out: ReturnType<typeof readJson> = { verdict: "ok" };
  const specific = j.hookSpecificOutput && typeof j.hookSpecificOutput === "object" ? (j.hookSpecificOutput as Record<string, unknown>) : {};
  const context = str(specific.additionalContext);
  if (context) out.context = context;
  const message = str(j.systemMessage);
  if (message) out.message = message;
  if (j.continue === false) out.stop = str(j.stopReason) ?? "a hook asked to stop (continue: false)";
  const permission = specific.permissionDecision;
  if (event === "PreToolUse" && (permission === "allow" || permission === "deny" || permission === "ask")) {
    out.verdict = permission;
    const reason = str(specific.permissionDecisionReason) ?? str(j.reason);
    if (reason) out.reason = reason;
    return out;
  }
  // The older PreToolUse form (`decision: "approve"`), and `decision: "block"` for every event that takes it.
  if (event === "PreToolUse" && j.decision === "approve") {
    out.verdict = "allow";
    const reason = str(j.reason);
    if (reason) out.reason = reason;
  } else if (j.decision === "block") {
    out.verdict = event === "PreToolUse" ? "deny" : "block";
    out.reason = str(j.reason) ?? "a hook blocked it and gave no reason";
  }
  return out;
}

function firstLine(text: string): string {
  const line = text.split("\n", 1)[0]!;
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
