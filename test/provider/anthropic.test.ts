// The kind = "anthropic" client against the fake Messages API over real HTTP: streamed text, parallel tool_use,
// thinking kept with its signature and sent back unchanged, cache_control placement and cached-token usage,
// retries honouring retry-after (429, 529), clear 401/404 messages, a stream cut short, unknown events,
// stop reasons, and a non-streamed answer.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { imageRef, prepareImages } from "../../src/provider/images";
import { makePng } from "../fake/png";
import { ProviderProfile, withKindDefaults } from "../../src/config/schema";
import { anthropicBody } from "../../src/provider/anthropic";
import { createModelClient } from "../../src/provider/client";
import type { HistoryItem, ModelEvent, ReasoningItem } from "../../src/provider/types";
import { anthropicError, rawFrames } from "../fake/anthropic-render";
import { cut, jsonAnswer, refusal, startFakeModel, text, toolCalls, type FakeModel } from "../fake/model-server";
import { callsOf, collect, endOf, request, retriesOf, textOf } from "./helpers";

const KEY = "sk-ant-api03-TESTKEY0123456789abcdefSECRET";
let fake: FakeModel;
beforeAll(async () => (fake = await startFakeModel({ anthropicKey: KEY })));
afterAll(() => fake.close());
afterEach(() => fake.clear());

const profile = (extra: Record<string, unknown> = {}) => withKindDefaults(ProviderProfile.parse({ kind: "anthropic", base_url: fake.anthropicUrl, model: "claude-sonnet-4-5", ...extra }), "test");
const client = (extra: Record<string, unknown> = {}, apiKey = KEY) =>
  createModelClient(profile(extra), { version: "9.9.9-test", apiKey, retry: { baseDelayMs: 5, maxDelayMs: 20, maxRetryAfterMs: 2000 } });
const last = () => fake.requests.at(-1)!;
const reasoningOf = (events: ModelEvent[]) => events.flatMap((e) => (e.type === "reasoning_item" ? [e.item] : []));

describe("kind = anthropic", () => {
  test("defaults: Anthropic's URL, ANTHROPIC_API_KEY, the Messages API; wire_api of another API is refused", () => {
    const p = withKindDefaults(ProviderProfile.parse({ kind: "anthropic" }), "providers.claude");
    expect(p).toMatchObject({ base_url: "https://api.anthropic.com", api_key_env: "ANTHROPIC_API_KEY", wire_api: "messages", model: "claude-sonnet-4-5" });
    expect(() => withKindDefaults(ProviderProfile.parse({ kind: "anthropic", wire_api: "chat" }), "providers.claude")).toThrow(/providers.claude.wire_api: kind = "anthropic" speaks only the Messages API/);
    expect(() => withKindDefaults(ProviderProfile.parse({ thinking: { budget_tokens: 2000 } }), "providers.o")).toThrow(/only a kind = "anthropic" profile takes thinking/);
  });

  test("text streams; headers carry x-api-key and anthropic-version, never a bearer token; usage counts the cache", async () => {
    fake.queue(text("Hello from Claude"));
    const events = await collect(client().stream(request()));
    expect(textOf(events)).toBe("Hello from Claude");
    const end = endOf(events);
    expect(end.status).toBe("completed");
    const r = last();
    expect(r.path).toBe("/v1/messages");
    expect(r.headers["x-api-key"]).toBe(KEY);
    expect(r.headers["anthropic-version"]).toBe("2023-06-01");
    expect(r.headers.authorization).toBeUndefined();
    expect(r.body.stream).toBe(true);
    expect(r.body.max_tokens).toBe(32000);
    const c = r.cache!;
    expect(end.usage?.input_tokens).toBe(c.input_tokens + c.cache_creation_input_tokens + c.cache_read_input_tokens);
    expect(end.usage?.cached_input_tokens).toBe(c.cache_read_input_tokens);
  });

  test("parallel tool_use blocks become calls in order, their input from input_json_delta", async () => {
    fake.queue(toolCalls([{ name: "read", arguments: { path: "a.txt" }, id: "toolu_1" }, { name: "read", arguments: { path: "b.txt" }, id: "toolu_2", chunk: 2 }], { text: "Reading both." }));
    const events = await collect(client().stream(request()));
    expect(textOf(events)).toBe("Reading both.");
    expect(callsOf(events)).toEqual([
      { id: "toolu_1", name: "read", arguments: '{"path":"a.txt"}' },
      { id: "toolu_2", name: "read", arguments: '{"path":"b.txt"}' },
    ]);
    expect(endOf(events).status).toBe("completed");
  });

  test("thinking: shown as reasoning, kept with its signature, sent back unchanged within the tool-use turn", async () => {
    fake.queue(toolCalls([{ name: "read", arguments: { path: "x" }, id: "toolu_t" }], { reasoning: "Let me think about which file." }));
    const c = client({ thinking: { budget_tokens: 2048 } });
    const events = await collect(c.stream(request()));
    expect(events.filter((e) => e.type === "reasoning").map((e) => (e as { delta: string }).delta).join("")).toBe("Let me think about which file.");
    const [item] = reasoningOf(events);
    expect(item).toMatchObject({ role: "reasoning", origin: "anthropic", summary: ["Let me think about which file."] });
    expect(last().body.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    expect(endOf(events).usage?.reasoning_tokens).toBeGreaterThan(0);
    const history: HistoryItem[] = [
      { role: "user", content: "hello" },
      item!,
      { role: "assistant", content: "", toolCalls: callsOf(events) },
      { role: "tool", callId: "toolu_t", name: "read", output: "contents" },
    ];
    fake.queue(text("done"));
    const second = await collect(c.stream(request({}, history)));
    expect(endOf(second).status).toBe("completed"); // the fake refuses a thinking block whose signature does not match
    const assistant = last().body.messages[1];
    expect(assistant.content[0]).toEqual({ type: "thinking", thinking: "Let me think about which file.", signature: item!.encryptedContent });
    expect(assistant.content[1]).toMatchObject({ type: "tool_use", id: "toolu_t" });
    // An altered thinking block is refused by the API: the fake does the same, so the check above can fail.
    fake.queue(text("never"));
    const altered: ReasoningItem = { ...item!, summary: ["Something else."] };
    const bad = endOf(await collect(c.stream(request({}, [history[0]!, altered, ...history.slice(2)]))));
    expect(bad.failure?.message).toContain("Invalid `signature`");
  });

  test("a thinking block without a signature: a notice, shown but not kept", async () => {
    fake.queue(
      rawFrames(
        ["message_start", { message: { id: "msg_1", type: "message", role: "assistant", content: [], model: "m", usage: { input_tokens: 10, output_tokens: 1 } } }],
        ["content_block_start", { index: 0, content_block: { type: "thinking", thinking: "" } }],
        ["content_block_delta", { index: 0, delta: { type: "thinking_delta", thinking: "hmm" } }],
        ["content_block_stop", { index: 0 }],
        ["content_block_start", { index: 1, content_block: { type: "text", text: "" } }],
        ["content_block_delta", { index: 1, delta: { type: "text_delta", text: "ok" } }],
        ["content_block_stop", { index: 1 }],
        ["message_delta", { delta: { stop_reason: "end_turn" }, usage: { output_tokens: 3 } }],
        ["message_stop", {}],
      ),
    );
    const events = await collect(client().stream(request()));
    expect(reasoningOf(events)).toEqual([]);
    expect(events.some((e) => e.type === "notice" && e.message.includes("without a signature"))).toBe(true);
    expect(textOf(events)).toBe("ok");
  });

  test("cache_control: on the last tool, the system text and the last two user messages; never more than 4", async () => {
    fake.queue(text("ok"));
    const history: HistoryItem[] = [
      { role: "user", content: "first" },
      { role: "assistant", content: "", toolCalls: [{ id: "call_a.1", name: "read", arguments: "{" }] },
      { role: "tool", callId: "call_a.1", name: "read", output: "r1" },
      { role: "assistant", content: "so", toolCalls: [{ id: "call_b", name: "read", arguments: '{"path":"p"}' }] },
      { role: "tool", callId: "call_b", name: "read", output: "r2" },
    ];
    const tools = [1, 2, 3].map((i) => ({ name: `t${i}`, description: "d", parameters: { type: "object" } }));
    const events = await collect(client().stream(request({ tools }, history)));
    expect(endOf(events).status).toBe("completed");
    const b = last().body;
    expect(b.tools.map((t: { cache_control?: unknown }) => !!t.cache_control)).toEqual([false, false, true]);
    expect(b.system[0].cache_control).toEqual({ type: "ephemeral" });
    const marked = b.messages.flatMap((m: { content: { cache_control?: unknown }[] }, i: number) => m.content.flatMap((c, j) => (c.cache_control ? [`${i}.${j}`] : [])));
    expect(marked).toEqual(["2.0", "4.0"]);
    // A call id the API would refuse is made safe on both sides; arguments that are not JSON become {}.
    expect(b.messages[1].content[0]).toEqual({ type: "tool_use", id: "call_a_1", name: "read", input: {} });
    expect(b.messages[2].content[0].tool_use_id).toBe("call_a_1");
    const ttl = anthropicBody(profile({ prompt_cache: "1h" }), request(), "m");
    expect(ttl.system?.[0]?.cache_control).toEqual({ type: "ephemeral", ttl: "1h" });
    const off = anthropicBody(profile({ prompt_cache: "off" }), request(), "m");
    expect(JSON.stringify(off)).not.toContain("cache_control");
  });

  test("429 and 529 are retried after the server's retry-after", async () => {
    fake.queue(anthropicError(429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit", { "retry-after": "1" }), anthropicError(529, "overloaded_error", "Overloaded"), text("after waiting"));
    const t0 = Date.now();
    const events = await collect(client().stream(request()));
    const retries = retriesOf(events);
    expect(retries.map((r) => r.failure.class)).toEqual(["rate_limit", "server"]);
    expect(retries[0]!.delayMs).toBe(1000);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
    expect(textOf(events)).toBe("after waiting");
  });

  test("401 names the key's variable and never shows the key; 404 names the model", async () => {
    const bad = endOf(await collect(client({}, "sk-ant-wrong-0123456789").stream(request())));
    expect(bad.failure?.class).toBe("auth");
    expect(bad.failure?.message).toContain("ANTHROPIC_API_KEY");
    expect(bad.failure?.message).not.toContain("sk-ant-wrong");
    fake.queue(anthropicError(404, "not_found_error", "model: claude-nope"));
    const missing = endOf(await collect(client({ model: "claude-nope" }).stream(request())));
    expect(missing.failure?.class).toBe("model_not_found");
    expect(missing.failure?.message).toContain("claude-nope");
  });

  test("\"prompt is too long\" is a context overflow (the loop compacts); adaptive thinking is sent as such", async () => {
    fake.queue(anthropicError(400, "invalid_request_error", "prompt is too long: 250123 tokens > 200000 maximum"));
    const end = endOf(await collect(client().stream(request())));
    expect([end.failure?.class, end.failure?.status]).toEqual(["context_window", 400]);
    expect(end.failure?.message).toContain("[request id req_fake_");
    expect(anthropicBody(profile({ thinking: { type: "adaptive" } }), request(), "m").thinking).toEqual({ type: "adaptive" });
    const budget = anthropicBody(profile({ thinking: { budget_tokens: 40_000 } }), request(), "claude-sonnet-4-5");
    expect(budget.max_tokens).toBe(44_096); // raised above the budget when max_tokens is not set
  });

  test("a stream cut mid-answer fails as a broken stream after the text it gave", async () => {
    fake.queue(cut("partial ans"));
    const events = await collect(client({ max_retries: 0 }).stream(request()));
    expect(textOf(events)).toBe("partial ans");
    const end = endOf(events);
    expect(end.status).toBe("failed");
    expect(end.failure?.class).toBe("stream");
    expect(end.failure?.message).toContain("message_stop");
  });

  test("unknown event types are skipped and counted, not fatal; max_tokens and pause_turn are incomplete", async () => {
    const head = ["message_start", { message: { id: "m", type: "message", role: "assistant", content: [], model: "m", usage: { input_tokens: 5, output_tokens: 1 } } }] as [string, Record<string, unknown>];
    const body = (stop: string) => [
      ["content_block_start", { index: 0, content_block: { type: "text", text: "" } }],
      ["content_block_delta", { index: 0, delta: { type: "text_delta", text: "hi" } }],
      ["content_block_stop", { index: 0 }],
      ["message_delta", { delta: { stop_reason: stop }, usage: { output_tokens: 2 } }],
      ["message_stop", {}],
    ] as [string, Record<string, unknown>][];
    fake.queue(rawFrames(head, ["future_event", { x: 1 }], ["future_event", { x: 2 }], ...body("end_turn")));
    const events = await collect(client().stream(request()));
    expect(textOf(events)).toBe("hi");
    expect(endOf(events).status).toBe("completed");
    expect(events.find((e) => e.type === "notice")).toEqual({ type: "notice", message: "skipped 2 stream events of a type SCV does not know (future_event)" });
    for (const stop of ["max_tokens", "pause_turn"]) {
      fake.queue(rawFrames(head, ...body(stop)));
      const end = endOf(await collect(client().stream(request())));
      expect([end.status, end.reason]).toEqual(["incomplete", stop]);
    }
  });

  test("a refusal is marked; an error event mid-stream is classified; a non-streamed answer is read", async () => {
    fake.queue(refusal("I can't help with that."));
    const events = await collect(client().stream(request()));
    expect(events.some((e) => e.type === "refusal")).toBe(true);
    fake.queue({ kind: "mid_stream_error", text: "par", type: "overloaded_error", message: "Overloaded" });
    const over = endOf(await collect(client().stream(request())));
    expect([over.failure?.class, over.failure?.message]).toEqual(["server", "The provider had a server error: Overloaded"]);
    fake.queue(jsonAnswer({ text: "whole", calls: [{ name: "read", arguments: { path: "q" }, id: "toolu_j" }] }));
    const json = await collect(client().stream(request()));
    expect(textOf(json)).toBe("whole");
    expect(callsOf(json)).toEqual([{ id: "toolu_j", name: "read", arguments: '{"path":"q"}' }]);
  });

  test("images in a prompt and returned by tools travel as base64 image blocks", async () => {
    const dir = mkdtempSync(join(tmpdir(), "scv-anthropic-img-"));
    try {
      const file = join(dir, "a.png");
      writeFileSync(file, makePng(2, 2));
      const ref = imageRef(file);
      await prepareImages([ref]);
      const history: HistoryItem[] = [
        { role: "user", content: "look", images: [ref] },
        { role: "assistant", content: "", toolCalls: [{ id: "toolu_r", name: "read", arguments: '{"path":"a.png"}' }] },
        { role: "tool", callId: "toolu_r", name: "read", output: "[image]" },
        { role: "images", about: "read [toolu_r]", images: [ref] },
      ];
      fake.queue(text("a small gradient"));
      expect(endOf(await collect(client().stream(request({}, history)))).status).toBe("completed");
      const [first, , results] = last().body.messages;
      const data = makePng(2, 2).toString("base64");
      expect(first.content[1]).toMatchObject({ type: "image", source: { type: "base64", media_type: "image/png", data } });
      expect(results.content.map((b: { type: string }) => b.type)).toEqual(["tool_result", "text", "image"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
