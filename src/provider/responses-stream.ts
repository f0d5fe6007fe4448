// Reading a Responses stream (reference §1): typed SSE events become wire items, one handler per event family
// (streamed text and reasoning, a function call assembled from its deltas, finished items, the terminal event).
// Nothing here throws on what the server sends: an unknown or malformed event is skipped, an error becomes `fail`.
import type { z } from "zod";
import { cutShort, parseJson, type WireItem } from "./adapter";
import { classifyErrorBody, failureOf } from "./errors";
import type { SseEvent } from "./sse";
import type { Usage } from "./types";
import type { ResponsesEvent, ResponsesUsage } from "./wire";
import { readErrorBody, readOutputItem, readResponsesEvent, readUrlCitation } from "./wire-check";

type Event = z.infer<typeof ResponsesEvent>;
type EventOf<T extends Event["type"]> = Extract<Event, { type: T }>;
type Items = Generator<WireItem, void>;

function usageOf(u: z.infer<typeof ResponsesUsage> | null | undefined): Usage | undefined {
  if (!u) return undefined;
  return {
    input_tokens: u.input_tokens ?? 0,
    output_tokens: u.output_tokens ?? 0,
    cached_input_tokens: u.input_tokens_details?.cached_tokens ?? 0,
    reasoning_tokens: u.output_tokens_details?.reasoning_tokens ?? 0,
  };
}

interface PendingCall {
  itemId?: string;
  outputIndex?: number;
  callId: string;
  name: string;
  args: string;
}

export async function* parseResponses(events: AsyncIterable<SseEvent>): AsyncGenerator<WireItem> {
  const stream = new ResponsesStream();
  for await (const sse of events) {
    if (sse.data === "[DONE]") {
      yield cutShort("response.completed");
      return;
    }
    const json = parseJson(sse.data);
    if (json === undefined) continue;
    const parsed = readResponsesEvent(json);
    if (!parsed.success) {
      // Unknown events are ignored; a bare error object (no type) is still an error.
      if (json && typeof json === "object" && !("type" in json) && "error" in json) {
        const err = readErrorBody((json as { error: unknown }).error);
        yield { type: "fail", classified: classifyErrorBody(err.success ? err.data : { message: "the provider sent an error without details" }) };
        return;
      }
      continue;
    }
    if (yield* stream.event(parsed.data)) return;
  }
  yield cutShort("response.completed");
}

/** One stream's state: the calls being assembled and what was already emitted, so nothing is emitted twice. */
class ResponsesStream {
  private readonly calls: PendingCall[] = [];
  private readonly emittedCalls = new Set<string>();
  private readonly citedUrls = new Set<string>();
  private textStreamed = false; // a terse server may send text only in the finished items
  private refusalStreamed = false;
  private readonly finishedItems = new Set<string>();

  /** The items one event gives; true when it ended the stream. */
  *event(ev: Event): Generator<WireItem, boolean> {
    switch (ev.type) {
      case "response.output_text.delta":
      case "response.refusal.delta":
      case "response.reasoning_summary_part.added":
      case "response.reasoning_summary_text.delta":
        yield* this.delta(ev);
        return false;
      case "response.output_item.added":
      case "response.function_call_arguments.delta":
      case "response.function_call_arguments.done":
        this.assembleCall(ev);
        return false;
      case "response.output_text.annotation.added":
        yield* this.citation(ev.annotation);
        return false;
      case "response.output_item.done":
        yield* this.finishItem(ev.item);
        return false;
      case "response.completed":
      case "response.incomplete":
      case "response.failed":
      case "error":
        yield* this.end(ev);
        return true;
    }
    return false;
  }

  /** Streamed text, refusal and reasoning summary. */
  private *delta(ev: EventOf<"response.output_text.delta" | "response.refusal.delta" | "response.reasoning_summary_part.added" | "response.reasoning_summary_text.delta">): Items {
    switch (ev.type) {
      case "response.output_text.delta":
        this.textStreamed = true;
        if (ev.delta) yield { type: "text", delta: ev.delta };
        break;
      case "response.refusal.delta":
        this.refusalStreamed = true;
        if (ev.delta) yield { type: "refusal", delta: ev.delta };
        break;
      case "response.reasoning_summary_part.added":
        if ((ev.summary_index ?? 0) > 0) yield { type: "reasoning", delta: "\n\n" };
        break;
      case "response.reasoning_summary_text.delta":
        if (ev.delta) yield { type: "reasoning", delta: ev.delta };
        break;
    }
  }

  /** A function call announced, then its arguments streamed; it is emitted when its item finishes. */
  private assembleCall(ev: EventOf<"response.output_item.added" | "response.function_call_arguments.delta" | "response.function_call_arguments.done">): void {
    if (ev.type === "response.output_item.added") {
      const read = readOutputItem(ev.item);
      if (read?.type === "function_call" && !this.findCall(read.item.id, ev.output_index)) {
        this.calls.push({
          itemId: read.item.id ?? undefined,
          outputIndex: ev.output_index ?? undefined,
          callId: read.item.call_id,
          name: read.item.name,
          args: read.item.arguments ?? "",
        });
      }
      return;
    }
    const c = this.findCall(ev.item_id, ev.output_index);
    if (!c) return;
    if (ev.type === "response.function_call_arguments.delta") c.args += ev.delta;
    else c.args = ev.arguments;
  }

  /** The terminal event: items the server did not finish one by one, then done or fail. */
  private *end(ev: EventOf<"response.completed" | "response.incomplete" | "response.failed" | "error">): Items {
    if (ev.type === "error") {
      yield { type: "fail", classified: classifyErrorBody(ev.error ?? { code: ev.code, message: ev.message }) };
      return;
    }
    if (ev.type === "response.failed") {
      const err = ev.response.error;
      yield { type: "fail", classified: err ? classifyErrorBody(err) : failureOf("server", "response.failed without error details") };
      return;
    }
    for (const item of ev.response.output ?? []) {
      const unfinished = (item.type === "message" || item.type === "reasoning") && item.id && !this.finishedItems.has(item.id);
      if (item.type === "function_call" || unfinished) yield* this.finishItem(item);
    }
    const usage = usageOf(ev.response.usage);
    if (ev.type === "response.completed") yield { type: "done", status: "completed", ...(usage ? { usage } : {}) };
    else {
      const reason = ev.response.incomplete_details?.reason ?? "incomplete";
      yield { type: "done", status: "incomplete", reason, ...(usage ? { usage } : {}) };
    }
  }

  private findCall(itemId?: string | null, outputIndex?: number | null): PendingCall | undefined {
    return this.calls.find((c) => itemId != null && c.itemId === itemId) ?? this.calls.find((c) => outputIndex != null && c.outputIndex === outputIndex);
  }

  private *citation(raw: unknown): Items {
    const c = readUrlCitation(raw);
    if (!c.success || this.citedUrls.has(c.data.url)) return;
    this.citedUrls.add(c.data.url);
    yield { type: "citation", url: c.data.url, ...(c.data.title ? { title: c.data.title } : {}) };
  }

  // A finished item: emit a function call or reasoning item once; for a message, anything a terse server did not stream.
  private *finishItem(raw: unknown): Items {
    const read = readOutputItem(raw);
    if (read?.type === "reasoning") {
      const rs = read.item;
      const id = rs.id ?? undefined;
      if (id && this.finishedItems.has(id)) return;
      if (id) this.finishedItems.add(id);
      // Without encrypted content (the endpoint ignored `include`) there is nothing to replay.
      if (!rs.encrypted_content) return;
      const summary = (rs.summary ?? []).flatMap((p) => (p.text ? [p.text] : []));
      yield { type: "reasoning_item", item: { role: "reasoning", ...(id ? { id } : {}), encryptedContent: rs.encrypted_content, summary } };
      return;
    }
    if (read?.type === "function_call") {
      const fc = read.item;
      if (this.emittedCalls.has(fc.call_id)) return;
      this.emittedCalls.add(fc.call_id);
      const pending = this.findCall(fc.id, undefined) ?? this.calls.find((c) => c.callId === fc.call_id);
      const args = fc.arguments || pending?.args || "";
      yield { type: "tool_call", call: { id: fc.call_id, name: fc.name, arguments: args } };
      return;
    }
    if (read?.type !== "message") return;
    const id = read.item.id ?? undefined;
    if (id) this.finishedItems.add(id);
    for (const part of read.item.content ?? []) {
      if (part.type === "output_text" && part.text && !this.textStreamed) {
        yield { type: "text", delta: part.text };
      }
      // A refusal may arrive only here, never as refusal.delta events.
      if (part.type === "refusal" && part.refusal && !this.refusalStreamed) yield { type: "refusal", delta: part.refusal };
      for (const a of part.annotations ?? []) yield* this.citation(a);
    }
  }
}
