// Every provider wire shape SCV sends or reads, in one place (facts: shared/reference/providers-wire.md §1-3).
// Reading is loose on purpose: unknown events and extra fields are ignored, missing details default to 0.
// Each shape is built at its first use (lazySchema): building them all costs several milliseconds of zod, which a
// nested SCV child would otherwise spend before its first model request instead of while it waits for the answer.
import type { z } from "zod";
import { lazySchema, zod } from "../lazy-schema";

// Leaves are built afresh in each shape, not shared stand-ins: z.toJSONSchema (the fast check's build-time
// schemas, wire-schemas.ts) loses track of a stand-in used inside another schema. A count is read as it came
// (no transform, which the fast check would leave to zod); whoever reads one takes a missing count as 0.
const count = () => zod().number().nullish();
const text = () => zod().string().nullish();

/** `{"error":{message,type,param,code}}`: HTTP error bodies, Chat mid-stream errors, nested Responses `error` events. */
export const ErrorBody = lazySchema((z) => z.looseObject({
  message: text(),
  type: text(),
  code: z.union([z.string(), z.number()]).nullish(),
  param: text(),
}));
export type ErrorBody = z.infer<typeof ErrorBody>;
export const ErrorEnvelope = lazySchema((z) => z.looseObject({ error: ErrorBody }));

// ---------- Responses API: request ----------

export const ResponsesInputItem = lazySchema((z) => z.union([
  z.strictObject({
    type: z.literal("message"),
    role: z.enum(["user", "assistant", "system", "developer"]),
    content: z.array(
      z.union([
        z.strictObject({ type: z.literal("input_text"), text: z.string() }),
        z.strictObject({ type: z.literal("input_image"), image_url: z.string(), detail: z.literal("auto") }),
        z.strictObject({ type: z.literal("output_text"), text: z.string(), annotations: z.array(z.unknown()) }),
      ]),
    ),
  }),
  z.strictObject({ type: z.literal("function_call"), call_id: z.string().min(1), name: z.string().min(1), arguments: z.string() }),
  z.strictObject({ type: z.literal("function_call_output"), call_id: z.string().min(1), output: z.string() }),
  // Replayed verbatim for store:false sessions (reference §1.1); the encrypted content carries the reasoning.
  z.strictObject({
    type: z.literal("reasoning"),
    id: z.string().min(1).optional(),
    summary: z.array(z.strictObject({ type: z.literal("summary_text"), text: z.string() })),
    encrypted_content: z.string().min(1),
  }),
]));
export type ResponsesInputItem = z.infer<typeof ResponsesInputItem>;

export const ResponsesTool = lazySchema((z) => z.union([
  z.strictObject({
    type: z.literal("function"),
    name: z.string().min(1),
    description: z.string(),
    parameters: z.record(z.string(), z.unknown()),
    strict: z.boolean(),
  }),
  z.strictObject({ type: z.literal("web_search") }),
]));

export const ResponsesRequest = lazySchema((z) => z.strictObject({
  model: z.string().min(1),
  instructions: z.string().optional(),
  input: z.array(ResponsesInputItem),
  tools: z.array(ResponsesTool).optional(),
  tool_choice: z.literal("auto").optional(),
  reasoning: z.strictObject({ effort: z.string().optional(), summary: z.string().optional() }).optional(),
  include: z.array(z.string()).optional(),
  prompt_cache_key: z.string().optional(),
  store: z.literal(false),
  stream: z.literal(true),
}));
export type ResponsesRequest = z.infer<typeof ResponsesRequest>;

// ---------- Responses API: stream events ----------

export const ResponsesUsage = lazySchema((z) => z.looseObject({
  input_tokens: count(),
  output_tokens: count(),
  input_tokens_details: z.looseObject({ cached_tokens: count() }).nullish(),
  output_tokens_details: z.looseObject({ reasoning_tokens: count() }).nullish(),
}));

export const UrlCitation = lazySchema((z) => z.looseObject({ type: z.literal("url_citation"), url: z.string().min(1), title: text() }));

export const FunctionCallItem = lazySchema((z) => z.looseObject({
  type: z.literal("function_call"),
  id: text(),
  call_id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.string().nullish(),
}));

const ContentPart = lazySchema((z) => z.looseObject({ type: z.string(), text: text(), refusal: text(), annotations: z.array(z.unknown()).nullish() }));
export const MessageItem = lazySchema((z) => z.looseObject({
  type: z.literal("message"),
  id: text(),
  content: z.array(ContentPart).nullish(),
}));

export const ReasoningOutputItem = lazySchema((z) => z.looseObject({
  type: z.literal("reasoning"),
  id: text(),
  encrypted_content: text(),
  summary: z.array(z.looseObject({ text: text() })).nullish(),
}));

/** Any output item; interpret it with FunctionCallItem / MessageItem when its type matches. */
const OutputItem = lazySchema((z) => z.looseObject({ type: z.string(), id: text() }));

export const ResponseObject = lazySchema((z) => z.looseObject({
  id: text(),
  status: text(),
  usage: ResponsesUsage.nullish(),
  error: z.looseObject({ code: text(), message: text() }).nullish(),
  incomplete_details: z.looseObject({ reason: text() }).nullish(),
  output: z.array(OutputItem).nullish(),
}));

const where = () => ({ item_id: text(), output_index: zod().number().nullish() });

export const ResponsesEvent = lazySchema((z) => z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("response.output_text.delta"), ...where(), delta: z.string() }),
  z.looseObject({ type: z.literal("response.refusal.delta"), ...where(), delta: z.string() }),
  z.looseObject({ type: z.literal("response.reasoning_summary_text.delta"), ...where(), summary_index: z.number().nullish(), delta: z.string() }),
  z.looseObject({ type: z.literal("response.reasoning_summary_part.added"), ...where(), summary_index: z.number().nullish() }),
  z.looseObject({ type: z.literal("response.output_item.added"), output_index: z.number().nullish(), item: OutputItem }),
  z.looseObject({ type: z.literal("response.output_item.done"), output_index: z.number().nullish(), item: OutputItem }),
  z.looseObject({ type: z.literal("response.function_call_arguments.delta"), ...where(), delta: z.string() }),
  z.looseObject({ type: z.literal("response.function_call_arguments.done"), ...where(), arguments: z.string() }),
  z.looseObject({ type: z.literal("response.output_text.annotation.added"), annotation: z.looseObject({ type: z.string() }) }),
  z.looseObject({ type: z.literal("response.completed"), response: ResponseObject }),
  z.looseObject({ type: z.literal("response.incomplete"), response: ResponseObject }),
  z.looseObject({ type: z.literal("response.failed"), response: ResponseObject }),
  // Flat per the SDK type; some servers nest the details under `error`.
  z.looseObject({ type: z.literal("error"), code: z.union([z.string(), z.number()]).nullish(), message: text(), error: ErrorBody.nullish() }),
]));
export type ResponsesEvent = z.infer<typeof ResponsesEvent>;

// ---------- Chat Completions: request ----------

export const ChatToolCall = lazySchema((z) => z.strictObject({
  id: z.string().min(1),
  type: z.literal("function"),
  function: z.strictObject({ name: z.string().min(1), arguments: z.string() }),
}));

export const ChatMessage = lazySchema((z) => z.union([
  z.strictObject({ role: z.enum(["system", "developer", "user"]), content: z.string() }),
  z.strictObject({
    role: z.literal("user"),
    content: z.array(
      z.union([
        z.strictObject({ type: z.literal("text"), text: z.string() }),
        z.strictObject({ type: z.literal("image_url"), image_url: z.strictObject({ url: z.string() }) }),
      ]),
    ),
  }),
  z.strictObject({ role: z.literal("assistant"), content: z.string().nullable(), tool_calls: z.array(ChatToolCall).min(1).optional() }),
  z.strictObject({ role: z.literal("tool"), tool_call_id: z.string().min(1), content: z.string() }),
]));
export type ChatMessage = z.infer<typeof ChatMessage>;

export const ChatRequest = lazySchema((z) => z.strictObject({
  model: z.string().min(1),
  messages: z.array(ChatMessage),
  tools: z
    .array(
      z.strictObject({
        type: z.literal("function"),
        function: z.strictObject({ name: z.string().min(1), description: z.string(), parameters: z.record(z.string(), z.unknown()) }),
      }),
    )
    .optional(),
  tool_choice: z.literal("auto").optional(),
  reasoning_effort: z.string().optional(),
  prompt_cache_key: z.string().optional(),
  stream: z.literal(true),
  stream_options: z.strictObject({ include_usage: z.literal(true) }),
}));
export type ChatRequest = z.infer<typeof ChatRequest>;

// ---------- Chat Completions: stream chunks ----------

export const ChatUsage = lazySchema((z) => z.looseObject({
  prompt_tokens: count(),
  completion_tokens: count(),
  prompt_tokens_details: z.looseObject({ cached_tokens: count() }).nullish(),
  completion_tokens_details: z.looseObject({ reasoning_tokens: count() }).nullish(),
}));

export const ChatChunk = lazySchema((z) => z.looseObject({
  choices: z
    .array(
      z.looseObject({
        index: z.number().nullish(),
        delta: z
          .looseObject({
            content: text(),
            refusal: text(),
            tool_calls: z
              .array(
                z.looseObject({
                  index: z.number().int().min(0).max(1023),
                  id: text(),
                  function: z.looseObject({ name: text(), arguments: text() }).nullish(),
                }),
              )
              .nullish(),
          })
          .nullish(),
        finish_reason: text(),
      }),
    )
    .nullish(),
  usage: ChatUsage.nullish(),
  error: ErrorBody.nullish(),
}));
export type ChatChunk = z.infer<typeof ChatChunk>;

// ---------- Chat Completions: a non-streamed answer (replayed as chunks) ----------

export const ChatCompletion = lazySchema((z) => z.looseObject({
  choices: z.array(
    z.looseObject({
      index: z.number().nullish(),
      message: z
        .looseObject({
          content: text(),
          refusal: text(),
          tool_calls: z.array(z.looseObject({ id: text(), function: z.looseObject({ name: text(), arguments: text() }).nullish() })).nullish(),
        })
        .nullish(),
      finish_reason: text(),
    }),
  ),
  usage: z.unknown().optional(),
}));
