// What each wire API (Responses, Chat) supplies to the client: a path, a request body and a stream parser.
import type { Classified } from "./errors";
import { failureOf } from "./errors";
import type { SseEvent } from "./sse";
import type { ModelEvent, ModelRequest, Usage } from "./types";

/** Output events a wire parser yields to the caller as they arrive. */
export type OutputEvent = Extract<ModelEvent, { type: "text" | "refusal" | "tool_call" | "citation" | "reasoning" | "reasoning_item" }>;

/** How one attempt ended; always a parser's last item. */
export type WireOutcome =
  | { type: "done"; status: "completed" | "incomplete"; usage?: Usage; reason?: string }
  | { type: "fail"; classified: Classified };

export type WireItem = OutputEvent | WireOutcome;

export interface WireAdapter {
  /** Appended to base_url. */
  path: string;
  /**
   * Top-level request fields some compatible servers reject (HTTP 400 naming them); the client stops sending
   * a field named in such an answer for the rest of the session.
   */
  optionalFields: readonly string[];
  /** The request body as JSON text, without the `dropped` optional fields. */
  body(request: ModelRequest, model: string, dropped: ReadonlySet<string>): string;
  /** Yields output events, then exactly one outcome; a stream without a terminal marker yields a `stream` failure. */
  parse(events: AsyncIterable<SseEvent>): AsyncGenerator<WireItem>;
  /**
   * An endpoint that ignored `stream: true` and sent one JSON answer: the same answer as the events `parse`
   * reads, or undefined when the JSON is not an answer of this API.
   */
  replayJson(json: unknown): SseEvent[] | undefined;
}

/** Replays a JSON array of input items with each item's JSON text cached by identity: items never change once made. */
export function cachedItemsJson<T extends object>(items: readonly T[], cache: WeakMap<T, string>, render: (item: T) => unknown[]): string {
  const parts: string[] = [];
  for (const item of items) {
    let json = cache.get(item);
    if (json === undefined) {
      json = render(item).map((x) => JSON.stringify(x)).join(",");
      cache.set(item, json);
    }
    if (json) parts.push(json);
  }
  return `[${parts.join(",")}]`;
}

/** `{...fields, [key]: <rawJson>}` as text, with `rawJson` spliced in unparsed. */
export function withRawField(fields: Record<string, unknown>, key: string, rawJson: string): string {
  const head = JSON.stringify(fields);
  return `${head.slice(0, -1)}${head.length > 2 ? "," : ""}${JSON.stringify(key)}:${rawJson}}`;
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
