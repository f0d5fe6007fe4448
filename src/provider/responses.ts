// The OpenAI Responses wire API (reference §1): stateless (store:false, the full input every request),
// streamed as typed SSE events that end with response.completed | incomplete | failed.
import { itemsJsonWriter, withRawField, type WireAdapter } from "./adapter";
import { parseResponses } from "./responses-stream";
import type { SseEvent } from "./sse";
import { imagesIntro, summaryMessage } from "./summary";
import { carriesImages, type ImageRef, preparedImage } from "./images";
import type { HistoryItem, ModelRequest } from "./types";
import type { ResponsesInputItem, ResponsesRequest } from "./wire";
import { readResponseObject } from "./wire-check";

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
