// The Agent Client Protocol v1 messages SCV uses, as zod schemas, for both of its sides: as a client (the
// delegation engine, src/agents/acp: the client's requests' results, the agent's `session/update` notifications
// and `session/request_permission` requests) and as an agent (`scv acp`, src/acp-agent: the editor's requests'
// params and its answers to SCV's requests). Shapes follow the v1 schema (`schema/v1/schema.json`) and what the
// real peers send; unknown fields and unknown update kinds are tolerated, since peers add vendor fields freely.
import type { z } from "zod";
import { lazySchema, zod } from "../lazy-schema";

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

// ---- SCV as the agent (`scv acp`): what an editor sends ------------------------------------------------------

/** `_meta`, which any message may carry (built in each schema: a stand-in of an optional breaks toJSONSchema). */
const meta = (z = zod()) => z.record(z.string(), z.unknown()).nullish();

export const AgentInitializeParams = lazySchema((z) => z.object({
  protocolVersion: z.number().int().min(0),
  clientCapabilities: z
    .object({
      fs: z.object({ readTextFile: z.boolean().optional(), writeTextFile: z.boolean().optional() }).passthrough().nullish(),
      terminal: z.boolean().nullish(),
    })
    .passthrough()
    .nullish(),
  clientInfo: z.object({ name: z.string(), version: z.string().optional() }).passthrough().nullish(),
}));
export type AgentInitializeParams = z.infer<typeof AgentInitializeParams>;

/** An absolute path; `scv acp` checks that it is one (a check JSON Schema can state, so the fast check applies). */
const AbsolutePath = lazySchema((z) => z.string().min(1).describe("an absolute path"));

/** The editor's MCP servers (stdio, http, sse); kept as given until SCV can use them. */
const McpServer = lazySchema((z) => z.object({ name: z.string() }).passthrough());

export const NewSessionParams = lazySchema((z) => z.object({
  cwd: AbsolutePath,
  mcpServers: z.array(McpServer).optional(),
  _meta: meta(z),
}));

export const LoadSessionParams = lazySchema((z) => z.object({
  sessionId: z.string().min(1),
  cwd: AbsolutePath,
  mcpServers: z.array(McpServer).optional(),
  _meta: meta(z),
}));

export const ListSessionsParams = lazySchema((z) => z.object({ cwd: AbsolutePath.nullish(), cursor: z.string().nullish(), _meta: meta(z) }));

export const SessionIdParams = lazySchema((z) => z.object({ sessionId: z.string().min(1), _meta: meta(z) }));

const TextResource = lazySchema((z) => z.object({ uri: z.string(), text: z.string(), mimeType: z.string().nullish() }).passthrough());
const BlobResource = lazySchema((z) => z.object({ uri: z.string(), blob: z.string(), mimeType: z.string().nullish() }).passthrough());

/** A prompt's content: text, links to resources, resources inlined by the editor, images and audio. */
export const PromptBlock = lazySchema((z) => z.union([
  z.object({ type: z.literal("text"), text: z.string() }).passthrough(),
  z.object({ type: z.literal("resource_link"), uri: z.string(), name: z.string(), title: z.string().nullish(), description: z.string().nullish() }).passthrough(),
  z.object({ type: z.literal("resource"), resource: z.union([TextResource, BlobResource]) }).passthrough(),
  z.object({ type: z.literal("image"), data: z.string(), mimeType: z.string(), uri: z.string().nullish() }).passthrough(),
  z.object({ type: z.literal("audio"), data: z.string(), mimeType: z.string() }).passthrough(),
]));
export type PromptBlock = z.infer<typeof PromptBlock>;

export const PromptParams = lazySchema((z) => z.object({ sessionId: z.string().min(1), prompt: z.array(PromptBlock), _meta: meta(z) }));

export const SetModeParams = lazySchema((z) => z.object({ sessionId: z.string().min(1), modeId: z.string().min(1), _meta: meta(z) }));

export const SetConfigOptionParams = lazySchema((z) => z.object({
  sessionId: z.string().min(1),
  configId: z.string().min(1),
  value: z.union([z.string(), z.boolean()]),
  _meta: meta(z),
}));

/** `session/set_model` (unstable in v1, still sent by editors that show a model picker from `models`). */
export const SetModelParams = lazySchema((z) => z.object({ sessionId: z.string().min(1), modelId: z.string().min(1), _meta: meta(z) }));

/** The editor's answer to `session/request_permission`. */
export const RequestPermissionResult = lazySchema((z) => z.object({
  outcome: z.discriminatedUnion("outcome", [
    z.object({ outcome: z.literal("selected"), optionId: z.string() }),
    z.object({ outcome: z.literal("cancelled") }),
  ]),
}));

export const ReadTextFileResult = lazySchema((z) => z.object({ content: z.string() }));
