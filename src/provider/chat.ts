// The Chat Completions wire API (reference §2): `data:` chunks, tool calls accumulated by index, a usage
// chunk with `choices: []` (stream_options.include_usage), and `data: [DONE]` at the end.
import { cutShort, parseJson, type WireAdapter, type WireItem } from "./adapter";
import { classifyErrorBody } from "./errors";
import type { SseEvent } from "./sse";
import type { ModelRequest, ToolCallRequest, Usage } from "./types";
import { ChatChunk, type ChatMessage, type ChatRequest } from "./wire";

export function chatBody(request: ModelRequest, model: string): ChatRequest {
  const messages: ChatMessage[] = [];
  if (request.system) messages.push({ role: "system", content: request.system });
  for (const item of request.history) {
    if (item.role === "user") messages.push({ role: "user", content: item.content });
    else if (item.role === "assistant") {
      const calls = item.toolCalls ?? [];
      if (calls.length === 0) messages.push({ role: "assistant", content: item.content });
      else {
        messages.push({
          role: "assistant",
          content: item.content === "" ? null : item.content,
          tool_calls: calls.map((c) => ({ id: c.id, type: "function" as const, function: { name: c.name, arguments: c.arguments } })),
        });
      }
    } else messages.push({ role: "tool", tool_call_id: item.callId, content: item.output });
  }
  const tools = request.tools.map((t) => ({
    type: "function" as const,
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));
  return {
    model,
    messages,
    ...(tools.length ? { tools, tool_choice: "auto" as const } : {}),
    stream: true,
    stream_options: { include_usage: true },
  };
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
    const parsed = ChatChunk.safeParse(parseJson(sse.data));
    if (!parsed.success) continue;
    const chunk = parsed.data;
    if (chunk.error) {
      yield { type: "fail", classified: classifyErrorBody(chunk.error) };
      return;
    }
    if (chunk.usage) {
      const u = chunk.usage;
      usage = { input_tokens: u.prompt_tokens, output_tokens: u.completion_tokens, cached_input_tokens: u.prompt_tokens_details?.cached_tokens ?? 0 };
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

export const chatAdapter: WireAdapter = {
  path: "/chat/completions",
  body: chatBody,
  parse: parseChat,
};
