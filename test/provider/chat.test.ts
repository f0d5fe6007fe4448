// The Chat Completions wire API against the fake endpoint over real HTTP, plus chunk shapes the fake does not emit.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chatAdapter } from "../../src/provider/chat";
import { readSse } from "../../src/provider/sse";
import { ChatRequest } from "../../src/provider/wire";
import { cut, failedEvent, incomplete, midStreamError, refusal, startFakeModel, text, toolCalls, type FakeModel } from "../fake/model-server";
import { callsOf, client, collect, endOf, refusalOf, request, retriesOf, textOf } from "./helpers";

let fake: FakeModel;
beforeAll(async () => (fake = await startFakeModel()));
afterAll(() => fake.close());
const model = () => client(fake.url, "chat");

async function parseRaw(sse: string) {
  const out = [];
  for await (const item of chatAdapter.parse(readSse(new Response(sse).body!))) out.push(item);
  return out;
}

describe("chat wire", () => {
  test("streams text deltas and reads the usage chunk with cached tokens", async () => {
    fake.queue(text("Ünïcode and 🚀 text in chat.", { usage: { input_tokens: 300, output_tokens: 12, cached_tokens: 256 } }));
    const events = await collect(model().stream(request()));
    expect(textOf(events)).toBe("Ünïcode and 🚀 text in chat.");
    expect(endOf(events)).toEqual({ type: "end", status: "completed", usage: { input_tokens: 300, output_tokens: 12, cached_input_tokens: 256, reasoning_tokens: 0 } });
  });

  test("sends system, wrapped tools, include_usage, and replays tool calls and tool messages", async () => {
    fake.queue(text("ok"));
    const history = [
      { role: "user" as const, content: "read both" },
      {
        role: "assistant" as const,
        content: "",
        toolCalls: [
          { id: "call_a", name: "read", arguments: '{"path":"a"}' },
          { id: "call_b", name: "read", arguments: '{"path":"b"}' },
        ],
      },
      { role: "tool" as const, callId: "call_a", name: "read", output: "A" },
      { role: "tool" as const, callId: "call_b", name: "read", output: "B" },
      { role: "assistant" as const, content: "Both read." },
      { role: "user" as const, content: "thanks" },
    ];
    const events = await collect(model().stream(request({}, history)));
    expect(endOf(events).status).toBe("completed");
    const req = fake.requests.at(-1)!;
    expect(req.path).toBe("/v1/chat/completions");
    expect(req.body.stream).toBe(true);
    expect(req.body.stream_options).toEqual({ include_usage: true });
    expect(req.body.tools).toEqual([{ type: "function", function: { name: "read", description: "Read a file", parameters: expect.any(Object) } }]);
    expect(req.body.messages).toEqual([
      { role: "system", content: "You are a test." },
      { role: "user", content: "read both" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_a", type: "function", function: { name: "read", arguments: '{"path":"a"}' } },
          { id: "call_b", type: "function", function: { name: "read", arguments: '{"path":"b"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_a", content: "A" },
      { role: "tool", tool_call_id: "call_b", content: "B" },
      { role: "assistant", content: "Both read." },
      { role: "user", content: "thanks" },
    ]);
    expect(ChatRequest.safeParse(req.body).success).toBe(true); // the wire schema describes what is sent
  });

  test("hosted web search is not offered on the chat wire", async () => {
    fake.queue(text("ok"));
    await collect(model().stream(request({ hostedWebSearch: true })));
    expect(JSON.stringify(fake.requests.at(-1)!.body.tools)).not.toContain("web_search");
  });

  test("parallel tool calls accumulate by index", async () => {
    fake.queue(toolCalls([
      { name: "read", arguments: { path: "first/file/with/a/long/name.ts" }, id: "call_1" },
      { name: "write", arguments: { path: "b", content: "line1\nline2" }, id: "call_2" },
    ]));
    const events = await collect(model().stream(request()));
    expect(callsOf(events)).toEqual([
      { id: "call_1", name: "read", arguments: '{"path":"first/file/with/a/long/name.ts"}' },
      { id: "call_2", name: "write", arguments: '{"path":"b","content":"line1\\nline2"}' },
    ]);
    expect(endOf(events).status).toBe("completed");
  });

  test("refusal deltas", async () => {
    fake.queue(refusal("Sorry, I can't do that."));
    const events = await collect(model().stream(request()));
    expect(refusalOf(events)).toBe("Sorry, I can't do that.");
    expect(textOf(events)).toBe("");
  });

  test("finish_reason length and content_filter end as incomplete", async () => {
    fake.queue(incomplete("trunc", "max_output_tokens"), incomplete("filtered", "content_filter"));
    expect(endOf(await collect(model().stream(request())))).toMatchObject({ status: "incomplete", reason: "max_output_tokens" });
    expect(endOf(await collect(model().stream(request())))).toMatchObject({ status: "incomplete", reason: "content_filter" });
  });

  test("a mid-stream data:{error} after output fails without retry", async () => {
    fake.queue(midStreamError({ text: "partial", code: "server_error", message: "upstream died" }));
    const events = await collect(model().stream(request()));
    expect(textOf(events)).toBe("partial");
    expect(retriesOf(events)).toHaveLength(0);
    expect(endOf(events).failure).toMatchObject({ class: "server" });
    expect(endOf(events).failure?.message).toContain("upstream died");
  });

  test("a mid-stream quota error before output is not retried", async () => {
    fake.queue(failedEvent("insufficient_quota", "You exceeded your current quota."));
    const events = await collect(model().stream(request()));
    expect(retriesOf(events)).toHaveLength(0);
    expect(endOf(events).failure?.class).toBe("quota");
  });

  test("a stream cut after output (no finish_reason, no [DONE]) is a stream failure", async () => {
    fake.queue(cut("half a sen"));
    const events = await collect(model().stream(request()));
    expect(textOf(events)).toBe("half a sen");
    expect(endOf(events)).toMatchObject({ status: "failed", failure: { class: "stream" } });
  });
});

describe("chat chunks the fake does not emit", () => {
  test("ids missing from tool call chunks are generated; names sent repeatedly are not doubled", async () => {
    const chunk = (delta: object, finish: string | null = null) => `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const items = await parseRaw(
      chunk({ tool_calls: [{ index: 0, function: { name: "read", arguments: '{"pa' } }] }) +
        chunk({ tool_calls: [{ index: 0, function: { name: "read", arguments: 'th":"x"}' } }] }) +
        chunk({}, "tool_calls"),
    );
    expect(items[0]).toMatchObject({ type: "tool_call", call: { name: "read", arguments: '{"path":"x"}' } });
    expect((items[0] as { call: { id: string } }).call.id).toMatch(/^call_[0-9a-f]{32}$/);
    expect(items[1]).toEqual({ type: "done", status: "completed" });
  });

  test("[DONE] without a finish_reason completes; EOF without either fails", async () => {
    const content = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "x" } }] })}\n\n`;
    expect((await parseRaw(content + "data: [DONE]\n\n")).at(-1)).toEqual({ type: "done", status: "completed" });
    expect((await parseRaw(content)).at(-1)).toMatchObject({ type: "fail", classified: { failure: { class: "stream" } } });
  });
});
