// Client protocol v3: every message SCV's server accepts or sends, in one place. docs/protocol.md is generated
// from this module (scripts/protocol-doc.ts) and the server validates every request against it.
import { z } from "zod";

import { ERROR_CODES, MAX_LINE_BYTES, PROTOCOL_VERSION } from "./constants";

export { ERROR_CODES, MAX_LINE_BYTES, PROTOCOL_VERSION };

const SessionId = z.string().min(1).describe("from session.start");
const TurnId = z.string().min(1);
const Risk = z.enum(["read_only", "filesystem", "process", "delegate", "network"]);
const Usage = z.object({ input_tokens: z.number(), output_tokens: z.number(), cached_input_tokens: z.number() });

export const Origin = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("user") }),
  z.object({ kind: z.literal("background"), jobs: z.array(z.string()).describe("job handles reported in this turn") }),
]);
export type Origin = z.infer<typeof Origin>;

/** Client -> server requests: params and result. */
export const requests = {
  initialize: {
    description: "First request on a connection. Fails if the protocol version is not 3.",
    params: z.strictObject({
      protocol_version: z.number().int(),
      client: z.object({ name: z.string(), version: z.string().optional() }).optional(),
    }),
    result: z.object({ protocol_version: z.literal(PROTOCOL_VERSION), server: z.object({ name: z.literal("scv"), version: z.string() }) }),
  },
  "session.start": {
    description:
      "Opens a session in a workspace. `delegation_depth` is how deep this session runs in a delegation chain; `auto_approve` approves every approval request unasked; `tools: false` makes a tool-free session; `model` overrides the provider profile's model.",
    params: z.strictObject({
      cwd: z.string().min(1).describe("the workspace root; must be an existing directory"),
      delegation_depth: z.number().int().min(0).max(64).optional(),
      auto_approve: z.boolean().optional(),
      tools: z.boolean().optional(),
      model: z.string().min(1).max(128).optional(),
      channel: z.object({ kind: z.string(), account: z.string().optional(), conversation: z.string().optional() }).optional(),
    }),
    result: z.object({ session_id: SessionId, workspace: z.string(), tools: z.array(z.string()), model: z.string() }),
  },
  "turn.start": {
    description:
      "Queues a user prompt. Returns at once; the turn's events follow as notifications. A prompt sent while a turn runs waits for it.",
    params: z.strictObject({ session_id: SessionId, prompt: z.string().min(1, "prompt must not be empty") }),
    result: z.object({ turn_id: TurnId, queued: z.boolean() }),
  },
  "turn.cancel": {
    description: "Cancels the running turn (stops the model stream and the running tool) and any queued user turns.",
    params: z.strictObject({ session_id: SessionId, turn_id: TurnId.optional() }),
    result: z.object({ cancelled: z.boolean() }),
  },
  "approval.resolve": {
    description: "Answers an approval.requested notification.",
    params: z.strictObject({ session_id: SessionId, approval_id: z.string().min(1), approved: z.boolean() }),
    result: z.object({ ok: z.literal(true) }),
  },
  "session.close": {
    description: "Closes a session: cancels its turns, background jobs and delegated processes.",
    params: z.strictObject({ session_id: SessionId }),
    result: z.object({ closed: z.literal(true) }),
  },
} as const;
export type RequestMethod = keyof typeof requests;
export type RequestParams<M extends RequestMethod> = z.infer<(typeof requests)[M]["params"]>;
export type RequestResult<M extends RequestMethod> = z.infer<(typeof requests)[M]["result"]>;

const inTurn = { session_id: SessionId, turn_id: TurnId };

/** Server -> client notifications. */
export const notifications = {
  "turn.started": {
    description: "A turn began: a user prompt, or a turn the server started itself (`origin.kind` = `background`).",
    params: z.object({ ...inTurn, origin: Origin, prompt: z.string() }),
  },
  "assistant.delta": { description: "Streamed assistant text.", params: z.object({ ...inTurn, text: z.string() }) },
  "tool.started": {
    description: "A tool call began (before approval). `label` is what a UI shows, such as `agent codex`.",
    params: z.object({ ...inTurn, call_id: z.string(), tool: z.string(), label: z.string(), risk: Risk.optional() }),
  },
  "tool.progress": {
    description: "A short status line from a running tool, at most twice a second per call; never part of history.",
    params: z.object({ ...inTurn, call_id: z.string(), line: z.string() }),
  },
  "tool.completed": {
    description: "A tool call finished. `output` is what the model sees (bounded). Tools may add fields, such as `jobs`.",
    params: z.looseObject({ ...inTurn, call_id: z.string(), tool: z.string(), ok: z.boolean(), output: z.string() }),
  },
  "approval.requested": {
    description: "A tool call needs the client's decision; answer with approval.resolve.",
    params: z.object({
      ...inTurn,
      approval_id: z.string(),
      call_id: z.string(),
      tool: z.string(),
      risk: Risk,
      summary: z.string(),
      workspace: z.string(),
    }),
  },
  "turn.ended": {
    description: "The final event of a turn.",
    params: z.object({
      ...inTurn,
      status: z.enum(["completed", "failed", "cancelled"]),
      reply: z.string(),
      usage: Usage,
      error: z.object({ class: z.string(), message: z.string() }).optional(),
      origin: Origin,
    }),
  },
} as const;
export type NotificationMethod = keyof typeof notifications;
export type NotificationParams<M extends NotificationMethod> = z.infer<(typeof notifications)[M]["params"]>;

export const JsonRpcRequest = z.object({
  jsonrpc: z.literal("2.0"),
  // Any integer: one beyond 2^53 is echoed with its exact digits (rpc.ts), so it is not refused here.
  id: z.union([z.string(), z.number().refine(Number.isInteger, "must be an integer or a string")]).optional(),
  method: z.string().min(1),
  params: z.unknown().optional(),
});
