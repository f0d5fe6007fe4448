// The OpenAI Responses wire API (reference §1): stateless (store:false, the full input every request),
// streamed as typed SSE events that end with response.completed | incomplete | failed.
import { cutShort, parseJson, type WireAdapter, type WireItem } from "./adapter";
import { classifyErrorBody, failureOf } from "./errors";
import type { SseEvent } from "./sse";
import type { ModelRequest, Usage } from "./types";
import {
  ErrorBody,
  FunctionCallItem,
  MessageItem,
  ResponsesEvent,
  UrlCitation,
  type ResponsesInputItem,
  type ResponsesRequest,
} from "./wire";

export function responsesBody(request: ModelRequest, model: string): ResponsesRequest {
  const input: ResponsesInputItem[] = [];
  for (const item of request.history) {
    if (item.role === "user") {
      input.push({ type: "message", role: "user", content: [{ type: "input_text", text: item.content }] });
    } else if (item.role === "assistant") {
      if (item.content !== "") {
        input.push({ type: "message", role: "assistant", content: [{ type: "output_text", text: item.content, annotations: [] }] });
      }
      for (const call of item.toolCalls ?? []) {
        input.push({ type: "function_call", call_id: call.id, name: call.name, arguments: call.arguments });
      }
    } else {
      input.push({ type: "function_call_output", call_id: item.callId, output: item.output });
    }
  }
  const tools: NonNullable<ResponsesRequest["tools"]> = request.tools.map((t) => ({
    type: "function",
    name: t.name,
    description: t.description,
    parameters: t.parameters,
    strict: false,
  }));
  if (request.hostedWebSearch) tools.push({ type: "web_search" });
  return {
    model,
    ...(request.system ? { instructions: request.system } : {}),
    input,
    ...(tools.length ? { tools, tool_choice: "auto" as const } : {}),
    store: false,
    stream: true,
  };
}

function usageOf(u: { input_tokens: number; output_tokens: number; input_tokens_details?: { cached_tokens: number } | null } | null | undefined): Usage | undefined {
  if (!u) return undefined;
  return { input_tokens: u.input_tokens, output_tokens: u.output_tokens, cached_input_tokens: u.input_tokens_details?.cached_tokens ?? 0 };
}

interface PendingCall {
  itemId?: string;
  outputIndex?: number;
  callId: string;
  name: string;
  args: string;
}

async function* parseResponses(events: AsyncIterable<SseEvent>): AsyncGenerator<WireItem> {
  const calls: PendingCall[] = [];
  const emittedCalls = new Set<string>();
  const citedUrls = new Set<string>();
  let textStreamed = false; // a terse server may send text only in the finished items
  const finishedItems = new Set<string>();

  const findCall = (itemId?: string | null, outputIndex?: number | null) =>
    calls.find((c) => itemId != null && c.itemId === itemId) ?? calls.find((c) => outputIndex != null && c.outputIndex === outputIndex);

  function* citation(raw: unknown): Generator<WireItem> {
    const c = UrlCitation.safeParse(raw);
    if (!c.success || citedUrls.has(c.data.url)) return;
    citedUrls.add(c.data.url);
    yield { type: "citation", url: c.data.url, ...(c.data.title ? { title: c.data.title } : {}) };
  }

  // A finished item: emit a function call once; for a message, anything a terse server did not stream.
  function* finishItem(raw: unknown): Generator<WireItem> {
    const fc = FunctionCallItem.safeParse(raw);
    if (fc.success) {
      if (emittedCalls.has(fc.data.call_id)) return;
      emittedCalls.add(fc.data.call_id);
      const pending = findCall(fc.data.id, undefined) ?? calls.find((c) => c.callId === fc.data.call_id);
      const args = fc.data.arguments || pending?.args || "";
      yield { type: "tool_call", call: { id: fc.data.call_id, name: fc.data.name, arguments: args } };
      return;
    }
    const msg = MessageItem.safeParse(raw);
    if (!msg.success) return;
    const id = msg.data.id ?? undefined;
    if (id) finishedItems.add(id);
    for (const part of msg.data.content ?? []) {
      if (part.type === "output_text" && part.text && !textStreamed) {
        yield { type: "text", delta: part.text };
      }
      for (const a of part.annotations ?? []) yield* citation(a);
    }
  }

  for await (const sse of events) {
    if (sse.data === "[DONE]") {
      yield cutShort("response.completed");
      return;
    }
    const json = parseJson(sse.data);
    if (json === undefined) continue;
    const parsed = ResponsesEvent.safeParse(json);
    if (!parsed.success) {
      // Unknown events are ignored; a bare error object (no type) is still an error.
      if (json && typeof json === "object" && !("type" in json) && "error" in json) {
        const err = ErrorBody.safeParse((json as { error: unknown }).error);
        yield { type: "fail", classified: classifyErrorBody(err.success ? err.data : { message: "the provider sent an error without details" }) };
        return;
      }
      continue;
    }
    const ev = parsed.data;
    switch (ev.type) {
      case "response.output_text.delta":
        textStreamed = true;
        if (ev.delta) yield { type: "text", delta: ev.delta };
        break;
      case "response.refusal.delta":
        if (ev.delta) yield { type: "refusal", delta: ev.delta };
        break;
      case "response.output_item.added": {
        const fc = FunctionCallItem.safeParse(ev.item);
        if (fc.success && !findCall(fc.data.id, ev.output_index)) {
          calls.push({
            itemId: fc.data.id ?? undefined,
            outputIndex: ev.output_index ?? undefined,
            callId: fc.data.call_id,
            name: fc.data.name,
            args: fc.data.arguments ?? "",
          });
        }
        break;
      }
      case "response.function_call_arguments.delta": {
        const c = findCall(ev.item_id, ev.output_index);
        if (c) c.args += ev.delta;
        break;
      }
      case "response.function_call_arguments.done": {
        const c = findCall(ev.item_id, ev.output_index);
        if (c) c.args = ev.arguments;
        break;
      }
      case "response.output_text.annotation.added":
        yield* citation(ev.annotation);
        break;
      case "response.output_item.done":
        yield* finishItem(ev.item);
        break;
      case "response.completed":
      case "response.incomplete": {
        for (const item of ev.response.output ?? []) {
          if (item.type === "function_call" || (item.type === "message" && item.id && !finishedItems.has(item.id))) yield* finishItem(item);
        }
        const usage = usageOf(ev.response.usage);
        if (ev.type === "response.completed") yield { type: "done", status: "completed", ...(usage ? { usage } : {}) };
        else {
          const reason = ev.response.incomplete_details?.reason ?? "incomplete";
          yield { type: "done", status: "incomplete", reason, ...(usage ? { usage } : {}) };
        }
        return;
      }
      case "response.failed": {
        const err = ev.response.error;
        yield { type: "fail", classified: err ? classifyErrorBody(err) : failureOf("server", "response.failed without error details") };
        return;
      }
      case "error":
        yield { type: "fail", classified: classifyErrorBody(ev.error ?? { code: ev.code, message: ev.message }) };
        return;
    }
  }
  yield cutShort("response.completed");
}

export const responsesAdapter: WireAdapter = {
  path: "/responses",
  body: responsesBody,
  parse: parseResponses,
};
