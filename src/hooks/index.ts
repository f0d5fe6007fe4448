// Hooks: the user's own programs run at the moments of a session, with Claude Code's contract (docs/hooks.md).
// One contract: run the hooks of event E with input I and get the combined decision back. Each hook is a
// `/bin/sh -c` command through the process runner (tracked, its own group, killed at its timeout), with the
// allowlisted environment `bash` gets plus the hook variables; the hooks of one event run in parallel. What they
// print is bounded and scrubbed before anyone sees it. What a decision may do is the caller's: a hook's `allow`
// reaches the approval gate as a request, never past a guard `block` (src/approval/gate.ts).
import type { Config, HookEvent } from "../config/schema";
import { type RunningProcess, type RunOptions, startProcess } from "../process/index";
import { scrubSecrets } from "../text/scrub";
import { selectHooks } from "./names";
import { type HookRun, readOutcome } from "./outcome";

export { claudeToolName, claudeToolNames, matches } from "./names";
export type { HookRun, HookVerdict } from "./outcome";

/** Bytes of stdout and of stderr a hook may print; more is an error and its output is ignored. */
export const HOOK_OUTPUT_BYTES = 64 * 1024;

export interface HookContext {
  /** `[[hooks.<Event>]]` from the user's config. */
  hooks: Config["hooks"];
  /** The workspace: the hooks' working directory, `cwd` in their input and CLAUDE_PROJECT_DIR. */
  cwd: string;
  sessionId?: string;
  /** The session's record file, for Claude Code's `transcript_path`. */
  transcriptPath?: string;
  /** The environment `bash` gets (the allowlist); the hook variables are added to it. */
  env: Readonly<Record<string, string>>;
  /** Secrets to scrub from everything a hook prints. */
  secrets: readonly string[];
  /** Tells the person about a failing hook: called once per hook and event for the context's life. */
  report?(message: string): void;
  /** Test seam: the process runner's start (default: the shared runner's). */
  start?(opts: RunOptions): RunningProcess;
}

/** The hooks' combined answer to one event. */
export interface HookDecision {
  /** Every hook that ran, in configuration order. */
  runs: HookRun[];
  /** A hook blocked (exit 2, `decision: "block"`, or a PreToolUse `deny`): which, and why. */
  block?: { command: string; reason: string };
  /** A PreToolUse `allow` or `ask` no hook outweighed (deny > ask > allow). */
  permission?: { decision: "allow" | "ask"; command: string; reason?: string };
  /** Context for the model, from every hook that gave some. */
  context: string;
  /** A hook said `continue: false`: the turn stops, with this reason for the person. */
  stop?: { command: string; reason: string };
  /** `systemMessage` lines for the person. */
  messages: string[];
}

export interface Hooks {
  /** Whether any hook is configured for `event` (callers skip building an input otherwise). */
  has(event: HookEvent): boolean;
  /**
   * Runs the hooks of `event` whose matcher selects `subject` (a tool's names; none: every hook of the event),
   * each with `input` plus the common fields on stdin. Never throws; a hook that fails counts as absent.
   */
  run(event: HookEvent, input: Record<string, unknown>, opts?: { subject?: readonly string[]; signal?: AbortSignal }): Promise<HookDecision>;
}

const NOTHING: HookDecision = Object.freeze({ runs: [], context: "", messages: [] }) as HookDecision;

export function createHooks(ctx: HookContext): Hooks {
  const reported = new Set<string>();
  const clean = (text: string) => scrubSecrets(text, ctx.secrets);
  const start = ctx.start ?? startProcess;

  async function runOne(event: HookEvent, command: string, timeoutSeconds: number, stdin: string, signal?: AbortSignal): Promise<HookRun> {
    const env = {
      ...ctx.env,
      SCV_HOOK_EVENT: event,
      SCV_PROJECT_DIR: ctx.cwd,
      CLAUDE_PROJECT_DIR: ctx.cwd,
      ...(ctx.sessionId ? { SCV_SESSION_ID: ctx.sessionId } : {}),
    };
    let proc: RunningProcess;
    const shown = clean(command); // a command may carry a secret of its own: never shown as written
    try {
      // The input is written as soon as the hook exists (a hook that exits without reading it closes the pipe:
      // that is its choice, not a failure).
      proc = start({ argv: ["/bin/sh", "-c", command], cwd: ctx.cwd, env, stdin: "pipe", input: stdin, timeoutMs: timeoutSeconds * 1000, captureBytes: HOOK_OUTPUT_BYTES, ...(signal ? { signal } : {}) });
    } catch (e) {
      return { command: shown, exit_code: null, timed_out: false, duration_ms: 0, verdict: "error", reason: `could not start: ${clean((e as Error).message)}` };
    }
    return readOutcome(event, shown, await proc.result, timeoutSeconds, clean);
  }

  return {
    has: (event) => !!ctx.hooks?.[event]?.length,
    async run(event, input, opts = {}) {
      const chosen = selectHooks(ctx.hooks?.[event], opts.subject);
      if (!chosen.length) return NOTHING;
      const stdin = JSON.stringify({
        session_id: ctx.sessionId ?? "",
        ...(ctx.transcriptPath ? { transcript_path: ctx.transcriptPath } : {}),
        cwd: ctx.cwd,
        hook_event_name: event,
        ...input,
      });
      const runs = await Promise.all(chosen.map((h) => runOne(event, h.command, h.timeout_seconds, stdin, opts.signal)));
      for (const r of runs) {
        if (r.verdict !== "error" || !ctx.report) continue;
        const key = `${event}\0${r.command}`;
        if (reported.has(key)) continue;
        reported.add(key);
        ctx.report(`${event} hook \`${oneLine(r.command)}\` ${r.reason}; going on as if it were absent (said once per session)`);
      }
      return combine(runs);
    },
  };
}

/** The hooks' answers as one: any block wins, then deny > ask > allow; contexts and messages are kept in order. */
function combine(runs: HookRun[]): HookDecision {
  const out: HookDecision = { runs, context: "", messages: [] };
  const blocks = runs.filter((r) => r.verdict === "block" || r.verdict === "deny");
  if (blocks.length) out.block = { command: blocks.map((r) => r.command).join(", "), reason: blocks.map((r) => r.reason ?? "blocked").join("; ") };
  const ask = runs.find((r) => r.verdict === "ask");
  const allow = runs.find((r) => r.verdict === "allow");
  const permission = ask ?? allow;
  if (!blocks.length && permission) out.permission = { decision: permission.verdict as "allow" | "ask", command: permission.command, ...(permission.reason ? { reason: permission.reason } : {}) };
  out.context = runs.map((r) => r.context).filter(Boolean).join("\n\n");
  const stop = runs.find((r) => r.stop);
  if (stop) out.stop = { command: stop.command, reason: stop.stop! };
  out.messages = runs.map((r) => r.message).filter((m): m is string => !!m);
  return out;
}

/** A hook's command on one bounded line, to say which hook. */
export function oneLine(command: string): string {
  const flat = command.replace(/\s+/g, " ").trim();
  return flat.length > 80 ? `${flat.slice(0, 79)}…` : flat;
}

/** The hook records a client gets (`hook.completed`): what each hook did, its output unless it suppressed it. */
export function hookRecords(runs: readonly HookRun[]): Record<string, unknown>[] {
  return runs.map((r) => ({
    command: oneLine(r.command),
    verdict: r.verdict,
    exit_code: r.exit_code,
    duration_ms: r.duration_ms,
    ...(r.timed_out ? { timed_out: true } : {}),
    ...(r.reason ? { reason: r.reason } : {}),
    ...(r.output && !r.suppressed ? { output: r.output } : {}),
  }));
}
