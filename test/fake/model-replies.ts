// Scripted replies for the fake model endpoint. Replies are plain JSON data, so a test can queue them in
// process and the standalone server can read them from a script file. Error bodies are verbatim from
// shared/reference/providers-wire.md §3.
import { z } from "zod";

export const FakeUsage = z.strictObject({
  input_tokens: z.number().int().min(0).optional(),
  output_tokens: z.number().int().min(0).optional(),
  cached_tokens: z.number().int().min(0).optional(),
  reasoning_tokens: z.number().int().min(0).optional(),
});
export type FakeUsage = z.infer<typeof FakeUsage>;

const FakeCall = z.strictObject({
  name: z.string().min(1),
  /** An object is sent as its JSON text; a string is sent as is (even if it is not valid JSON). */
  arguments: z.union([z.string(), z.record(z.string(), z.unknown())]),
  id: z.string().min(1).optional(),
  /** Characters per argument delta (default 5); a large value sends big arguments in few events. */
  chunk: z.number().int().positive().optional(),
});

/** A reasoning item first (Responses); a string is its summary, streamed when the request asks for one. */
const FakeReasoning = z.union([z.boolean(), z.string()]);

export const FakeReply = z.discriminatedUnion("kind", [
  /** `reasoning` puts a reasoning item first (Responses); `done` adds an optional trailing `data: [DONE]` (Responses). */
  z.strictObject({ kind: z.literal("text"), text: z.string(), usage: FakeUsage.optional(), reasoning: FakeReasoning.optional(), done: z.boolean().optional() }),
  /** One call or several parallel ones, optionally after some text. */
  z.strictObject({ kind: z.literal("tool_calls"), calls: z.array(FakeCall).min(1), text: z.string().optional(), usage: FakeUsage.optional(), reasoning: FakeReasoning.optional() }),
  /** `only_done`: the refusal arrives only in the finished item, with no refusal.delta events (Responses). */
  z.strictObject({ kind: z.literal("refusal"), refusal: z.string(), usage: FakeUsage.optional(), only_done: z.boolean().optional() }),
  /** The endpoint ignores `stream: true` and answers with one JSON body (a response / chat.completion object). */
  z.strictObject({ kind: z.literal("json"), text: z.string().optional(), calls: z.array(FakeCall).optional(), refusal: z.string().optional(), usage: FakeUsage.optional() }),
  /** Headers and the opening events, then nothing until the client goes away (an idle stream). */
  z.strictObject({ kind: z.literal("stall") }),
  /** A hosted web_search_call, then text with url_citation annotations (Chat gets the text only). */
  z.strictObject({
    kind: z.literal("citations"),
    text: z.string(),
    citations: z.array(z.strictObject({ url: z.string().min(1), title: z.string().optional() })).min(1),
    query: z.string().optional(),
    usage: FakeUsage.optional(),
  }),
  z.strictObject({
    kind: z.literal("http_error"),
    status: z.number().int().min(400).max(599),
    body: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
    headers: z.record(z.string(), z.string()).optional(),
  }),
  /** The stream stops (connection closed cleanly) without a terminal event, after `text` if given. */
  z.strictObject({ kind: z.literal("cut"), text: z.string().optional() }),
  /** Never answers (or, with `text`, stalls after it) until the client goes away. */
  z.strictObject({ kind: z.literal("hang"), text: z.string().optional() }),
  /** response.failed (Responses); a mid-stream error chunk on Chat, which has no such event. */
  z.strictObject({ kind: z.literal("failed"), code: z.string(), message: z.string() }),
  z.strictObject({ kind: z.literal("incomplete"), text: z.string(), reason: z.enum(["max_output_tokens", "content_filter"]).optional() }),
  /** The flat `error` event (Responses) / `data: {"error":...}` (Chat), after `text` if given. */
  /** SSE frames sent verbatim (`event: x\ndata: {...}\n\n`), for event orders and types no other reply makes. */
  z.strictObject({ kind: z.literal("raw"), frames: z.array(z.string()) }),
  z.strictObject({
    kind: z.literal("mid_stream_error"),
    text: z.string().optional(),
    code: z.string().optional(),
    type: z.string().optional(),
    message: z.string().optional(),
  }),
]);
export type FakeReply = z.infer<typeof FakeReply>;
export type FakeCallSpec = z.infer<typeof FakeCall>;

/** A standalone script: an array of replies, or `{ "replies": [...] }`. */
export const FakeScript = z.union([z.array(FakeReply), z.strictObject({ replies: z.array(FakeReply) })]);

export const text = (t: string, opts: { usage?: FakeUsage; reasoning?: boolean | string; done?: boolean } = {}): FakeReply => ({ kind: "text", text: t, ...opts });
export const toolCalls = (calls: FakeCallSpec[], opts: { text?: string; usage?: FakeUsage; reasoning?: boolean | string } = {}): FakeReply => ({
  kind: "tool_calls",
  calls,
  ...opts,
});
export const refusal = (r: string, opts: { usage?: FakeUsage; only_done?: boolean } = {}): FakeReply => ({ kind: "refusal", refusal: r, ...opts });
export const jsonAnswer = (opts: { text?: string; calls?: FakeCallSpec[]; refusal?: string; usage?: FakeUsage }): FakeReply => ({ kind: "json", ...opts });
export const stall = (): FakeReply => ({ kind: "stall" });
export const citations = (t: string, cites: { url: string; title?: string }[], opts: { query?: string; usage?: FakeUsage } = {}): FakeReply => ({
  kind: "citations",
  text: t,
  citations: cites,
  ...opts,
});
export const cut = (afterText?: string): FakeReply => ({ kind: "cut", ...(afterText ? { text: afterText } : {}) });
export const hang = (afterText?: string): FakeReply => ({ kind: "hang", ...(afterText ? { text: afterText } : {}) });
export const failedEvent = (code: string, message: string): FakeReply => ({ kind: "failed", code, message });
export const incomplete = (t: string, reason: "max_output_tokens" | "content_filter" = "max_output_tokens"): FakeReply => ({ kind: "incomplete", text: t, reason });
export const midStreamError = (opts: { text?: string; code?: string; type?: string; message?: string } = {}): FakeReply => ({
  kind: "mid_stream_error",
  ...opts,
});

/** Verbatim error bodies per failure class (reference §3). */
export const ERROR_BODIES = {
  auth: {
    status: 401,
    body: { error: { message: "Incorrect API key provided: sk-inval***c66a. You can find your API key at https://platform.openai.com/account/api-keys.", type: "invalid_request_error", param: null, code: "invalid_api_key" } },
  },
  forbidden: {
    status: 403,
    body: { error: { code: "unsupported_country_region_territory", message: "Country, region, or territory not supported", param: null, type: "request_forbidden" } },
  },
  model_not_found: {
    status: 404,
    body: { error: { message: "The model `gpt-5-foo` does not exist or you do not have access to it.", type: "invalid_request_error", param: null, code: "model_not_found" } },
  },
  rate_limit: {
    status: 429,
    body: {
      error: {
        message:
          "Rate limit reached for gpt-4o in organization org-xxx on tokens per min (TPM): Limit 30000, Used 29000, Requested 2000. Please try again in 2s. Visit https://platform.openai.com/account/rate-limits to learn more.",
        type: "tokens",
        param: null,
        code: "rate_limit_exceeded",
      },
    },
  },
  quota: {
    status: 429,
    body: {
      error: {
        message: "You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
        type: "insufficient_quota",
        param: null,
        code: "insufficient_quota",
      },
    },
  },
  credits: { status: 429, body: { error: { message: "You have no credits remaining.", type: "insufficient_quota", code: "credit_balance_exhausted" } } },
  context_window: {
    status: 400,
    body: { error: { message: "Your input exceeds the context window of this model. Please adjust your input and try again.", type: "invalid_request_error", param: "input", code: "context_length_exceeded" } },
  },
  // Not in the reference table: a plausible generic 400 in the same envelope.
  invalid_request: {
    status: 400,
    body: { error: { message: "Invalid value for 'tool_choice': expected one of none, auto, required.", type: "invalid_request_error", param: "tool_choice", code: "invalid_value" } },
  },
  server: {
    status: 500,
    body: { error: { message: "The server had an error while processing your request. Sorry about that!", type: "server_error", param: null, code: null } },
  },
  overloaded: {
    status: 503,
    body: { error: { message: "The engine is currently overloaded, please try again later.", type: "service_unavailable_error", code: "server_is_overloaded" } },
  },
} as const;
export type ErrorName = keyof typeof ERROR_BODIES;

const BY_STATUS: Record<number, ErrorName> = { 400: "invalid_request", 401: "auth", 403: "forbidden", 404: "model_not_found", 429: "rate_limit", 500: "server", 503: "overloaded" };

/** An HTTP error answer. `body` may name an ERROR_BODIES entry; by default the status picks one. */
export function httpError(status: number, body?: ErrorName | string | Record<string, unknown>, headers?: Record<string, string>): FakeReply {
  let b: string | Record<string, unknown> | undefined = body as string | Record<string, unknown> | undefined;
  if (typeof body === "string" && body in ERROR_BODIES) b = structuredClone(ERROR_BODIES[body as ErrorName].body) as Record<string, unknown>;
  if (b === undefined) b = structuredClone(ERROR_BODIES[BY_STATUS[status] ?? (status >= 500 ? "server" : "invalid_request")].body) as Record<string, unknown>;
  return { kind: "http_error", status, body: b, ...(headers ? { headers } : {}) };
}

/** The error of a named class with its usual status, e.g. `errorReply("quota")`. */
export function errorReply(name: ErrorName, headers?: Record<string, string>): FakeReply {
  return httpError(ERROR_BODIES[name].status, name, headers);
}
