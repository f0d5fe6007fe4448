// Client protocol v3's requests, client to server: each method's params and result. Part of the one protocol
// schema: schema.ts is its entry and re-exports these, docs/protocol.md is generated from it.
import type { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { REASONING_EFFORTS } from "../config/schema";
import { PROTOCOL_VERSION } from "./constants";
import { ApprovalMode, ClientMcpServers, ContextWindow, Goal, GoalBudget, Notices, PlanItems, ProviderName, Questions, SandboxCeiling, SessionId, StoredTurn, TurnId } from "./schema-parts";

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
