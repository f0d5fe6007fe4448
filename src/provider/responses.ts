// The OpenAI Responses wire API (reference §1): stateless (store:false, the full input every request),
// streamed as typed SSE events that end with response.completed | incomplete | failed.
import type { z } from "zod";
import { itemsJsonWriter, cutShort, parseJson, withRawField, type WireAdapter, type WireItem } from "./adapter";
import { classifyErrorBody, failureOf } from "./errors";
import type { SseEvent } from "./sse";
import { imagesIntro, summaryMessage } from "./summary";
import { carriesImages, type ImageRef, preparedImage } from "./images";
import type { HistoryItem, ModelRequest, Usage } from "./types";
import type { ResponsesInputItem, ResponsesRequest, ResponsesUsage } from "./wire";
import { readErrorBody, readOutputItem, readResponseObject, readResponsesEvent, readUrlCitation } from "./wire-check";

/** The input items one history item becomes; pure, so the client caches the JSON per item. */
function inputItems(item: HistoryItem): ResponsesInputItem[] {
  switch (item.role) {
    case "user":
      return [{ type: "message", role: "user", content: [{ type: "input_text", text: item.content }, ...imageParts(item.images)] }];
    case "images":
      return [{ type: "message", role: "user", content: [{ type: "input_text", text: imagesIntro(item.about) }, ...imageParts(item.images)] }];
    case "summary":
      return [{ type: "message", role: "user", content: [{ type: "input_text", text: summaryMessage(item.content) }] }];
    case "assistant": {
      const out: ResponsesInputItem[] = [];
      if (item.content !== "") out.push({ type: "message", role: "assistant", content: [{ type: "output_text", text: item.content, annotations: [] }] });
      for (const call of item.toolCalls ?? []) out.push({ type: "function_call", call_id: call.id, name: call.name, arguments: call.arguments });
      return out;
    }
    case "reasoning":
      // Anthropic thinking (a session moved here from an Anthropic profile) has no form in this API.
      if (item.origin === "anthropic") return [];
      return [
        {
          type: "reasoning",
          ...(item.id ? { id: item.id } : {}),
          summary: item.summary.map((text) => ({ type: "summary_text" as const, text })),
          encrypted_content: item.encryptedContent,
        },
      ];
    case "tool":
      return [{ type: "function_call_output", call_id: item.callId, output: item.output }];
  }
}

type ContentPart = Extract<ResponsesInputItem, { type: "message" }>["content"][number];

/** Each image as an input_image part, or as a text part saying why it is missing. */
function imageParts(images: ImageRef[] | undefined): ContentPart[] {
  return (images ?? []).map((ref) => {
    const ready = preparedImage(ref);
    return "url" in ready ? { type: "input_image", image_url: ready.url, detail: "auto" } : { type: "input_text", text: `[${ready.missing}]` };
  });
}

const itemJson = itemsJsonWriter(inputItems, (item) => !carriesImages(item));

/** The request as an object (for tests and schema checks); the client sends `responsesBodyText`. */
export function responsesBody(request: ModelRequest, model: string, dropped: ReadonlySet<string> = new Set()): ResponsesRequest {
  return JSON.parse(responsesBodyText(request, model, dropped));
}

function responsesBodyText(request: ModelRequest, model: string, dropped: ReadonlySet<string>): string {
  const tools: NonNullable<ResponsesRequest["tools"]> = request.tools.map((t) => ({
    type: "function",
    name: t.name,
    description: t.description,
    parameters: t.parameters,
    strict: false,
  }));
  if (request.hostedWebSearch) tools.push({ type: "web_search" });
  const { effort, summary } = request.reasoning ?? {};
  const reasoning = {
    ...(effort ? { effort } : {}),
    ...(summary && summary !== "none" ? { summary } : {}),
  };
  const fields: Omit<ResponsesRequest, "input"> = {
    model,
    ...(request.system ? { instructions: request.system } : {}),
    ...(tools.length ? { tools, tool_choice: "auto" as const } : {}),
    ...(Object.keys(reasoning).length && !dropped.has("reasoning") ? { reasoning } : {}),
    // store:false keeps nothing server-side, so reasoning survives only if SCV keeps and replays it.
    ...(!dropped.has("include") ? { include: ["reasoning.encrypted_content"] } : {}),
    ...(request.cacheKey && !dropped.has("prompt_cache_key") ? { prompt_cache_key: request.cacheKey } : {}),
    store: false,
    stream: true,
  };
  return withRawField(fields, "input", itemJson(request.history));
}

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

async function* parseResponses(events: AsyncIterable<SseEvent>): AsyncGenerator<WireItem> {
  const calls: PendingCall[] = [];
  const emittedCalls = new Set<string>();
  const citedUrls = new Set<string>();
  let textStreamed = false; // a terse server may send text only in the finished items
  let refusalStreamed = false;
  const finishedItems = new Set<string>();

  const findCall = (itemId?: string | null, outputIndex?: number | null) =>
    calls.find((c) => itemId != null && c.itemId === itemId) ?? calls.find((c) => outputIndex != null && c.outputIndex === outputIndex);

  function* citation(raw: unknown): Generator<WireItem> {
    const c = readUrlCitation(raw);
    if (!c.success || citedUrls.has(c.data.url)) return;
    citedUrls.add(c.data.url);
    yield { type: "citation", url: c.data.url, ...(c.data.title ? { title: c.data.title } : {}) };
  }

  // A finished item: emit a function call or reasoning item once; for a message, anything a terse server did not stream.
  function* finishItem(raw: unknown): Generator<WireItem> {
    const read = readOutputItem(raw);
    if (read?.type === "reasoning") {
      const rs = read.item;
      const id = rs.id ?? undefined;
      if (id && finishedItems.has(id)) return;
      if (id) finishedItems.add(id);
      // Without encrypted content (the endpoint ignored `include`) there is nothing to replay.
      if (!rs.encrypted_content) return;
      const summary = (rs.summary ?? []).flatMap((p) => (p.text ? [p.text] : []));
      yield { type: "reasoning_item", item: { role: "reasoning", ...(id ? { id } : {}), encryptedContent: rs.encrypted_content, summary } };
      return;
    }
    if (read?.type === "function_call") {
      const fc = read.item;
      if (emittedCalls.has(fc.call_id)) return;
      emittedCalls.add(fc.call_id);
      const pending = findCall(fc.id, undefined) ?? calls.find((c) => c.callId === fc.call_id);
      const args = fc.arguments || pending?.args || "";
      yield { type: "tool_call", call: { id: fc.call_id, name: fc.name, arguments: args } };
      return;
    }
    if (read?.type !== "message") return;
    const id = read.item.id ?? undefined;
    if (id) finishedItems.add(id);
    for (const part of read.item.content ?? []) {
      if (part.type === "output_text" && part.text && !textStreamed) {
        yield { type: "text", delta: part.text };
      }
      // A refusal may arrive only here, never as refusal.delta events.
      if (part.type === "refusal" && part.refusal && !refusalStreamed) yield { type: "refusal", delta: part.refusal };
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
    const ev = parsed.data;
    switch (ev.type) {
      case "response.output_text.delta":
        textStreamed = true;
        if (ev.delta) yield { type: "text", delta: ev.delta };
        break;
      case "response.refusal.delta":
        refusalStreamed = true;
        if (ev.delta) yield { type: "refusal", delta: ev.delta };
        break;
      case "response.reasoning_summary_part.added":
        if ((ev.summary_index ?? 0) > 0) yield { type: "reasoning", delta: "\n\n" };
        break;
      case "response.reasoning_summary_text.delta":
        if (ev.delta) yield { type: "reasoning", delta: ev.delta };
        break;
      case "response.output_item.added": {
        const read = readOutputItem(ev.item);
        if (read?.type === "function_call" && !findCall(read.item.id, ev.output_index)) {
          calls.push({
            itemId: read.item.id ?? undefined,
            outputIndex: ev.output_index ?? undefined,
            callId: read.item.call_id,
            name: read.item.name,
            args: read.item.arguments ?? "",
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
          const unfinished = (item.type === "message" || item.type === "reasoning") && item.id && !finishedItems.has(item.id);
          if (item.type === "function_call" || unfinished) yield* finishItem(item);
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

/** A non-streamed response object as the events a stream of it would end with. */
function replayResponsesJson(json: unknown): SseEvent[] | undefined {
  const parsed = readResponseObject(json);
  if (!parsed.success) return undefined;
  const response = parsed.data;
  if (!Array.isArray(response.output) && !response.error) return undefined;
  const event = (data: Record<string, unknown>): SseEvent => ({ event: String(data.type), data: JSON.stringify(data) });
  const events = (response.output ?? []).map((item, output_index) => event({ type: "response.output_item.done", output_index, item }));
  const status = response.status ?? (response.error ? "failed" : "completed");
  const terminal = status === "incomplete" ? "response.incomplete" : status === "failed" || response.error ? "response.failed" : "response.completed";
  // Items were replayed one by one above; the terminal event needs only the status, usage and details.
  events.push(event({ type: terminal, response: { ...response, output: [] } }));
  return events;
}

export const responsesAdapter: WireAdapter = {
  path: "/responses",
  optionalFields: ["include", "reasoning", "prompt_cache_key"],
  body: responsesBodyText,
  parse: parseResponses,
  replayJson: replayResponsesJson,
};
