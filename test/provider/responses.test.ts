// The Responses wire API against the fake endpoint over real HTTP, plus payload shapes the fake does not emit.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { responsesAdapter } from "../../src/provider/responses";
import { readSse } from "../../src/provider/sse";
import { ResponsesRequest } from "../../src/provider/wire";
import { citations, failedEvent, incomplete, midStreamError, refusal, startFakeModel, text, toolCalls, type FakeModel } from "../fake/model-server";
import { callsOf, client, collect, endOf, refusalOf, request, textOf } from "./helpers";

let fake: FakeModel;
beforeAll(async () => (fake = await startFakeModel()));
afterAll(() => fake.close());
const model = () => client(fake.url, "responses");

async function parseRaw(sse: string) {
  const body = new Response(sse).body!;
  const out = [];
  for await (const item of responsesAdapter.parse(readSse(body))) out.push(item);
  return out;
}

describe("responses wire", () => {
  test("streams text deltas and reports usage with cached tokens", async () => {
    fake.queue(text("Héllo 🌍, streamed in pieces.", { usage: { input_tokens: 120, output_tokens: 9, cached_tokens: 64 } }));
    const events = await collect(model().stream(request()));
    expect(events.filter((e) => e.type === "text").length).toBeGreaterThan(3);
    expect(textOf(events)).toBe("Héllo 🌍, streamed in pieces.");
    expect(endOf(events)).toEqual({ type: "end", status: "completed", usage: { input_tokens: 120, output_tokens: 9, cached_input_tokens: 64, reasoning_tokens: 0 } });
  });

  test("sends a stateless request: instructions, full input, flat function tools, store:false, stream:true", async () => {
    fake.queue(text("ok"));
    const history = [
      { role: "user" as const, content: "read a.txt" },
      { role: "assistant" as const, content: "Reading.", toolCalls: [{ id: "call_1", name: "read", arguments: '{"path":"a.txt"}' }] },
      { role: "tool" as const, callId: "call_1", name: "read", output: "contents" },
      { role: "assistant" as const, content: "It says contents." },
      { role: "user" as const, content: "thanks" },
    ];
    await collect(model().stream(request({ model: "override-model", hostedWebSearch: true }, history)));
    const body = fake.requests.at(-1)!.body;
    expect(fake.requests.at(-1)!.path).toBe("/v1/responses");
    expect(body.model).toBe("override-model");
    expect(body.instructions).toBe("You are a test.");
    expect(body.store).toBe(false);
    expect(body.stream).toBe(true);
    expect(body.input).toEqual([
      { type: "message", role: "user", content: [{ type: "input_text", text: "read a.txt" }] },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "Reading.", annotations: [] }] },
      { type: "function_call", call_id: "call_1", name: "read", arguments: '{"path":"a.txt"}' },
      { type: "function_call_output", call_id: "call_1", output: "contents" },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "It says contents.", annotations: [] }] },
      { type: "message", role: "user", content: [{ type: "input_text", text: "thanks" }] },
    ]);
    expect(body.tools[0]).toEqual({ type: "function", name: "read", description: "Read a file", parameters: expect.any(Object), strict: false });
    expect(body.tools[1]).toEqual({ type: "web_search" });
    expect(ResponsesRequest.safeParse(body).success).toBe(true); // the wire schema describes what is sent
  });

  test("no hosted web_search tool unless asked, and no tools key for a tool-free request", async () => {
    fake.queue(text("a"), text("b"));
    await collect(model().stream(request()));
    expect(fake.requests.at(-1)!.body.tools.map((t: { type: string }) => t.type)).toEqual(["function"]);
    await collect(model().stream(request({ tools: [] })));
    expect(fake.requests.at(-1)!.body.tools).toBeUndefined();
  });

  test("one tool call with streamed arguments, after a reasoning item", async () => {
    fake.queue(toolCalls([{ name: "read", arguments: { path: "src/some/long/path/file.ts" }, id: "call_abc" }], { reasoning: true }));
    const events = await collect(model().stream(request()));
    expect(callsOf(events)).toEqual([{ id: "call_abc", name: "read", arguments: '{"path":"src/some/long/path/file.ts"}' }]);
    expect(endOf(events).status).toBe("completed");
  });

  test("parallel tool calls after some text, each emitted once and in order", async () => {
    fake.queue(toolCalls([{ name: "read", arguments: { path: "a" } }, { name: "read", arguments: { path: "b" } }, { name: "write", arguments: '{"path":"c","content":"x"}' }], { text: "Looking." }));
    const events = await collect(model().stream(request()));
    expect(textOf(events)).toBe("Looking.");
    const calls = callsOf(events);
    expect(calls.map((c) => [c.name, c.arguments])).toEqual([["read", '{"path":"a"}'], ["read", '{"path":"b"}'], ["write", '{"path":"c","content":"x"}']]);
    expect(new Set(calls.map((c) => c.id)).size).toBe(3);
  });

  test("refusal deltas", async () => {
    fake.queue(refusal("I can't help with that."));
    const events = await collect(model().stream(request()));
    expect(refusalOf(events)).toBe("I can't help with that.");
    expect(textOf(events)).toBe("");
    expect(endOf(events).status).toBe("completed");
  });

  test("url_citation annotations become citation events, once per URL", async () => {
    fake.queue(citations("Tokyo has 14M people ([metro](https://metro.example/p?utm_source=openai)).", [
      { url: "https://metro.example/p?utm_source=openai", title: "Metro" },
      { url: "https://stats.example/", title: "Stats" },
    ]));
    const events = await collect(model().stream(request({ hostedWebSearch: true })));
    expect(events.filter((e) => e.type === "citation")).toEqual([
      { type: "citation", url: "https://metro.example/p?utm_source=openai", title: "Metro" },
      { type: "citation", url: "https://stats.example/", title: "Stats" },
    ]);
  });

  test("response.incomplete ends as incomplete with the reason", async () => {
    fake.queue(incomplete("partial answ", "max_output_tokens"));
    const events = await collect(model().stream(request()));
    expect(textOf(events)).toBe("partial answ");
    const end = endOf(events);
    expect(end.status).toBe("incomplete");
    expect(end.reason).toBe("max_output_tokens");
    expect(end.usage?.output_tokens).toBeGreaterThan(0);
  });

  test("response.failed is classified from its error code", async () => {
    fake.queue(failedEvent("context_length_exceeded", "Your input exceeds the context window of this model. Please adjust your input and try again."));
    const end = endOf(await collect(model().stream(request())));
    expect(end.status).toBe("failed");
    expect(end.failure?.class).toBe("context_window");
    expect(end.failure?.message).toContain("exceeds the context window");
  });

  test("the flat error event after output fails the stream without retry", async () => {
    fake.queue(midStreamError({ text: "Some text", code: "server_error", message: "boom" }));
    const events = await collect(model().stream(request()));
    expect(textOf(events)).toBe("Some text");
    expect(events.some((e) => e.type === "retry")).toBe(false);
    expect(endOf(events).failure).toMatchObject({ class: "server" });
    expect(endOf(events).failure?.message).toContain("boom");
  });

  test("accepts a trailing [DONE] after the terminal event", async () => {
    fake.queue(text("done-terminated", { done: true }));
    const events = await collect(model().stream(request()));
    expect(endOf(events).status).toBe("completed");
  });
});

describe("responses payloads the fake does not emit", () => {
  test("the nested error event form", async () => {
    const items = await parseRaw(
      'event: error\ndata: {"type":"error","sequence_number":2,"error":{"type":"service_unavailable_error","code":"server_is_overloaded","message":"Overloaded","param":null}}\n\n',
    );
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ type: "fail", classified: { failure: { class: "server" }, retryable: true } });
  });

  test("response.failed with rate_limit_exceeded carries the try-again delay", async () => {
    const items = await parseRaw(
      'event: response.failed\ndata: {"type":"response.failed","sequence_number":3,"response":{"id":"r","status":"failed","error":{"code":"rate_limit_exceeded","message":"Rate limit reached. Please try again in 11.054s. Visit x."},"usage":null}}\n\n',
    );
    expect(items[0]).toMatchObject({ type: "fail", classified: { failure: { class: "rate_limit" }, retryAfterMs: 11054 } });
  });

  test("unknown events are ignored; a stream without a terminal event is a stream failure", async () => {
    const items = await parseRaw(
      'event: response.mcp_call.in_progress\ndata: {"type":"response.mcp_call.in_progress","sequence_number":0}\n\n' +
        'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","item_id":"m","output_index":0,"content_index":0,"delta":"hi","sequence_number":1}\n\n' +
        "data: not json\n\n",
    );
    expect(items[0]).toEqual({ type: "text", delta: "hi" });
    expect(items[1]).toMatchObject({ type: "fail", classified: { failure: { class: "stream" }, retryable: true } });
  });

  test("function calls and text only present in response.completed are still delivered", async () => {
    const completed = {
      type: "response.completed",
      sequence_number: 1,
      response: {
        status: "completed",
        output: [
          { id: "msg_1", type: "message", content: [{ type: "output_text", text: "terse", annotations: [] }] },
          { id: "fc_1", type: "function_call", call_id: "call_9", name: "read", arguments: '{"path":"x"}' },
        ],
        usage: { input_tokens: 5, input_tokens_details: null, output_tokens: 2 },
      },
    };
    const items = await parseRaw(`event: response.completed\ndata: ${JSON.stringify(completed)}\n\n`);
    expect(items).toEqual([
      { type: "text", delta: "terse" },
      { type: "tool_call", call: { id: "call_9", name: "read", arguments: '{"path":"x"}' } },
      { type: "done", status: "completed", usage: { input_tokens: 5, output_tokens: 2, cached_input_tokens: 0, reasoning_tokens: 0 } },
    ]);
  });
});
