// The provider's stream readers (src/provider/wire-check.ts) take what the fast check certainly accepts without
// zod: they must give exactly what zod gives, on the events real servers send (shared/reference/providers-wire.md)
// and on values near them, and a whole stream read must not load zod at all.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { useZod } from "../../src/lazy-schema";
import { ChatChunk, ChatCompletion, ErrorBody, FunctionCallItem, MessageItem, ReasoningOutputItem, ResponseObject, ResponsesEvent, UrlCitation } from "../../src/provider/wire";
import { readAnthropicEvent, readAnthropicMessage, readChatChunk, readChatCompletion, readErrorBody, readOutputItem, readResponseObject, readResponsesEvent, readUrlCitation } from "../../src/provider/wire-check";
import { AnthropicEvent, AnthropicMessageObject } from "../../src/provider/wire-anthropic";
import { variants } from "../fast-check/variants";

useZod(z);

const usage = { input_tokens: 58, input_tokens_details: { cached_tokens: 0 }, output_tokens: 17, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 75 };
const message = { id: "msg_051d", type: "message", status: "completed", content: [{ type: "output_text", annotations: [], logprobs: [], text: "The answer" }], role: "assistant" };
const call = { id: "fc_0befc", type: "function_call", status: "completed", arguments: '{"location":"Florence, Italy"}', call_id: "call_4TL7SrUyTg60nSUcfgeWLFXO", name: "weather" };
const reasoning = { id: "rs_1", type: "reasoning", encrypted_content: "gAAAA-opaque", summary: [{ type: "summary_text", text: "Thinking" }] };
const response = { id: "resp_051d", object: "response", status: "completed", error: null, incomplete_details: null, model: "gpt-4o-mini", output: [message, call], usage, metadata: {} };

/** Events as the reference captured them from the real API (ids shortened), one of each kind SCV reads and some it ignores. */
const EVENTS: Record<string, unknown>[] = [
  { type: "response.created", response: { ...response, status: "in_progress", output: [], usage: null }, sequence_number: 0 },
  { type: "response.output_item.added", item: { id: "msg_051d", type: "message", status: "in_progress", content: [], role: "assistant" }, output_index: 0, sequence_number: 2 },
  { type: "response.content_part.added", content_index: 0, item_id: "msg_051d", output_index: 0, part: { type: "output_text", annotations: [], logprobs: [], text: "" }, sequence_number: 3 },
  { type: "response.output_text.delta", content_index: 0, delta: "The", item_id: "msg_051d", logprobs: [], obfuscation: "L7avu2BFWBVc0", output_index: 0, sequence_number: 4 },
  { type: "response.refusal.delta", content_index: 0, delta: "No", item_id: "msg_051d", output_index: 0, sequence_number: 4 },
  { type: "response.reasoning_summary_part.added", item_id: "rs_1", output_index: 0, summary_index: 1, part: { type: "summary_text", text: "" }, sequence_number: 2 },
  { type: "response.reasoning_summary_text.delta", item_id: "rs_1", output_index: 0, summary_index: 0, delta: "Think", sequence_number: 3 },
  { type: "response.output_item.added", item: { ...call, status: "in_progress", arguments: "" }, output_index: 0, sequence_number: 2 },
  { type: "response.function_call_arguments.delta", delta: '{"', item_id: "fc_0befc", obfuscation: "PCQ6yyxohsUwN7", output_index: 0, sequence_number: 3 },
  { type: "response.function_call_arguments.done", arguments: '{"location":"Florence, Italy"}', item_id: "fc_0befc", output_index: 0, sequence_number: 11 },
  { type: "response.output_text.annotation.added", annotation: { type: "url_citation", end_index: 367, start_index: 260, title: "Tokyo", url: "https://example.org/tokyo" }, annotation_index: 0, content_index: 0, item_id: "msg_0a0e", output_index: 1, sequence_number: 15 },
  { type: "response.output_item.done", item: message, output_index: 0, sequence_number: 9 },
  { type: "response.output_item.done", item: call, output_index: 0, sequence_number: 12 },
  { type: "response.output_item.done", item: reasoning, output_index: 0, sequence_number: 5 },
  { type: "response.completed", response, sequence_number: 13 },
  { type: "response.incomplete", response: { ...response, status: "incomplete", incomplete_details: { reason: "max_output_tokens" } }, sequence_number: 13 },
  { type: "response.failed", response: { ...response, status: "failed", error: { code: "server_error", message: "boom" }, usage: null }, sequence_number: 13 },
  { type: "error", code: "server_error", message: "The server had an error", param: null, sequence_number: 5 },
];

const CHUNKS: Record<string, unknown>[] = [
  { id: "chatcmpl-D", object: "chat.completion.chunk", created: 1782321905, model: "gpt-4o-mini", choices: [{ index: 0, delta: { role: "assistant", content: null, tool_calls: [{ index: 0, id: "call_qLFv8", type: "function", function: { name: "weather", arguments: "" } }], refusal: null }, logprobs: null, finish_reason: null }], usage: null, obfuscation: "x" },
  { id: "chatcmpl-D", choices: [{ index: 0, delta: { content: "Hello" }, logprobs: null, finish_reason: null }], usage: null },
  { id: "chatcmpl-D", choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: "tool_calls" }], usage: null },
  { id: "chatcmpl-D", choices: [], usage: { prompt_tokens: 61, completion_tokens: 16, total_tokens: 77, prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } } },
  { error: { message: "overloaded", type: "server_error", param: null, code: null } },
];

/** Anthropic Messages stream events as the API sends them (docs/anthropic-wire.md), one of each type SCV reads. */
const A_USAGE = { input_tokens: 12, cache_creation_input_tokens: 310, cache_read_input_tokens: 4100, output_tokens: 1, cache_creation: { ephemeral_5m_input_tokens: 310, ephemeral_1h_input_tokens: 0 }, service_tier: "standard" };
const A_EVENTS: Record<string, unknown>[] = [
  { type: "message_start", message: { id: "msg_01X", type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [], stop_reason: null, stop_sequence: null, usage: A_USAGE } },
  { type: "ping" },
  { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } },
  { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "Let me look" } },
  { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "EqQBCkgIARABGAIiQL" } },
  { type: "content_block_stop", index: 0 },
  { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "Reading it." } },
  { type: "content_block_stop", index: 1 },
  { type: "content_block_start", index: 2, content_block: { type: "tool_use", id: "toolu_01A", name: "read", input: {} } },
  { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: '{"path": "a.txt"}' } },
  { type: "content_block_stop", index: 2 },
  { type: "content_block_start", index: 3, content_block: { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix" } },
  { type: "content_block_stop", index: 3 },
  { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 87 } },
  { type: "message_stop" },
  { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
];

/** Variants of the value and of each object nested in it (the first element standing for an array's). */
function nearby(base: Record<string, unknown>): unknown[] {
  const out = variants(base);
  for (const [key, value] of Object.entries(base)) {
    if (Array.isArray(value) && value[0] && typeof value[0] === "object") for (const v of nearby(value[0])) out.push({ ...base, [key]: [v, ...value.slice(1)] });
    else if (value && typeof value === "object" && !Array.isArray(value)) for (const v of nearby(value as Record<string, unknown>)) out.push({ ...base, [key]: v });
  }
  return out;
}

/** The reader agrees with zod: the same verdict and the same value. */
function expectSameAsZod(read: (v: unknown) => { success: boolean; data?: unknown }, schema: z.ZodType, value: unknown) {
  const mine = read(value);
  const zods = schema.safeParse(value);
  expect({ value, success: mine.success }).toEqual({ value, success: zods.success });
  if (zods.success) expect(mine.data).toEqual(zods.data);
}

describe("the stream readers agree with zod", () => {
  test("Responses events, real and nearby", () => {
    let checked = 0;
    for (const event of EVENTS) for (const v of nearby(event)) {
      expectSameAsZod(readResponsesEvent, ResponsesEvent, v);
      checked++;
    }
    expect(checked).toBeGreaterThan(2000);
  });

  test("output items, citations, error bodies and whole responses", () => {
    const item = (v: unknown) => {
      const r = readOutputItem(v);
      return r ? { success: true, data: r.item } : { success: false };
    };
    const union = z.union([FunctionCallItem, MessageItem, ReasoningOutputItem]);
    for (const base of [message, call, reasoning, { type: "web_search_call", id: "ws_1", status: "completed" }]) for (const v of nearby(base)) expectSameAsZod(item, union, v);
    for (const v of nearby({ type: "url_citation", url: "https://example.org", title: "t", start_index: 1 })) expectSameAsZod(readUrlCitation, UrlCitation, v);
    for (const v of nearby({ message: "bad key", type: "invalid_request_error", param: null, code: "invalid_api_key" })) expectSameAsZod(readErrorBody, ErrorBody, v);
    for (const v of nearby(response)) expectSameAsZod(readResponseObject, ResponseObject, v);
  });

  test("Chat chunks and a whole completion", () => {
    for (const chunk of CHUNKS) for (const v of nearby(chunk)) expectSameAsZod(readChatChunk, ChatChunk, v);
    const completion = { id: "c", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: "hi", refusal: null }, finish_reason: "stop" }], usage: { prompt_tokens: 3 } };
    for (const v of nearby(completion)) expectSameAsZod(readChatCompletion, ChatCompletion, v);
  });

  test("Anthropic events and a whole message, real and nearby", () => {
    let checked = 0;
    for (const event of A_EVENTS) for (const v of nearby(event)) {
      expectSameAsZod(readAnthropicEvent, AnthropicEvent, v);
      checked++;
    }
    expect(checked).toBeGreaterThan(500);
    const whole = { id: "msg_01X", type: "message", role: "assistant", content: [{ type: "text", text: "hi" }, { type: "tool_use", id: "toolu_1", name: "read", input: { path: "a" } }], stop_reason: "tool_use", usage: A_USAGE };
    for (const v of nearby(whole)) expectSameAsZod(readAnthropicMessage, AnthropicMessageObject, v);
    for (const v of [{ type: "future_event" }, { type: "message_stop " }, { type: 7 }, null]) expect([readAnthropicEvent(v).success, AnthropicEvent.safeParse(v).success]).toEqual([false, false]);
  });

  test("an event of an unknown type is refused at once, as zod's discriminated union does", () => {
    for (const v of [{ type: "response.in_progress" }, { type: "response.output_text.delta ", delta: "x" }, { type: 7 }, { error: { message: "m" } }, "x", null]) {
      expect(readResponsesEvent(v).success).toBe(false);
      expect(ResponsesEvent.safeParse(v).success).toBe(false);
    }
  });
});

describe("a whole stream is read without zod", () => {
  const READ_STREAM = join(import.meta.dir, "../../src/provider/responses.ts");
  const READ_CHAT = join(import.meta.dir, "../../src/provider/chat.ts");

  /** Runs the adapter over the events in a fresh process: what it yielded, and whether zod was loaded. */
  function readInFreshProcess(module: string, adapter: string, events: unknown[], made = adapter) {
    const dir = mkdtempSync(join(tmpdir(), "scv-wire-check-"));
    try {
      const script = join(dir, "read.ts");
      writeFileSync(
        script,
        `import { ${adapter} } from ${JSON.stringify(module)};
const events = ${JSON.stringify(events.map((e) => ({ event: "message", data: typeof e === "string" ? e : JSON.stringify(e) })))};
async function* source() { yield* events; }
const items = [];
for await (const item of ${made}.parse(source())) items.push(item);
process.stdout.write(JSON.stringify({ zod: "__zod_globalConfig" in globalThis, items }));
`,
      );
      const run = Bun.spawnSync([process.execPath, script], { cwd: dir, env: { PATH: process.env.PATH }, stdout: "pipe", stderr: "pipe" });
      if (!run.success) throw new Error(run.stderr.toString());
      return JSON.parse(run.stdout.toString()) as { zod: boolean; items: Record<string, unknown>[] };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  test("Responses: a text reply and a tool call, with usage", () => {
    const stream = [EVENTS[0], EVENTS[1], EVENTS[2], EVENTS[3], EVENTS[7], EVENTS[8], EVENTS[9], EVENTS[11], EVENTS[12], EVENTS[14]];
    const read = readInFreshProcess(READ_STREAM, "responsesAdapter", stream);
    expect(read.items.map((i) => i.type)).toEqual(["text", "tool_call", "done"]);
    expect(read.items.at(-1)).toEqual({ type: "done", status: "completed", usage: { input_tokens: 58, output_tokens: 17, cached_input_tokens: 0, reasoning_tokens: 0 } });
    expect(read.zod).toBe(false);
  });

  test("Responses: a missing count reads as 0, as before", () => {
    const bare = { ...EVENTS[14], response: { ...response, output: [], usage: { output_tokens: 4 } } };
    const read = readInFreshProcess(READ_STREAM, "responsesAdapter", [EVENTS[3], bare]);
    expect(read.items.at(-1)).toEqual({ type: "done", status: "completed", usage: { input_tokens: 0, output_tokens: 4, cached_input_tokens: 0, reasoning_tokens: 0 } });
  });

  test("Chat: a tool call with usage", () => {
    const read = readInFreshProcess(READ_CHAT, "chatAdapter", [CHUNKS[0], CHUNKS[1], CHUNKS[2], CHUNKS[3], "[DONE]"]);
    expect(read.items.map((i) => i.type)).toEqual(["text", "tool_call", "done"]);
    expect(read.zod).toBe(false);
  });

  test("Anthropic: thinking, text and a tool call, with usage", () => {
    const read = readInFreshProcess(join(import.meta.dir, "../../src/provider/anthropic.ts"), "anthropicAdapter", A_EVENTS.slice(0, 16), "anthropicAdapter({})");
    expect(read.items.map((i) => i.type)).toEqual(["reasoning", "reasoning_item", "text", "tool_call", "reasoning_item", "done"]);
    expect(read.items.at(-1)).toEqual({
      type: "done",
      status: "completed",
      usage: { input_tokens: 12 + 310 + 4100, output_tokens: 87, cached_input_tokens: 4100, reasoning_tokens: 3, cache_write_tokens: 310 },
    });
    expect(read.zod).toBe(false);
  });

  test("an event the fast check is not sure of still goes to zod, which decides", () => {
    // A delta that is not a string: zod refuses it, so the reader must have asked zod.
    const odd = { ...EVENTS[3], delta: 7 };
    const read = readInFreshProcess(READ_STREAM, "responsesAdapter", [odd, EVENTS[3], EVENTS[14]]);
    expect(read.zod).toBe(true);
    expect(read.items.filter((i) => i.type === "text")).toHaveLength(1);
  });
});
