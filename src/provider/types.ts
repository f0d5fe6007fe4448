// The neutral model interface the turn loop uses; each wire API (Responses, Chat) adapts to it.
import type { REASONING_EFFORTS, REASONING_SUMMARIES } from "../config/schema";
import type { ImageRef } from "./images";

export interface ToolCallRequest {
  /** The provider's call id (Responses `call_id`, Chat `tool_calls[].id`). */
  id: string;
  name: string;
  /** The raw JSON text the model produced. */
  arguments: string;
}

/** A reasoning item (Responses API) kept so a stateless (store:false) session can replay it; opaque to SCV. */
export interface ReasoningItem {
  role: "reasoning";
  /** The provider's item id (`rs_…`), when it sent one. */
  id?: string;
  /** The `encrypted_content` from `response.output_item.done`; replayed verbatim. */
  encryptedContent: string;
  /** Summary texts the model streamed for this item (never part of the reply). */
  summary: string[];
  /**
   * Which API wrote it; absent is the Responses API. An Anthropic thinking block keeps its text as `summary[0]`
   * and its signature as `encryptedContent` (a redacted one its `data`, with `redacted`); each API reads back
   * only its own, so a session moved to the other drops them.
   */
  origin?: "anthropic";
  redacted?: true;
}

/**
 * History as plain JSON-serialisable objects. Items are immutable once pushed (the request serialiser caches
 * by identity); compaction replaces older items with one `summary` item (src/server/compaction.ts).
 */
export type HistoryItem =
  /** A prompt; `images` are files the person attached (references, read when a request is made). */
  | { role: "user"; content: string; images?: ImageRef[] }
  | { role: "assistant"; content: string; toolCalls?: ToolCallRequest[] }
  | { role: "tool"; callId: string; name: string; output: string }
  | ReasoningItem
  /** The model's summary of the turns compaction replaced; sent as a user message. */
  | { role: "summary"; content: string; turns: number }
  /** Images tools returned (read of a PNG), after the step's tool results; sent as a user message. */
  | { role: "images"; about: string; images: ImageRef[] };

export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ModelRequest {
  system: string;
  history: HistoryItem[];
  tools: ToolSpec[];
  /** Offer the endpoint's hosted {"type":"web_search"} tool (Responses wire API only). */
  hostedWebSearch?: boolean;
  /** Overrides the profile's model for this session. */
  model?: string;
  /** Reasoning controls (Responses `reasoning`, Chat `reasoning_effort`); absent fields are not sent. */
  reasoning?: ReasoningOptions;
  /**
   * The endpoint's prompt-cache routing key (`prompt_cache_key`): the same for every request of a session, so
   * its unchanged prefix is served from cache. Left out when the profile turns it off or the endpoint refused it.
   */
  cacheKey?: string;
  signal: AbortSignal;
}

export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];
export type ReasoningSummary = (typeof REASONING_SUMMARIES)[number];

export interface ReasoningOptions {
  effort?: ReasoningEffort;
  /** "none" (or absent) asks for no summary. */
  summary?: ReasoningSummary;
}

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  /** Part of output_tokens the model spent reasoning (0 when the endpoint reports none). */
  reasoning_tokens: number;
  /** Part of input_tokens written to the prompt cache (Anthropic's cache_creation_input_tokens), when reported. */
  cache_write_tokens?: number;
  /** Part of cache_write_tokens written to the 1-hour cache (priced apart). */
  cache_write_1h_tokens?: number;
}

export const zeroUsage = (): Usage => ({ input_tokens: 0, output_tokens: 0, cached_input_tokens: 0, reasoning_tokens: 0 });

export const FAILURE_CLASSES = [
  "auth",
  "forbidden",
  "model_not_found",
  "rate_limit",
  "quota",
  "context_window",
  "invalid_request",
  "server",
  "network",
  "stream",
  "cancelled",
  "config",
] as const;
export type FailureClass = (typeof FAILURE_CLASSES)[number];

export interface ModelFailure {
  class: FailureClass;
  /** Human-readable; never contains the API key. */
  message: string;
  status?: number;
}

export type ModelEvent =
  | { type: "text"; delta: string }
  | { type: "refusal"; delta: string }
  | { type: "tool_call"; call: ToolCallRequest }
  | { type: "citation"; url: string; title?: string }
  /** Reasoning summary text as it streams; for display only, never reply text. */
  | { type: "reasoning"; delta: string }
  /** A finished reasoning item, in output order relative to text and tool calls. */
  | { type: "reasoning_item"; item: ReasoningItem }
  /** A one-line note for the user about the connection (e.g. a request field the endpoint rejected). */
  | { type: "notice"; message: string }
  /** A retryable failure before any output; the client waits `delayMs` and tries again (at most `maxRetries` times). */
  | { type: "retry"; attempt: number; maxRetries: number; delayMs: number; failure: ModelFailure }
  /** Always the last event. A started stream never throws: failures arrive here. */
  | { type: "end"; status: "completed" | "incomplete" | "failed" | "cancelled"; usage?: Usage; failure?: ModelFailure; reason?: string };

export interface ModelClient {
  stream(request: ModelRequest): AsyncIterable<ModelEvent>;
  /** Starts connecting to the endpoint (DNS, TCP, TLS) ahead of the first request; never throws. */
  preconnect?(): void;
}
