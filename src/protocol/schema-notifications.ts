// Client protocol v3's notifications, server to client: each method's params. Part of the one protocol schema:
// schema.ts is its entry and re-exports these, docs/protocol.md is generated from it.
import type { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { GoalBudget, Guard, Origin, PlanItems, Risk, SessionId, TurnId, Usage } from "./schema-parts";

const inTurn = { session_id: SessionId, turn_id: TurnId };
const HookBlock = lazySchema((z) => z.object({ event: z.string(), command: z.string(), decision: z.enum(["deny", "block"]), reason: z.string() }));

/** Server -> client notifications. */
export const notifications = {
  "turn.started": {
    description: "A turn began: a user prompt, or a turn the server started itself (`origin.kind` = `background`).",
    params: lazySchema((z) => z.object({ ...inTurn, origin: Origin, prompt: z.string() })),
  },
  "assistant.delta": { description: "Streamed assistant text.", params: lazySchema((z) => z.object({ ...inTurn, text: z.string() })) },
  "reasoning.delta": {
    description: "Streamed reasoning summary text (with `reasoning_summary` set); for display only, never part of the reply or the history.",
    params: lazySchema((z) => z.object({ ...inTurn, text: z.string() })),
  },
  "model.notice": {
    description:
      "A one-line note about the model connection or the tools offered, such as a request field the endpoint rejected that SCV stopped sending, or an MCP server that could not be connected or whose offer was refused.",
    params: lazySchema((z) => z.object({ ...inTurn, message: z.string() })),
  },
  "session.compacted": {
    description:
      "The history was compacted: `turns` user turns (`items` history items) were replaced by a summary. `reason`: `threshold` (the next request would pass compact_at of the context window), `overflow` (the endpoint answered context_length_exceeded), or `request` (session.compact). Token counts are estimates of the request size.",
    params: lazySchema((z) => z.object({
      session_id: SessionId,
      turn_id: TurnId.optional(),
      reason: z.enum(["threshold", "overflow", "request"]),
      turns: z.number().int(),
      items: z.number().int(),
      tokens_before: z.number().int(),
      tokens_after: z.number().int(),
    })),
  },
  "tool.started": {
    description:
      "A tool call began (before approval). `label` is the call as a person reads it, such as `$ cargo test`, `read src/x.ts (bytes 0-400)` or `agent codex: fix the build`. `arguments` is the call's validated arguments (the raw ones when they were invalid), with long strings cut and credential-looking values masked. `guard` is the command guard's verdict for a tool that runs commands (`bash`).",
    params: lazySchema((z) => z.object({
      ...inTurn,
      call_id: z.string(),
      tool: z.string(),
      label: z.string(),
      kind: z
        .enum(["read", "edit", "execute", "fetch", "search", "think", "other"])
        .optional()
        .describe("what kind of action the tool takes, for clients that show it (an editor's icon); absent for tools that do not say"),
      risk: Risk.optional(),
      arguments: z.record(z.string(), z.unknown()).optional(),
      guard: Guard.optional(),
    })),
  },
  "tool.progress": {
    description: "A short status line from a running tool, at most twice a second per call; never part of history.",
    params: lazySchema((z) => z.object({ ...inTurn, call_id: z.string(), line: z.string() })),
  },
  "approval.denied_unattended": {
    description:
      "A request nobody could be asked about (one a background job's agent relayed) was decided without asking and denied, by `tools.approval_policy` or for want of `auto_approve`; `reason` says which. The agent goes on without it; a client shows it so the person knows.",
    params: lazySchema((z) => z.object({ session_id: SessionId, job: z.string().optional(), tool: z.string(), risk: Risk, summary: z.string(), reason: z.string() })),
  },
  "job.progress": {
    description:
      "The latest status line of a running background job (`agent` with `background: true`), at most twice a second per job, so a client can show what its jobs are doing between turns; never part of history.",
    params: lazySchema((z) => z.object({ session_id: SessionId, job: z.string(), agent: z.string(), line: z.string() })),
  },
  "tool.completed": {
    description:
      "A tool call finished. `output` is what the model sees (bounded). `display` is the outcome as a person reads it after the label (`exit 0, 1.2 s`, `+12 -3 lines`, `200, 5120 bytes`); `denied` is true when approval was refused; `preview` is the result as a person reads it where `output` is written for the model (an agent call's reply text rather than its JSON), for a client to show instead. `diff` is a file change's unified diff (edit, write) for a person to read, kept in the session record and replayed with it. Tools may add fields, such as `jobs`.",
    params: lazySchema((z) => z.looseObject({
      ...inTurn,
      call_id: z.string(),
      tool: z.string(),
      ok: z.boolean(),
      output: z.string(),
      display: z.string().optional(),
      denied: z.boolean().optional(),
      preview: z.string().optional(),
      diff: z.string().optional(),
      hook: HookBlock.optional().describe("a hook that refused the call (PreToolUse) or sent the model a reason after it (PostToolUse): which, and why"),
    })),
  },
  "hook.completed": {
    description:
      "The user's hooks for one event ran (docs/hooks.md): one record per hook with its `verdict` (`ok`, `block`, `allow`, `deny`, `ask`, `error`), exit code, time and reason; `output` is the start of its stdout unless it asked to suppress it. `call_id` names the tool call of a PreToolUse or PostToolUse event. Sent only when a hook is configured for the event.",
    params: lazySchema((z) => z.object({
      session_id: SessionId,
      turn_id: TurnId.optional(),
      call_id: z.string().optional(),
      event: z.string(),
      hooks: z.array(z.object({
        command: z.string(),
        verdict: z.enum(["ok", "block", "allow", "deny", "ask", "error"]),
        exit_code: z.number().int().nullable(),
        duration_ms: z.number().int(),
        timed_out: z.boolean().optional(),
        reason: z.string().optional(),
        output: z.string().optional(),
      })),
    })),
  },
  "approval.requested": {
    description:
      "A tool call needs the client's decision; answer with approval.resolve. `summary` shows what will happen (for a `write`, a bounded diff or the new file's first lines). `fingerprint` is the same for identical calls (same tool, same arguments), so a client may approve repeats of a call it was told to allow. `guard` says why the command guard asks; `rule_prefix`, when present, is the prefix a client may offer to keep as a rule (\"always allow commands starting with `npm test`\"), answered with `remember`. Connecting to an MCP server is asked as tool `mcp.connect:<server>` (the command line or URL and the environment variable names, never values), and several servers about to connect together as one `mcp.connect` request listing each, with `choices`; `rememberable: true` says an approval sent with `remember` keeps the connection approved (`workspace`: for this workspace).",
    params: lazySchema((z) => z.object({
      ...inTurn,
      approval_id: z.string(),
      call_id: z.string(),
      tool: z.string(),
      risk: Risk,
      summary: z.string(),
      workspace: z.string(),
      fingerprint: z.string().optional(),
      guard: Guard.optional(),
      rule_prefix: z.array(z.string()).optional().describe("the command's first words, as a rule would match them"),
      rememberable: z.boolean().optional(),
      choices: z.array(z.string()).optional().describe("the MCP servers one `mcp.connect` request asks for together (its summary lists each); a client may approve some with approval.resolve `chosen`"),
      change: z
        .object({ path: z.string(), old_text: z.string().nullable(), new_text: z.string() })
        .optional()
        .describe("for a call that changes one file (`edit`, `write`): its whole text before (null for a new file) and after, for a client's own diff view; absent for files too large to send"),
    })),
  },
  "clarify.requested": {
    description:
      "The model asks the person a question (the `clarify` tool) and waits for clarify.answer; sent only to a client that declared `questions` in session.start or session.resume. `choices` (at most 4) may be offered, and the person may still answer in their own words. The question stays open until answered, the turn is cancelled, or `timeout_seconds` (tools.clarify_timeout_seconds) pass, when the model is told nobody answered.",
    params: lazySchema((z) => z.object({
      ...inTurn,
      clarify_id: z.string(),
      call_id: z.string(),
      question: z.string(),
      choices: z.array(z.string()).optional(),
      timeout_seconds: z.number().int(),
    })),
  },
  "clarify.answered": {
    description:
      "A clarify question was settled: `answer` is what the person said, absent when nobody answered; `by` says how it ended (`person`, `declined`, `timeout`, `cancelled`, or `nobody` when no client here can put questions to a person).",
    params: lazySchema((z) => z.object({
      ...inTurn,
      clarify_id: z.string(),
      call_id: z.string(),
      answer: z.string().optional(),
      by: z.enum(["person", "declined", "timeout", "cancelled", "nobody"]),
    })),
  },
  "model.retrying": {
    description:
      "The model request failed in a way worth retrying, before any output; the server waits `delay_ms` and tries again (attempt `attempt` of `max_retries`).",
    params: lazySchema((z) => z.object({
      ...inTurn,
      attempt: z.number().int(),
      max_retries: z.number().int(),
      delay_ms: z.number(),
      error: z.object({ class: z.string(), message: z.string(), status: z.number().int().optional() }),
    })),
  },
  "plan.updated": {
    description:
      "The model replaced its task list (the `plan` tool): every step with its status, `pending`, `in_progress` (at most one) or `done`. An empty list clears it. A client shows it while the work goes on; `session.resume` returns the last one.",
    params: lazySchema((z) => z.object({ session_id: SessionId, items: PlanItems })),
  },
  "goal.started": {
    description: "A goal began (turn.start `goal`): the check and the budget it runs within, defaults filled in. `repeat_limit`: the same failing output this many times in a row with no file changed stops it.",
    params: lazySchema((z) => z.object({ ...inTurn, check: z.string(), budget: GoalBudget })),
  },
  "goal.progress": {
    description: "The check ran after attempt `attempt` of `max_attempts`: `passed`, its `exit_code` (absent when it did not run or was killed) and its output's last line.",
    params: lazySchema((z) => z.object({
      ...inTurn,
      attempt: z.number().int(),
      max_attempts: z.number().int(),
      passed: z.boolean(),
      exit_code: z.number().int().optional(),
      timed_out: z.literal(true).optional().describe("the check ran past its timeout and was killed"),
      last_line: z.string(),
      tokens: z.number().int().describe("model tokens the goal's turns used so far"),
      seconds: z.number().int().describe("wall time since the goal began"),
    })),
  },
  "goal.ended": {
    description:
      "A goal stopped. `status`: `passed` (the check exited 0), `budget` (attempts, tokens or wall time spent), `repeated` (the same failure `repeat_limit` times with no file changed), `gave_up` (the model said the check cannot pass), `refused` (the check could not run: the guard refused it or nobody approved it), `failed` (a turn failed: the model or a limit), `cancelled` (turn.cancel, Ctrl-C, /stop). `reason` says why in words; `output` is the end of the last check's output.",
    params: lazySchema((z) => z.object({
      session_id: SessionId,
      turn_id: TurnId.optional().describe("the last attempt's turn"),
      status: z.enum(["passed", "budget", "repeated", "gave_up", "refused", "failed", "cancelled"]),
      reason: z.string(),
      check: z.string(),
      attempts: z.number().int(),
      exit_code: z.number().int().optional(),
      output: z.string().optional(),
    })),
  },
  "turn.ended": {
    description: "The final event of a turn.",
    params: lazySchema((z) => z.object({
      ...inTurn,
      status: z.enum(["completed", "failed", "cancelled"]),
      reply: z.string(),
      usage: Usage,
      error: z.object({ class: z.string(), message: z.string() }).optional(),
      refusal: z.literal(true).optional().describe("the model refused; `reply` holds its refusal text"),
      incomplete_reason: z.string().optional().describe("why the answer stopped early, e.g. `max_output_tokens` or `content_filter`"),
      origin: Origin,
    })),
  },
} as const;
export type NotificationMethod = keyof typeof notifications;
export type NotificationParams<M extends NotificationMethod> = z.infer<(typeof notifications)[M]["params"]>;
/**
 * A notification as a client receives it, method and params together: a consumer declared as
 * `(...[method, params]: NotificationArgs)` that switches on `method` gets that method's params.
 */
export type NotificationArgs = { [M in NotificationMethod]: [method: M, params: NotificationParams<M>] }[NotificationMethod];
