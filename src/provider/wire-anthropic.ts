// The Anthropic Messages API wire shapes SCV sends and reads (docs/anthropic-wire.md): the request, the streamed
// events, a non-streamed message and the error body. Reading is loose like wire.ts: unknown events and fields are
// ignored (the parser counts unknown event types), missing counts default to 0. Built lazily (lazySchema).
import type { z } from "zod";
import { lazySchema, zod } from "../lazy-schema";

const count = () => zod().number().nullish();
const text = () => zod().string().nullish();

// ---------- request ----------

const cacheControl = () => zod().strictObject({ type: zod().literal("ephemeral"), ttl: zod().enum(["5m", "1h"]).optional() }).optional();
const textBlock = () => zod().strictObject({ type: zod().literal("text"), text: zod().string().min(1), cache_control: cacheControl() });
const imageBlock = () =>
  zod().strictObject({
    type: zod().literal("image"),
    source: zod().strictObject({ type: zod().literal("base64"), media_type: zod().enum(["image/png", "image/jpeg", "image/gif", "image/webp"]), data: zod().string().min(1) }),
    cache_control: cacheControl(),
  });

export const AnthropicContentBlock = lazySchema((z) => z.union([
  textBlock(),
  imageBlock(),
  z.strictObject({ type: z.literal("tool_use"), id: z.string().regex(/^[A-Za-z0-9_-]+$/), name: z.string().min(1), input: z.record(z.string(), z.unknown()), cache_control: cacheControl() }),
  z.strictObject({
    type: z.literal("tool_result"),
    tool_use_id: z.string().regex(/^[A-Za-z0-9_-]+$/),
    content: z.union([z.string(), z.array(z.union([textBlock(), imageBlock()]))]).optional(),
    cache_control: cacheControl(),
  }),
  // Sent back exactly as the model wrote them, within the tool-use turn they belong to.
  z.strictObject({ type: z.literal("thinking"), thinking: z.string(), signature: z.string().min(1) }),
  z.strictObject({ type: z.literal("redacted_thinking"), data: z.string().min(1) }),
]));
export type AnthropicContentBlock = z.infer<typeof AnthropicContentBlock>;

export const AnthropicMessage = lazySchema((z) => z.strictObject({ role: z.enum(["user", "assistant"]), content: z.array(AnthropicContentBlock).min(1) }));
export type AnthropicMessage = z.infer<typeof AnthropicMessage>;

export const AnthropicRequest = lazySchema((z) => z.strictObject({
  model: z.string().min(1),
  max_tokens: z.number().int().positive(),
  system: z.array(textBlock()).optional(),
  messages: z.array(AnthropicMessage),
  tools: z.array(z.strictObject({ name: z.string().regex(/^[A-Za-z0-9_-]{1,128}$/), description: z.string(), input_schema: z.record(z.string(), z.unknown()), cache_control: cacheControl() })).optional(),
  tool_choice: z.strictObject({ type: z.literal("auto") }).optional(),
  thinking: z.union([z.strictObject({ type: z.literal("enabled"), budget_tokens: z.number().int().min(1024) }), z.strictObject({ type: z.literal("adaptive") })]).optional(),
  stream: z.literal(true),
}));
export type AnthropicRequest = z.infer<typeof AnthropicRequest>;

// ---------- stream ----------

/** Counts in message_start's message and in message_delta; message_delta's are cumulative (the latest wins). */
export const AnthropicUsage = lazySchema((z) => z.looseObject({
  input_tokens: count(),
  output_tokens: count(),
  cache_creation_input_tokens: count(),
  cache_read_input_tokens: count(),
  cache_creation: z.looseObject({ ephemeral_5m_input_tokens: count(), ephemeral_1h_input_tokens: count() }).nullish(),
}));

/** `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`: HTTP error bodies and the `error` event. */
export const AnthropicErrorBody = lazySchema((z) => z.looseObject({ type: text(), message: text() }));

/** A content block as content_block_start opens it (or a finished one in a non-streamed message). */
export const AnthropicBlock = lazySchema((z) => z.looseObject({
  type: z.string(),
  text: text(),
  id: text(),
  name: text(),
  input: z.unknown().optional(),
  thinking: text(),
  signature: text(),
  data: text(),
}));

export const AnthropicEvent = lazySchema((z) => z.discriminatedUnion("type", [
  z.looseObject({
    type: z.literal("message_start"),
    message: z.looseObject({ id: text(), model: text(), usage: AnthropicUsage.nullish() }),
  }),
  z.looseObject({ type: z.literal("content_block_start"), index: z.number().int().min(0), content_block: AnthropicBlock }),
  z.looseObject({
    type: z.literal("content_block_delta"),
    index: z.number().int().min(0),
    delta: z.looseObject({ type: z.string(), text: text(), partial_json: text(), thinking: text(), signature: text() }),
  }),
  z.looseObject({ type: z.literal("content_block_stop"), index: z.number().int().min(0) }),
  z.looseObject({ type: z.literal("message_delta"), delta: z.looseObject({ stop_reason: text() }).nullish(), usage: AnthropicUsage.nullish() }),
  z.looseObject({ type: z.literal("message_stop") }),
  z.looseObject({ type: z.literal("ping") }),
  z.looseObject({ type: z.literal("error"), error: AnthropicErrorBody.nullish() }),
]));
export type AnthropicEvent = z.infer<typeof AnthropicEvent>;

/** A non-streamed answer (an endpoint that ignored `stream: true`), replayed as the events a stream of it has. */
export const AnthropicMessageObject = lazySchema((z) => z.looseObject({
  type: z.literal("message"),
  content: z.array(AnthropicBlock),
  stop_reason: text(),
  usage: AnthropicUsage.nullish(),
}));

/** GET /v1/models: `{"data":[{"id":…,"type":"model",…}],"has_more":…}`. */
export const AnthropicModelList = lazySchema((z) => z.looseObject({ data: z.array(z.looseObject({ id: z.string() })) }));
