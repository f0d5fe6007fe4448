// The Agent Client Protocol v1 messages SCV uses, as zod schemas: JSON-RPC 2.0 envelopes, the client's
// requests' results, the agent's `session/update` notifications and `session/request_permission` requests.
// Shapes follow the v1 schema (`schema/v1/schema.json`) and what the real adapters send; unknown fields and
// unknown update kinds are tolerated, since agents add vendor fields (`_meta`, `name`, `usage`) freely.
import type { z } from "zod";
import { lazySchema, zod } from "../../lazy-schema";

export const PROTOCOL_VERSION = 1;

/** Request IDs may be numbers or strings (Zed's codex-acp sends UUID strings). */
export const RequestId = lazySchema((z) => z.union([z.number(), z.string()]));

export const RpcErrorBody = lazySchema((z) => z.object({ code: z.number(), message: z.string(), data: z.unknown().optional() }));

/** Any JSON-RPC 2.0 message, told apart by which of method / id / result / error it has. */
export const RpcMessage = lazySchema((z) => z.object({
  jsonrpc: z.literal("2.0").optional(),
  id: RequestId.nullish(),
  method: z.string().optional(),
  params: z.unknown().optional(),
  result: z.unknown().optional(),
  error: RpcErrorBody.optional(),
}));
export type RpcMessage = z.infer<typeof RpcMessage>;

export const METHOD_NOT_FOUND = -32601;

// ---- Client → agent ---------------------------------------------------------------------------------------

export const InitializeResult = lazySchema((z) => z.object({
  protocolVersion: z.number(),
  agentCapabilities: z.record(z.string(), z.unknown()).optional(),
  agentInfo: z.object({ name: z.string(), version: z.string().optional() }).nullish(),
}));

const SelectValue = lazySchema((z) => z.object({ value: z.string(), name: z.string().optional() }));
/** Select options, flat or grouped (`{group, name, options: [...]}`). */
const SelectOptions = lazySchema((z) => z.array(z.union([SelectValue, z.object({ options: z.array(SelectValue) })])));

export const ConfigOption = lazySchema((z) => z.object({
  id: z.string(),
  name: z.string().optional(),
  category: z.string().nullish(),
  type: z.string().optional(),
  currentValue: z.unknown().optional(),
  options: SelectOptions.optional(),
}));
export type ConfigOption = z.infer<typeof ConfigOption>;

export const SessionModes = lazySchema((z) => z.object({
  currentModeId: z.string().optional(),
  availableModes: z.array(z.object({ id: z.string(), name: z.string().optional() })).catch([]),
}));

export const NewSessionResult = lazySchema((z) => z.object({
  sessionId: z.string().min(1),
  modes: SessionModes.nullish(),
  configOptions: z.array(ConfigOption).nullish(),
}));
export type NewSessionResult = z.infer<typeof NewSessionResult>;

/** `{configOptions}`; some agents answer `{}` or null. */
export const SetConfigOptionResult = lazySchema((z) => z.object({ configOptions: z.array(ConfigOption).nullish().catch(undefined) }).passthrough().nullish());

export const StopReason = lazySchema((z) => z.string());
export const PromptResult = lazySchema((z) => z.object({
  stopReason: StopReason,
  usage: z
    .object({ inputTokens: z.number().optional(), outputTokens: z.number().optional(), cachedReadTokens: z.number().nullish(), cachedWriteTokens: z.number().nullish() })
    .nullish()
    .catch(undefined),
}));
export type PromptResult = z.infer<typeof PromptResult>;

export const AnyResult = lazySchema((z) => z.unknown());

// ---- Agent → client ---------------------------------------------------------------------------------------

const ContentBlock = lazySchema((z) => z.object({ type: z.string(), text: z.string().optional() }).passthrough());

const ToolKind = lazySchema((z) => z.string().nullish());

const toolCallFields = (z = zod()) => ({
  toolCallId: z.string(),
  title: z.string().nullish(),
  kind: ToolKind,
  status: z.string().nullish(),
  locations: z.array(z.object({ path: z.string() }).passthrough()).nullish().catch(undefined),
});

export const SessionUpdate = lazySchema((z) => z.discriminatedUnion("sessionUpdate", [
  z.object({
    sessionUpdate: z.literal("agent_message_chunk"),
    content: ContentBlock,
    _meta: z.record(z.string(), z.unknown()).nullish(),
  }),
  z.object({ sessionUpdate: z.literal("tool_call"), ...toolCallFields() }),
  z.object({ sessionUpdate: z.literal("tool_call_update"), ...toolCallFields() }),
  z.object({
    sessionUpdate: z.literal("plan"),
    entries: z.array(z.object({ content: z.string(), status: z.string().optional() })).catch([]),
  }),
]));
export type SessionUpdate = z.infer<typeof SessionUpdate>;

export const SessionNotification = lazySchema((z) => z.object({ sessionId: z.string(), update: z.record(z.string(), z.unknown()) }));

export const PermissionOption = lazySchema((z) => z.object({ optionId: z.string(), name: z.string().optional(), kind: z.string() }));

export const RequestPermissionParams = lazySchema((z) => z.object({
  sessionId: z.string(),
  toolCall: z
    .object({
      ...toolCallFields(),
      toolCallId: z.string().optional(),
      content: z.unknown().optional(),
      rawInput: z.record(z.string(), z.unknown()).nullish().catch(undefined),
    })
    .passthrough(),
  options: z.array(PermissionOption),
}));
export type RequestPermissionParams = z.infer<typeof RequestPermissionParams>;

export type PermissionOutcome = { outcome: "selected"; optionId: string } | { outcome: "cancelled" };
