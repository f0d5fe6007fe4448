// What each wire API (Responses, Chat) supplies to the client: a path, a request body and a stream parser.
import type { Classified } from "./errors";
import { failureOf } from "./errors";
import type { SseEvent } from "./sse";
import type { ModelEvent, ModelRequest, Usage } from "./types";

/** Output events a wire parser yields to the caller as they arrive. */
export type OutputEvent = Extract<ModelEvent, { type: "text" | "refusal" | "tool_call" | "citation" }>;

/** How one attempt ended; always a parser's last item. */
export type WireOutcome =
  | { type: "done"; status: "completed" | "incomplete"; usage?: Usage; reason?: string }
  | { type: "fail"; classified: Classified };

export type WireItem = OutputEvent | WireOutcome;

export interface WireAdapter {
  /** Appended to base_url. */
  path: string;
  body(request: ModelRequest, model: string): unknown;
  /** Yields output events, then exactly one outcome; a stream without a terminal marker yields a `stream` failure. */
  parse(events: AsyncIterable<SseEvent>): AsyncGenerator<WireItem>;
}

export function cutShort(expected: string): WireOutcome {
  return { type: "fail", classified: failureOf("stream", `the stream closed before ${expected}`) };
}

export function parseJson(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return undefined;
  }
}
