// What each wire API (Responses, Chat) supplies to the client: a path, a request body and a stream parser.
import type { Classified } from "./errors";
import { failureOf } from "./errors";
import type { SseEvent } from "./sse";
import type { ModelEvent, ModelRequest, Usage } from "./types";

/** Output events a wire parser yields to the caller as they arrive. */
export type OutputEvent = Extract<ModelEvent, { type: "text" | "refusal" | "tool_call" | "citation" | "reasoning" | "reasoning_item" | "notice" }>;

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
  /** How the key and API version travel (default: `authorization: Bearer <key>`). */
  authHeaders?(apiKey: string | undefined): Record<string, string>;
  /** The API's name in messages ("the responses API"); default the profile's wire_api. */
  apiName?: string;
}

/**
 * A JSON array of the items' renderings, cached so a step costs little more than what was appended since the
 * last one: each item's JSON text is cached by identity (items never change once made), and the last array's
 * text is kept per history (keyed by its first item), so an array that only extends it appends to that text.
 * One text per history is kept, so memory stays linear in the history.
 */
export function itemsJsonWriter<T extends object>(render: (item: T) => unknown[], cacheable: (item: T) => boolean = () => true): (items: readonly T[]) => string {
  const itemJson = new WeakMap<T, string>();
  const last = new WeakMap<T, { items: readonly T[]; text: string }>();
  const one = (item: T): string => {
    let json = itemJson.get(item);
    if (json === undefined) {
      json = render(item).map((x) => JSON.stringify(x)).join(",");
      // An item with images is rendered afresh each time: its JSON holds megabytes of data URL.
      if (cacheable(item)) itemJson.set(item, json);
    }
    return json;
  };
  const join = (items: readonly T[]) => items.map(one).filter((j) => j !== "").join(",");
  return (items) => {
    if (items.length === 0) return "[]";
    const prev = last.get(items[0]!);
    let text: string;
    if (prev && prev.items.length <= items.length && prev.items.every((item, i) => item === items[i])) {
      const more = join(items.slice(prev.items.length));
      text = prev.text && more ? `${prev.text},${more}` : prev.text || more;
    } else text = join(items);
    last.set(items[0]!, { items: items.slice(), text });
    return `[${text}]`;
  };
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
