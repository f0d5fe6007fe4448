// The fake endpoint itself: wire framing, request invariants, running out of script, standalone mode.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeModel, text, toolCalls, type FakeModel } from "../fake/model-server";
import { callsOf, client, collect, endOf, request, retriesOf, textOf } from "./helpers";

let fake: FakeModel;
beforeAll(async () => (fake = await startFakeModel()));
afterAll(() => fake.close());

const FAKE_MAIN = join(import.meta.dir, "../fake/model-server.ts");
const post = (path: string, body: unknown) =>
  fetch(`${fake.url}${path}`, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" }, proxy: false });

describe("framing", () => {
  test("Responses: event/data pairs, sequence numbers from 0, created..completed, no [DONE]", async () => {
    fake.queue(toolCalls([{ name: "read", arguments: { path: "a" } }], { text: "hi" }));
    const res = await post("/responses", { model: "m", input: [], stream: true, store: false });
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const blocks = (await res.text()).trim().split("\n\n");
    const events = blocks.map((b) => {
      const [ev, data] = b.split("\n");
      expect(ev).toMatch(/^event: /);
      const payload = JSON.parse(data!.replace(/^data: /, ""));
      expect(payload.type).toBe(ev!.slice("event: ".length));
      return payload;
    });
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events.slice(0, 2).map((e) => e.type)).toEqual(["response.created", "response.in_progress"]);
    expect(events.at(-1).type).toBe("response.completed");
    expect(events.at(-1).response.usage).toMatchObject({ input_tokens: expect.any(Number), input_tokens_details: { cached_tokens: 0 } });
    expect(events.map((e) => e.type)).toContain("response.function_call_arguments.delta");
  });

  test("Chat: data-only chunks, role chunk first, usage chunk only with include_usage, then [DONE]", async () => {
    fake.queue(text("abc"), text("abc"));
    for (const includeUsage of [true, false]) {
      const res = await post("/chat/completions", { model: "m", messages: [], stream: true, ...(includeUsage ? { stream_options: { include_usage: true } } : {}) });
      const blocks = (await res.text()).trim().split("\n\n");
      expect(blocks.every((b) => b.startsWith("data: "))).toBe(true);
      expect(blocks.at(-1)).toBe("data: [DONE]");
      const chunks = blocks.slice(0, -1).map((b) => JSON.parse(b.slice(6)));
      expect(chunks[0].choices[0].delta).toEqual({ role: "assistant", content: "", refusal: null });
      const usage = chunks.filter((c) => c.choices.length === 0);
      expect(usage.length).toBe(includeUsage ? 1 : 0);
    }
  });
});

describe("request invariants", () => {
  test("Responses: an output without its call, and a call without its output, are rejected", async () => {
    fake.queue(text("kept"));
    const orphanOutput = await post("/responses", { model: "m", stream: true, input: [{ type: "function_call_output", call_id: "call_x", output: "o" }] });
    expect(orphanOutput.status).toBe(400);
    expect(((await orphanOutput.json()) as any).error.message).toBe("No tool call found for function call output with call_id call_x.");
    const orphanCall = await post("/responses", { model: "m", stream: true, input: [{ type: "function_call", call_id: "call_y", name: "n", arguments: "{}" }] });
    expect(((await orphanCall.json()) as any).error.message).toBe("No tool output found for function call call_y.");
    expect(fake.pending()).toBe(1); // rejected requests consume no reply
    fake.clear();
  });

  test("Chat: tool messages must answer the preceding assistant tool_calls", async () => {
    const call = { id: "call_1", type: "function", function: { name: "n", arguments: "{}" } };
    const stray = await post("/chat/completions", { model: "m", stream: true, messages: [{ role: "tool", tool_call_id: "call_1", content: "x" }] });
    expect(((await stray.json()) as any).error.message).toContain("must be a response to a preceeding message with 'tool_calls'");
    const missing = await post("/chat/completions", { model: "m", stream: true, messages: [{ role: "assistant", content: null, tool_calls: [call] }, { role: "user", content: "?" }] });
    expect(((await missing.json()) as any).error.message).toContain("did not have response messages: call_1");
  });

  test("the client sees a rejected history as invalid_request", async () => {
    const events = await collect(client(fake.url, "responses").stream(request({}, [{ role: "tool", callId: "call_z", name: "read", output: "x" }])));
    expect(endOf(events).failure).toMatchObject({ class: "invalid_request", status: 400 });
    expect(endOf(events).failure?.message).toContain("call_z");
  });

  test("an unknown path is a 404 in the error envelope", async () => {
    const res = await post("/embeddings", {});
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).error.message).toBe("Invalid URL (POST /v1/embeddings)");
  });
});

test("an empty script answers a clear 500 that the client does not retry", async () => {
  const before = fake.requests.length;
  const events = await collect(client(fake.url, "chat", { max_retries: 3 }).stream(request()));
  expect(fake.requests.length - before).toBe(1);
  expect(retriesOf(events)).toHaveLength(0);
  expect(endOf(events).failure).toMatchObject({ class: "server", status: 500 });
  expect(endOf(events).failure?.message).toContain("the script ran out of replies");
});

describe("standalone process", () => {
  const dir = mkdtempSync(join(tmpdir(), "scv-fake-model-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("--script serves the queued replies and prints the base URL first", async () => {
    const script = join(dir, "script.json");
    const log = join(dir, "requests.jsonl");
    writeFileSync(script, JSON.stringify({ replies: [{ kind: "tool_calls", calls: [{ name: "read", arguments: { path: "README.md" } }] }, { kind: "text", text: "Done reading." }] }));
    const proc = Bun.spawn([process.execPath, FAKE_MAIN, "--script", script, "--log", log], { stdout: "pipe", stderr: "pipe" });
    try {
      const reader = proc.stdout.getReader();
      let out = "";
      while (!out.includes("\n")) {
        const { value, done } = await reader.read();
        if (done) break;
        out += new TextDecoder().decode(value);
      }
      const url = out.split("\n")[0]!;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      const first = await collect(client(url, "responses").stream(request()));
      expect(callsOf(first)).toMatchObject([{ name: "read", arguments: '{"path":"README.md"}' }]);
      const second = await collect(client(url, "chat").stream(request()));
      expect(textOf(second)).toBe("Done reading.");
      const logged = readFileSync(log, "utf8").trim().split("\n").map((l) => JSON.parse(l));
      expect(logged.map((r) => r.path)).toEqual(["/v1/responses", "/v1/chat/completions"]);
      expect(JSON.stringify(logged)).not.toContain("sk-proj-TESTKEY"); // the log redacts Authorization
    } finally {
      proc.kill();
      await proc.exited;
    }
  });

  test("a bad script is refused with the reason", async () => {
    const script = join(dir, "bad.json");
    writeFileSync(script, JSON.stringify([{ kind: "text" }]));
    const proc = Bun.spawn([process.execPath, FAKE_MAIN, "--script", script], { stdout: "pipe", stderr: "pipe" });
    expect(await proc.exited).toBe(2);
    expect(await new Response(proc.stderr).text()).toContain("cannot use script");
  });
});

describe("long-session checks", () => {
  test("replayed reasoning items must be ones it sent, intact and in order", async () => {
    fake.queue(text("a", { reasoning: true }), text("b", { reasoning: true }));
    await post("/responses", { model: "m", input: [], stream: true, store: false }).then((r) => r.text());
    await post("/responses", { model: "m", input: [], stream: true, store: false }).then((r) => r.text());
    const [first, second] = fake.reasoningIssued.slice(-2);
    const item = (r: { id: string; encrypted_content: string }, content = r.encrypted_content) => ({ type: "reasoning", id: r.id, summary: [], encrypted_content: content });
    const answer = async (input: unknown[]) => {
      const res = await post("/responses", { model: "m", input, stream: true, store: false });
      return { status: res.status, text: await res.text() };
    };
    expect(await answer([item(first!, "gAAAA-tampered")])).toMatchObject({ status: 400, text: expect.stringContaining("could not be verified") });
    expect(await answer([item(second!), item(first!)])).toMatchObject({ status: 400, text: expect.stringContaining("out of order") });
    expect(await answer([item({ id: "rs_unknown", encrypted_content: "x" })])).toMatchObject({ status: 400, text: expect.stringContaining("not found") });
    fake.queue(text("ok"));
    expect((await answer([item(first!), item(second!)])).status).toBe(200);
  });

  test("a context window: a larger request gets context_length_exceeded; a field it does not know gets a 400 naming it", async () => {
    const small = await startFakeModel({ contextWindowTokens: 100, rejectFields: ["include"] });
    try {
      const send = (body: object) => fetch(`${small.url}/responses`, { method: "POST", body: JSON.stringify(body), proxy: false });
      const big = await send({ model: "m", input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "x".repeat(1000) }] }], stream: true });
      expect(big.status).toBe(400);
      expect(((await big.json()) as any).error).toMatchObject({ code: "context_length_exceeded" });
      const rejected = await send({ model: "m", input: [], stream: true, include: ["reasoning.encrypted_content"] });
      expect(rejected.status).toBe(400);
      expect(((await rejected.json()) as any).error).toMatchObject({ param: "include", code: "unknown_parameter" });
    } finally {
      await small.close();
    }
  });
});
