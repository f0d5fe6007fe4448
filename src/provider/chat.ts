// The Chat Completions wire API (reference §2): `data:` chunks, tool calls accumulated by index, a usage
// chunk with `choices: []` (stream_options.include_usage), and `data: [DONE]` at the end.
import { itemsJsonWriter, cutShort, parseJson, withRawField, type WireAdapter, type WireItem } from "./adapter";
import { classifyErrorBody } from "./errors";
import type { SseEvent } from "./sse";
import { imagesIntro, summaryMessage } from "./summary";
import { carriesImages, type ImageRef, preparedImage } from "./images";
import type { HistoryItem, ModelRequest, ToolCallRequest, Usage } from "./types";
import type { ChatMessage, ChatRequest } from "./wire";
import { readChatChunk, readChatCompletion } from "./wire-check";

/** The messages one history item becomes; reasoning items have no Chat form and are left out. */
function chatMessages(item: HistoryItem): ChatMessage[] {
  switch (item.role) {
    case "user":
      return [item.images?.length ? { role: "user", content: [{ type: "text", text: item.content }, ...imageParts(item.images)] } : { role: "user", content: item.content }];
    case "images":
      return [{ role: "user", content: [{ type: "text", text: imagesIntro(item.about) }, ...imageParts(item.images)] }];
    case "summary":
      return [{ role: "user", content: summaryMessage(item.content) }];
    case "reasoning":
      return [];
    case "tool":
      return [{ role: "tool", tool_call_id: item.callId, content: item.output }];
    case "assistant": {
      const calls = item.toolCalls ?? [];
      if (calls.length === 0) return [{ role: "assistant", content: item.content }];
      return [
        {
          role: "assistant",
          content: item.content === "" ? null : item.content,
          tool_calls: calls.map((c) => ({ id: c.id, type: "function" as const, function: { name: c.name, arguments: c.arguments } })),
        },
      ];
    }
  }
}

type UserPart = Extract<ChatMessage, { content: unknown[] }>["content"][number];

/** Each image as an image_url part (a data URL), or as a text part saying why it is missing. */
function imageParts(images: ImageRef[]): UserPart[] {
  return images.map((ref) => {
    const ready = preparedImage(ref);
    return "url" in ready ? { type: "image_url", image_url: { url: ready.url } } : { type: "text", text: `[${ready.missing}]` };
  });
}

const messageJson = itemsJsonWriter(chatMessages, (item) => !carriesImages(item));

/** The request as an object (for tests and schema checks); the client sends `chatBodyText`. */
export function chatBody(request: ModelRequest, model: string, dropped: ReadonlySet<string> = new Set()): ChatRequest {
  return JSON.parse(chatBodyText(request, model, dropped));
}

function chatBodyText(request: ModelRequest, model: string, dropped: ReadonlySet<string>): string {
  const tools = request.tools.map((t) => ({
    type: "function" as const,
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));
  const effort = request.reasoning?.effort;
  const fields: Omit<ChatRequest, "messages"> = {
    model,
    ...(tools.length ? { tools, tool_choice: "auto" as const } : {}),
    ...(effort && !dropped.has("reasoning_effort") ? { reasoning_effort: effort } : {}),
    ...(request.cacheKey && !dropped.has("prompt_cache_key") ? { prompt_cache_key: request.cacheKey } : {}),
    stream: true,
    stream_options: { include_usage: true },
  };
  const system = request.system ? `${JSON.stringify({ role: "system", content: request.system })}` : "";
  const history = messageJson(request.history);
  const messages = system ? (history === "[]" ? `[${system}]` : `[${system},${history.slice(1)}`) : history;
  return withRawField(fields, "messages", messages);
}

interface PendingCall {
  id: string;
  generatedId: boolean;
  name: string;
  args: string;
}

async function* parseChat(events: AsyncIterable<SseEvent>): AsyncGenerator<WireItem> {
  const calls = new Map<number, PendingCall>();
  let finish: string | undefined;
  let usage: Usage | undefined;
  let callsEmitted = false;

  // Calls are complete once the choice finishes; emit them in index order.
  function* flushCalls(): Generator<WireItem> {
    if (callsEmitted) return;
    callsEmitted = true;
    for (const index of [...calls.keys()].sort((a, b) => a - b)) {
      const c = calls.get(index)!;
      if (!c.name) continue; // a fragment that never named its function cannot be run
      const call: ToolCallRequest = { id: c.id, name: c.name, arguments: c.args };
      yield { type: "tool_call", call };
    }
  }
  const outcome = (): WireItem => {
    const status = finish === "length" || finish === "content_filter" ? "incomplete" : "completed";
    return {
      type: "done",
      status,
      ...(status === "incomplete" ? { reason: finish === "length" ? "max_output_tokens" : "content_filter" } : {}),
      ...(usage ? { usage } : {}),
    };
  };

  for await (const sse of events) {
    if (sse.data === "[DONE]") {
      yield* flushCalls();
      yield outcome();
      return;
    }
    const parsed = readChatChunk(parseJson(sse.data));
    if (!parsed.success) continue;
    const chunk = parsed.data;
    if (chunk.error) {
      yield { type: "fail", classified: classifyErrorBody(chunk.error) };
      return;
    }
    if (chunk.usage) {
      const u = chunk.usage;
      usage = {
        input_tokens: u.prompt_tokens ?? 0,
        output_tokens: u.completion_tokens ?? 0,
        cached_input_tokens: u.prompt_tokens_details?.cached_tokens ?? 0,
        reasoning_tokens: u.completion_tokens_details?.reasoning_tokens ?? 0,
      };
    }
    const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0);
    if (!choice) continue;
    const delta = choice.delta;
    if (delta?.content) yield { type: "text", delta: delta.content };
    if (delta?.refusal) yield { type: "refusal", delta: delta.refusal };
    for (const tc of delta?.tool_calls ?? []) {
      let c = calls.get(tc.index);
      if (!c) {
        // Some compatible servers omit ids; the history needs one to pair the result with the call.
        c = { id: tc.id || `call_${crypto.randomUUID().replaceAll("-", "")}`, generatedId: !tc.id, name: "", args: "" };
        calls.set(tc.index, c);
      } else if (tc.id && c.generatedId) {
        c.id = tc.id;
        c.generatedId = false;
      }
      const name = tc.function?.name;
      if (name && name !== c.name) c.name += name; // OpenAI names once; some servers repeat or fragment it
      if (tc.function?.arguments) c.args += tc.function.arguments;
    }
    if (choice.finish_reason) {
      finish = choice.finish_reason;
      yield* flushCalls();
    }
  }
  // EOF: a finished choice is a complete answer even if the usage chunk and [DONE] were lost.
  if (finish) {
    yield outcome();
    return;
  }
  yield cutShort("a finish_reason or [DONE]");
}

/** A non-streamed chat.completion as the chunks a stream of it would be (`reasoning_content` is ignored). */
function replayChatJson(json: unknown): SseEvent[] | undefined {
  const parsed = readChatCompletion(json);
  if (!parsed.success) return undefined;
  const choice = parsed.data.choices.find((c) => (c.index ?? 0) === 0);
  const message = choice?.message;
  const tool_calls = (message?.tool_calls ?? []).map((c, index) => ({ index, id: c.id, function: c.function }));
  const delta = { content: message?.content ?? null, refusal: message?.refusal ?? null, ...(tool_calls.length ? { tool_calls } : {}) };
  const chunks = [
    { choices: [{ index: 0, delta, finish_reason: choice?.finish_reason ?? "stop" }] },
    ...(parsed.data.usage ? [{ choices: [], usage: parsed.data.usage }] : []),
  ];
  return [...chunks.map((c) => ({ event: "message", data: JSON.stringify(c) })), { event: "message", data: "[DONE]" }];
}

export const chatAdapter: WireAdapter = {
  path: "/chat/completions",
  optionalFields: ["reasoning_effort", "prompt_cache_key"],
  body: chatBodyText,
  parse: parseChat,
  replayJson: replayChatJson,
};
