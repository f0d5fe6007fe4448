// Client protocol v3: every message SCV's server accepts or sends, in one place. docs/protocol.md is generated
// from this module (scripts/protocol-doc.ts) and the server validates every request against it.
import type { z, z as Zod } from "zod";
import { lazySchema } from "../lazy-schema";

import { REASONING_EFFORTS } from "../config/schema";
import { PLAN_STATUSES } from "../plan/plan";
import { ERROR_CODES, MAX_LINE_BYTES, PROTOCOL_VERSION } from "./constants";

export { ERROR_CODES, MAX_LINE_BYTES, PROTOCOL_VERSION };

const SessionId = lazySchema((z) => z.string().min(1).describe("from session.start"));
const TurnId = lazySchema((z) => z.string().min(1));
const Risk = lazySchema((z) => z.enum(["read_only", "filesystem", "process", "delegate", "network"]));
const Guard = lazySchema((z) =>
  z
    .object({
      decision: z.enum(["allow", "prompt", "block"]),
      reason: z.string(),
      sandbox: z.string().optional().describe("how the command runs: `sandboxed: workspace-write (Landlock ABI 7, namespaces)` or `not sandboxed: …` with why"),
      person_only: z.boolean().optional().describe("only a person's answer approves it (a request to run outside the sandbox): a client must not answer it by itself (approve-all, auto-approval)"),
    })
    .describe("the command guard's verdict: `allow` runs unasked (literal and read-only, a kept rule, or confined by the sandbox), `prompt` asks, `block` is refused whoever approves"),
);
// Optional, so a client reading an SCV older than this field (a nested child) still parses the result.
const ContextWindow = lazySchema((z) =>
  z.number().int().describe("the model's context window in tokens, as the session counts it (compaction starts at the profile's compact_at of it)"),
);
// Optional, so a client reading an SCV older than this field still parses the result.
const ProviderName = lazySchema((z) => z.string().describe("the provider profile the session uses ([providers.<name>])"));
const Notices = lazySchema((z) =>
  z.array(z.string()).describe("problems with files the session's instructions are made from (a memory file over its cap, not UTF-8 or not a regular file), each naming the file; the session goes on without the unusable part"),
);
const Usage = lazySchema((z) => z.object({
  input_tokens: z.number(),
  output_tokens: z.number(),
  cached_input_tokens: z.number(),
  // A default, so a client reading an SCV older than this field (a nested child) still parses its usage.
  reasoning_tokens: z.number().default(0).describe("the part of output_tokens spent reasoning (0 when the endpoint reports none)"),
}));

export const Origin = lazySchema((z) => z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("user") }),
  z.object({ kind: z.literal("background"), jobs: z.array(z.string()).describe("job handles reported in this turn") }),
  z.object({ kind: z.literal("goal"), attempt: z.number().int().describe("the goal's attempt this turn is (2 and on: SCV started it with the failed check's output)") }),
]));
export type Origin = z.infer<typeof Origin>;

const PlanItems = lazySchema((z) => z.array(z.object({ text: z.string(), status: z.enum(PLAN_STATUSES) })));

const budget = (z: typeof Zod, what: string) =>
  z.number().int(`${what} must be a whole number`).positive(`${what} must be at least 1 (a budget of zero would stop before the first attempt; leave it out for the default)`);
/** A goal on turn.start: the check and its budget (defaults in goal.started). */
const Goal = lazySchema((z) =>
  z
    .strictObject({
      check: z.string().refine((s) => s.trim().length > 0, "goal.check must be a shell command, not empty").describe("the shell command that passes (exit 0) when the work is done, e.g. `bun test`"),
      max_attempts: budget(z, "goal.max_attempts").optional().describe("turns at most (default 10)"),
      max_tokens: budget(z, "goal.max_tokens").optional().describe("model tokens (input and output) the goal's turns may use at most (default 2,000,000)"),
      max_seconds: budget(z, "goal.max_seconds").optional().describe("wall time at most (default 1800): the running turn is stopped when it is spent"),
      check_timeout_seconds: budget(z, "goal.check_timeout_seconds").optional().describe("how long one run of the check may take (default 600, at most tools.max_timeout_seconds); a check that hangs is killed and counts as failed"),
    })
    .describe("keep working until `check` passes, within the budget"),
);
const GoalBudget = lazySchema((z) => z.object({ max_attempts: z.number().int(), max_tokens: z.number().int(), max_seconds: z.number().int(), check_timeout_seconds: z.number().int(), repeat_limit: z.number().int() }));

/** MCP servers a client brings (an editor's, over ACP): a program to start or a streamable HTTP URL. */
/**
 * The parent's sandbox, sent by an SCV that starts a nested SCV: the child's sandbox is at most this open (the
 * stricter mode, network only if both allow it, auto_run only if both do, only writable roots both list, every
 * path either hides, only sockets both allow; required if either requires it).
 */
const SandboxCeiling = lazySchema((z) =>
  z
    .strictObject({
      mode: z.enum(["workspace-write", "read-only"]),
      network: z.boolean(),
      auto_run: z.union([z.boolean(), z.literal("always")]),
      required: z.boolean(),
      writable_roots: z.array(z.string().startsWith("/")).max(4096),
      hidden_paths: z.array(z.string().startsWith("/")).max(4096),
      allow_unix_sockets: z.array(z.string().startsWith("/")).max(4096),
    })
    .describe("a nested SCV's parent's sandbox: this session's sandbox is at most as open (see docs/security.md)"),
);

const ClientMcpServers = lazySchema((z) =>
  z
    .array(
      z.union([
        z.strictObject({ name: z.string().min(1), command: z.string().min(1), args: z.array(z.string()).optional(), env: z.record(z.string(), z.string()).optional() }),
        z.strictObject({ name: z.string().min(1), url: z.string().min(1), headers: z.record(z.string(), z.string()).optional() }),
      ]),
    )
    .max(32)
    .describe("MCP servers the client brings (an editor's), added to the configured ones for this session; each connects only after approval, like a project's server"),
);

const Questions = lazySchema((z) =>
  z.boolean().describe("the client puts the model's questions (the `clarify` tool) to a person and answers them with clarify.answer; without it a question is answered at once that nobody can answer here"),
);
/**
 * How a session asks: `ask` (each request as its risk says) or `accept-edits` (a file change inside the
 * workspace, `edit` or `write`, runs unasked unless its path looks secret-like; commands, network and MCP calls ask
 * as before).
 */
const ApprovalMode = lazySchema((z) => z.enum(["ask", "accept-edits"]).describe("`accept-edits`: file edits inside the workspace run unasked (not secret-like paths); everything else asks as in `ask`"));

const StoredTurn = lazySchema((z) => z.object({
  turn_id: TurnId,
  prompt: z.string(),
  origin: Origin,
  status: z.enum(["completed", "failed", "cancelled", "interrupted"]),
  reply: z.string(),
  usage: Usage.optional(),
  error: z.object({ class: z.string(), message: z.string() }).optional(),
  started_at: z.number().describe("Unix milliseconds"),
  ended_at: z.number().optional(),
  calls: z
    .array(
      z.object({
        tool: z.string(),
        label: z.string(),
        display: z.string().optional(),
        ok: z.boolean(),
        denied: z.boolean().optional(),
        kind: z.string().optional().describe("the tool's kind, as in tool.started"),
        path: z.string().optional().describe("the file a file tool changed, as the call named it"),
        diff: z.string().optional().describe("that change as a bounded unified diff (credential-looking values masked)"),
        output: z.string().optional().describe("for other calls, the first lines of what the call returned (masked)"),
      }),
    )
    .optional()
    .describe("the turn's tool calls as they were shown (label and outcome, as in tool.started and tool.completed), for a replay"),
}));

/** Client -> server requests: params and result. Each schema is built at its first use (lazySchema). */
export const requests = {
  initialize: {
    description:
      "First request on a connection. Fails if the protocol version is not 3. Unknown keys in its params (such as `client_info` from a newer client) are ignored; every other method refuses them.",
    params: lazySchema((z) => z.object({
      protocol_version: z.number().int(),
      client: z.object({ name: z.string(), version: z.string().optional() }).optional(),
    })),
    result: lazySchema((z) => z.object({ protocol_version: z.literal(PROTOCOL_VERSION), server: z.object({ name: z.literal("scv"), version: z.string() }) })),
  },
  "session.start": {
    description:
      "Opens a session in a workspace. `delegation_depth` is how deep this session runs in a delegation chain; `auto_approve` approves every approval request unasked; `tools: false` makes a tool-free session; `model` overrides the provider profile's model; `reasoning_effort` overrides the profile's `reasoning_effort`. The result's `context_window` is the model's context window the session counts with, so a client can show how full it is.",
    params: lazySchema((z) => z.strictObject({
      cwd: z.string().min(1).describe("the workspace root; must be an existing directory"),
      delegation_depth: z.number().int().min(0).max(64).optional(),
      auto_approve: z.boolean().optional(),
      sandbox_auto_run: z.boolean().optional().describe("false: commands the guard asks about are not run unasked inside the sandbox for this session (a schedule's unattended read-only turns); default: the user's [sandbox] auto_run"),
      sandbox_ceiling: SandboxCeiling.optional(),
      persona: z
        .strictObject({
          name: z.string().min(1).max(64),
          system_prompt: z.string().min(1).max(65536),
          tools: z.array(z.string().min(1).max(64)).max(64).optional(),
          max_steps: z.number().int().min(1).max(1000).optional(),
        })
        .optional()
        .describe("an agent file's persona (a parent SCV's `agent` tool sets it): its system prompt replaces the base one, only the tools named in `tools` are offered (none outside it, MCP servers included), and a turn stops after `max_steps` steps when that is lower than tools.max_steps"),
      tools: z.boolean().optional(),
      model: z.string().min(1).max(128).optional(),
      reasoning_effort: z.enum(REASONING_EFFORTS).optional(),
      over_budget: z.boolean().optional().describe("go over the spending limits ([limits]) in this session (`scv exec --over-budget`)"),
      approval_mode: ApprovalMode.optional(),
      mcp_servers: ClientMcpServers.optional(),
      keep: z.boolean().optional().describe("keep the stored session even if it never runs a turn (a client that hands its ID out, an editor, can resume it later); by default a session closed before its first turn leaves no file"),
      questions: Questions.optional(),
      channel: z
        .object({
          kind: z.string(),
          account: z.string().optional(),
          conversation: z.string().optional(),
          log: z.string().optional().describe("the conversation's chat log directory (an owner's direct chat): offers chat_history and chat_keep"),
          owner: z.boolean().optional().describe("the conversation is the owner's direct chat: the session carries the owner's memory and owner-only tools"),
        })
        .optional()
        .describe("set by a chat bridge: offers chat_attach in a tool-enabled session and adds the Chat channel prompt section"),
    })),
    result: lazySchema((z) => z.object({ session_id: SessionId, workspace: z.string(), tools: z.array(z.string()), model: z.string(), provider: ProviderName.optional(), context_window: ContextWindow.optional(), notices: Notices.optional() })),
  },
  "session.resume": {
    description:
      "Reopens a stored session (see `scv sessions list`) with its full history, its agent conversations and its finished background jobs; the reply carries its turns so a client can show them. The session keeps its workspace, provider profile, model and whether it has tools; `provider` switches it to another configured provider profile (and that profile's model), `model` overrides the model from now on. Turns and jobs cut off when the process that ran it died are `interrupted`. A session open in another live SCV process is refused with -32006.",
    params: lazySchema((z) => z.strictObject({
      session_id: SessionId.describe("a stored session's ID"),
      delegation_depth: z.number().int().min(0).max(64).optional(),
      auto_approve: z.boolean().optional(),
      sandbox_auto_run: z.boolean().optional().describe("false: commands the guard asks about are not run unasked inside the sandbox for this session (a schedule's unattended read-only turns); default: the user's [sandbox] auto_run"),
      sandbox_ceiling: SandboxCeiling.optional(),
      provider: z.string().min(1).max(128).optional().describe("a provider profile's name ([providers.<name>]) to continue with"),
      model: z.string().min(1).max(128).optional(),
      over_budget: z.boolean().optional().describe("go over the spending limits ([limits]) in this session"),
      approval_mode: ApprovalMode.optional(),
      mcp_servers: ClientMcpServers.optional(),
      questions: Questions.optional(),
    })),
    result: lazySchema((z) => z.object({
      session_id: SessionId,
      workspace: z.string(),
      tools: z.array(z.string()),
      model: z.string(),
      provider: ProviderName.optional(),
      context_window: ContextWindow.optional(),
      turns: z.array(StoredTurn),
      conversations: z.array(z.object({ handle: z.string(), agent: z.string() })).describe("agent conversations the model can continue by handle"),
      jobs: z.array(z.object({ job: z.string(), agent: z.string(), status: z.string(), conversation: z.string().optional() })),
      warnings: z.array(z.string()).describe("records that could not be read back, such as a torn last record"),
      notices: Notices.optional(),
      plan: PlanItems.optional().describe("the model's last task list (plan.updated), when it made one"),
      goal: z.object({ check: z.string(), attempts: z.number().int(), budget: GoalBudget }).optional().describe("a goal the session was working towards when it was closed: it goes on with the next turn (its check runs after it), until it ends as goal.ended says"),
    })),
  },
  "turn.start": {
    description:
      "Queues a user prompt. Returns at once; the turn's events follow as notifications. A prompt sent while a turn runs waits for it. `images` attaches image files (PNG, JPEG, GIF, WebP; absolute paths the server can read) for a model that takes images; the session keeps the paths, not the bytes, and a session whose model does not take images refuses them with the reason. `goal` keeps the work going until `goal.check` passes: after each turn SCV runs the check as a `bash` call (sandboxed, guarded and shown like any), and while it fails starts another turn (origin `goal`) with its exit code and the end of its output, within the budget; `goal.started`, `goal.progress` and `goal.ended` report it. Refused while another goal runs.",
    params: lazySchema((z) => z.strictObject({
      session_id: SessionId,
      prompt: z.string().min(1, "prompt must not be empty"),
      images: z.array(z.string().min(1)).max(16, "at most 16 images per prompt").optional(),
      goal: Goal.optional(),
    })),
    result: lazySchema((z) => z.object({ turn_id: TurnId, queued: z.boolean() })),
  },
  "turn.cancel": {
    description: "Cancels the running turn (stops the model stream and the running tool) and any queued user turns.",
    params: lazySchema((z) => z.strictObject({ session_id: SessionId, turn_id: TurnId.optional() })),
    result: lazySchema((z) => z.object({ cancelled: z.boolean() })),
  },
  "approval.resolve": {
    description:
      "Answers an approval.requested notification. With `approved: true`, `remember` also keeps the request's `rule_prefix` as an approval rule, for this workspace (`workspace`) or every workspace (`user`), in `$SCV_HOME/approval-rules.json` (see `scv rules list`). The answer stands even when the rule cannot be kept; `rule_error` then says why, and `rule` names a kept rule. For a request marked `rememberable` (an MCP server's connection), `remember` instead keeps the approval itself, for this workspace or every one, until the server's command line, URL or variable names change. `remember: \"session\"` approves this and every later request of the same tool (an MCP tool is a tool of its own) for the rest of the session; it is refused for a command the guard asked about (keep a prefix rule instead), and the answer then stands for this request alone. With `approved: false`, `reason` is what the person said; the model's tool result reads `denied: <reason>`.",
    params: lazySchema((z) => z.strictObject({
      session_id: SessionId,
      approval_id: z.string().min(1),
      approved: z.boolean(),
      remember: z.enum(["workspace", "user", "session"]).optional(),
      reason: z.string().max(1000).optional().describe("with `approved: false`, the person's words; the model's tool result says `denied: <reason>`"),
      chosen: z.array(z.string()).max(100).optional().describe("with `approved: true` on a request with `choices`, the ones approved (the others are denied); absent: all"),
    })),
    result: lazySchema((z) => z.object({ ok: z.literal(true), rule: z.string().optional(), rule_error: z.string().optional() })),
  },
  "clarify.answer": {
    description:
      "Answers a clarify.requested notification with the person's answer: one of the offered choices or their own words. `answer` left out says the person declined to answer; the model is told so and goes on.",
    params: lazySchema((z) => z.strictObject({
      session_id: SessionId,
      clarify_id: z.string().min(1),
      answer: z.string().min(1, "must not be empty; leave answer out to decline").max(4000, "must be at most 4000 characters").optional(),
    })),
    result: lazySchema((z) => z.object({ ok: z.literal(true) })),
  },
  "session.configure": {
    description:
      "Switches an open session's model, provider profile or reasoning effort from its next turn on (a running turn finishes on what it started with). The conversation is kept and the switch is recorded, so `session.resume` continues on it. A new `provider` brings its profile's model and effort unless `model` or `reasoning_effort` name others; a new model of the same profile keeps the effort. A switch to another endpoint is refused with -32602 when the history holds encrypted reasoning that endpoint cannot read (a Chat API profile leaves reasoning out and is allowed, with a notice). With none of the three it changes nothing and answers the settings in force. `approval_mode` switches how the session asks (`ask`, or `accept-edits`: edit and write inside the workspace run unasked, secret-like paths excepted) at once, from the next request on; it is not stored with the session.",
    params: lazySchema((z) => z.strictObject({
      session_id: SessionId,
      provider: z.string().min(1).max(64).optional().describe("a provider profile's name ([providers.NAME])"),
      model: z.string().min(1).max(128).optional(),
      reasoning_effort: z.enum(REASONING_EFFORTS).optional(),
      approval_mode: ApprovalMode.optional(),
    })),
    result: lazySchema((z) => z.object({
      approval_mode: ApprovalMode,
      provider: z.string(),
      model: z.string(),
      wire_api: z.enum(["responses", "chat", "messages"]),
      reasoning_effort: z.enum(REASONING_EFFORTS).optional(),
      context_window: ContextWindow,
      notices: Notices.optional(),
    })),
  },
  "session.compact": {
    description:
      "Compacts the session's history now: the model summarises the older turns and history becomes that summary plus the most recent turns verbatim. Waits for a running turn to end first. `compacted: false` when there was too little to summarise.",
    params: lazySchema((z) => z.strictObject({ session_id: SessionId })),
    result: lazySchema((z) => z.object({ compacted: z.boolean(), turns: z.number().int(), tokens_before: z.number().int(), tokens_after: z.number().int() })),
  },
  "session.checkpoints": {
    description:
      "The session's rewind points: its user turns (newest last) with, for each, whether the workspace's files as they were after it can be restored (`files`: false with `reason` when a checkpoint is missing or damaged, or no later turn changed files). `undo` names the turn /undo would undo and `redo` the one /redo would put back. `enabled: false` when checkpoints are off (`[checkpoints] enabled = false`, a tool-free or unstored session).",
    params: lazySchema((z) => z.strictObject({ session_id: SessionId })),
    result: lazySchema((z) => z.object({
      enabled: z.boolean(),
      turns: z.array(z.object({ turn_id: TurnId, prompt: z.string(), files: z.boolean(), reason: z.string().optional() })),
      undo: TurnId.optional(),
      redo: TurnId.optional(),
    })),
  },
  "session.rewind": {
    description:
      "Rewinds the session. Exactly one of `to_turn` (keep that turn, undo every later one; `t0` is before the first), `undo` (the files of the last turn that changed them) or `redo` (put back what the last undo undid). `files` and `conversation` say what is rewound (defaults: both for `to_turn`, files only for `undo`/`redo`; the conversation is never rewound by undo or redo). Without `apply` nothing changes: the result is the plan (`changes`: each file restored, created or deleted, with a short diff; `changed_outside` marks a file changed outside SCV since its last checkpoint). The plan's `plan_id` names it: a client that showed a plan passes it back with `apply: true`, and when the plan made then differs (a file changed since it was shown, or the rewind's target), nothing changes and the error (invalid params, `data.changed`: the files that differ) says so; show the plan again and ask. With `apply: true` the files are restored (all prepared before any is replaced, so a damaged checkpoint or a file changed since the plan changes nothing; no folder on the way is followed if it became a symbolic link, and every file is created O_EXCL|O_NOFOLLOW) except files changed outside SCV that `overwrite` does not name (`*` names all), which are kept and listed in `kept`; a conversation rewind appends a `rewound` record, so the session file stays append-only and a resume continues from the rewound history. Refused while a turn runs. Files outside the workspace are never covered.",
    params: lazySchema((z) => z.strictObject({
      session_id: SessionId,
      to_turn: z.string().min(1).optional().describe("a turn ID such as t3 (t0: before the first turn)"),
      undo: z.boolean().optional(),
      redo: z.boolean().optional(),
      files: z.boolean().optional(),
      conversation: z.boolean().optional(),
      apply: z.boolean().optional(),
      overwrite: z.array(z.string()).max(10000).optional(),
      plan_id: z.string().max(100).optional().describe("with apply: the plan_id of the plan the person confirmed; nothing is restored when the plan differs now"),
    })),
    result: lazySchema((z) => z.object({
      describes: z.string().optional().describe("what the files are restored to, in words"),
      plan_id: z.string().optional().describe("the plan's identity, to pass back with apply: true"),
      changes: z.array(z.object({ path: z.string(), action: z.enum(["restore", "create", "delete"]), diff: z.string(), changed_outside: z.boolean().optional() })),
      applied: z.boolean(),
      restored: z.array(z.string()).optional(),
      created: z.array(z.string()).optional(),
      deleted: z.array(z.string()).optional(),
      kept: z.array(z.string()).optional().describe("files changed outside SCV, left as they are"),
      conversation_rewound: z.number().int().optional().describe("how many turns left the conversation"),
    })),
  },
  "session.close": {
    description: "Closes a session: cancels its turns, background jobs and delegated processes.",
    params: lazySchema((z) => z.strictObject({ session_id: SessionId })),
    result: lazySchema((z) => z.object({ closed: z.literal(true) })),
  },
} as const;
export type RequestMethod = keyof typeof requests;
export type RequestParams<M extends RequestMethod> = z.infer<(typeof requests)[M]["params"]>;
export type RequestResult<M extends RequestMethod> = z.infer<(typeof requests)[M]["result"]>;

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

export const JsonRpcRequest = lazySchema((z) => z.object({
  jsonrpc: z.literal("2.0"),
  // Any integer: one beyond 2^53 is echoed with its exact digits (rpc.ts), so it is not refused here.
  // multipleOf(1), not a refinement: JSON Schema states it, so the fast check (fast-check/check.ts) can apply it too.
  id: z.union([z.string(), z.number().multipleOf(1, "must be an integer or a string")]).optional(),
  method: z.string().min(1),
  params: z.unknown().optional(),
}));
