// The neutral model interface the turn loop uses; each wire API (Responses, Chat) adapts to it.
export interface ToolCallRequest {
  /** The provider's call id (Responses `call_id`, Chat `tool_calls[].id`). */
  id: string;
  name: string;
  /** The raw JSON text the model produced. */
  arguments: string;
}

export type HistoryItem =
  | { role: "user"; content: string }
  | { role: "assistant"; content: string; toolCalls?: ToolCallRequest[] }
  | { role: "tool"; callId: string; name: string; output: string };

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
  signal: AbortSignal;
}

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
}

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
  /** A retryable failure before any output; the client waits `delayMs` and tries again (at most `maxRetries` times). */
  | { type: "retry"; attempt: number; maxRetries: number; delayMs: number; failure: ModelFailure }
  /** Always the last event. A started stream never throws: failures arrive here. */
  | { type: "end"; status: "completed" | "incomplete" | "failed" | "cancelled"; usage?: Usage; failure?: ModelFailure; reason?: string };

export interface ModelClient {
  stream(request: ModelRequest): AsyncIterable<ModelEvent>;
}
