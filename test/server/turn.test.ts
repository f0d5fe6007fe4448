// The turn loop over the in-process protocol against the fake model endpoint (real HTTP on 127.0.0.1).
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { errorReply, hang, incomplete, refusal, text, toolCalls } from "../fake/model-server";
import { type Harness, startHarness } from "../fake/harness";

// Turns here run real sandboxed commands (three in a row in one test): bun's 5 s default is too tight under load.
setDefaultTimeout(30_000);

let h: Harness;
afterEach(async () => {
  await h?.close();
});

function lastInput(h: Harness) {
  return h.fake.requests[h.fake.requests.length - 1]!.body;
}

describe.each(["responses", "chat"] as const)("%s wire API", (wireApi) => {
  test("a text turn streams deltas and ends completed with usage", async () => {
    h = await startHarness({ wireApi });
    h.fake.queue(text("Hello there, friend.", { usage: { input_tokens: 12, output_tokens: 4, cached_tokens: 3 } }));
    const sid = await h.start();
    const ended = await h.turn(sid, "hi");
    expect(ended).toMatchObject({ status: "completed", reply: "Hello there, friend.", origin: { kind: "user" } });
    expect(ended.usage).toEqual({ input_tokens: 12, output_tokens: 4, cached_input_tokens: 3, reasoning_tokens: 0 });
    const deltas = h.events.filter((e) => e.method === "assistant.delta").map((e) => e.params.text);
    expect(deltas.join("")).toBe("Hello there, friend.");
    const methods = h.events.map((e) => e.method);
    expect(methods[0]).toBe("turn.started");
    expect(methods[methods.length - 1]).toBe("turn.ended");
  });

  test("a read tool call runs and its result goes back to the model", async () => {
    h = await startHarness({ wireApi });
    writeFileSync(join(h.workspace, "notes.txt"), "the secret word is pumpkin\n");
    h.fake.queue(toolCalls([{ name: "read", arguments: { path: "notes.txt" } }]), text("It says pumpkin."));
    const sid = await h.start();
    const ended = await h.turn(sid, "what does notes.txt say?");
    expect(ended.status).toBe("completed");
    expect(ended.reply).toBe("It says pumpkin.");
    const completed = await h.waitFor("tool.completed");
    expect(completed).toMatchObject({ tool: "read", ok: true });
    expect(JSON.stringify(lastInput(h))).toContain("pumpkin");
    // read is read_only: no approval was asked
    expect(h.events.some((e) => e.method === "approval.requested")).toBe(false);
  });
});

describe("approvals", () => {
  test("on-risk asks the client for a write; approving runs it", async () => {
    h = await startHarness();
    h.fake.queue(toolCalls([{ name: "write", arguments: { path: "out.txt", content: "yes\n", mode: "create" } }]), text("done"));
    const sid = await h.start();
    const { turn_id } = await h.request("turn.start", { session_id: sid, prompt: "write it" });
    const asked = await h.waitFor("approval.requested");
    expect(asked).toMatchObject({ tool: "write", risk: "filesystem", workspace: h.workspace });
    expect(asked.summary).toContain("out.txt");
    await h.request("approval.resolve", { session_id: sid, approval_id: asked.approval_id, approved: true });
    const ended = await h.waitFor("turn.ended", (p) => p.turn_id === turn_id);
    expect(ended.status).toBe("completed");
    expect(readFileSync(join(h.workspace, "out.txt"), "utf8")).toBe("yes\n");
  });

  test("a denial is a result the model sees, and nothing is written", async () => {
    h = await startHarness();
    h.fake.queue(toolCalls([{ name: "write", arguments: { path: "out.txt", content: "no\n", mode: "create" } }]), text("ok, not written"));
    const sid = await h.start();
    const { turn_id } = await h.request("turn.start", { session_id: sid, prompt: "write it" });
    const asked = await h.waitFor("approval.requested");
    await h.request("approval.resolve", { session_id: sid, approval_id: asked.approval_id, approved: false });
    await h.waitFor("turn.ended", (p) => p.turn_id === turn_id);
    expect(existsSync(join(h.workspace, "out.txt"))).toBe(false);
    expect(JSON.stringify(lastInput(h))).toContain("the user denied this request");
  });

  test('policy "never" denies without asking', async () => {
    h = await startHarness({ config: `[tools]\napproval_policy = "never"\n` });
    h.fake.queue(toolCalls([{ name: "write", arguments: { path: "out.txt", content: "x", mode: "create" } }]), text("denied"));
    const sid = await h.start({ auto_approve: true });
    await h.turn(sid, "write it");
    expect(h.events.some((e) => e.method === "approval.requested")).toBe(false);
    expect(existsSync(join(h.workspace, "out.txt"))).toBe(false);
    expect(JSON.stringify(lastInput(h))).toContain("never");
  });

  test("auto_approve runs a write unasked", async () => {
    h = await startHarness();
    h.fake.queue(toolCalls([{ name: "write", arguments: { path: "out.txt", content: "auto", mode: "create" } }]), text("written"));
    const sid = await h.start({ auto_approve: true });
    await h.turn(sid, "write it");
    expect(h.events.some((e) => e.method === "approval.requested")).toBe(false);
    expect(readFileSync(join(h.workspace, "out.txt"), "utf8")).toBe("auto");
  });
});

describe("tool calls run one after another", () => {
  test("parallel calls from one answer run serially, in the order the model gave them", async () => {
    h = await startHarness();
    const step = (name: string) => ({ name: "bash", arguments: { command: `echo start-${name} >> order.log; sleep 0.3; echo end-${name} >> order.log` } });
    h.fake.queue(toolCalls([step("a"), step("b"), step("c")]), text("done"));
    const sid = await h.start({ auto_approve: true });
    // The whole turn.ended is compared, so a failure shows its error.
    expect(await h.turn(sid, "run three", 80_000)).toMatchObject({ status: "completed" });
    // Each call's own result beside the order, so an order that is off shows what each call said (a failure here
    // once came with no cause to read).
    const results = h.events.filter((e) => e.method === "tool.completed").map((e) => (e.params.ok && e.params.output.startsWith("exit 0\n") ? "exit 0" : e.params.output));
    const log = join(h.workspace, "order.log");
    const order = existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : [];
    expect({ order, results }).toEqual({ order: ["start-a", "end-a", "start-b", "end-b", "start-c", "end-c"], results: ["exit 0", "exit 0", "exit 0"] });
    // Three sandboxed calls, each starting the sandbox's launcher from source: 9-15 s at load 20 on 2 cores.
  }, 90_000);
});

describe("what clients are told about each call", () => {
  test("tool.started carries the label and bounded, redacted arguments; tool.completed the outcome", async () => {
    h = await startHarness();
    const command = "echo hi # API_KEY=sk-abcdefghijklmnopqrstuv";
    const content = "x".repeat(5000);
    h.fake.queue(
      toolCalls([
        { name: "bash", arguments: { command } },
        { name: "write", arguments: { path: "big.txt", content, mode: "create" } },
      ]),
      text("done"),
    );
    const sid = await h.start({ auto_approve: true });
    await h.turn(sid, "go");
    const started = h.events.filter((e) => e.method === "tool.started").map((e) => e.params);
    expect(started[0]).toMatchObject({ tool: "bash", label: "$ echo hi # API_KEY=…", arguments: { command: "echo hi # API_KEY=…" } });
    expect(started[1]).toMatchObject({ tool: "write", label: "write big.txt", arguments: { path: "big.txt", mode: "create" } });
    expect(started[1].arguments.content).toBe(`${"x".repeat(2000)}… [5000 characters]`);
    const completed = h.events.filter((e) => e.method === "tool.completed").map((e) => e.params);
    expect(completed[0].display).toMatch(/^exit 0, \d+\.\d s$/);
    expect(completed[1].display).toBe("+1 -0 lines");
    expect(JSON.stringify(h.events)).not.toContain("sk-abcdefghijklmnopqrstuv");
  });

  test("a denied call is marked denied, not just failed", async () => {
    // `touch` is not read-only, so the command guard leaves the call to approval (the sandbox does not run it unasked).
    h = await startHarness({ config: "[sandbox]\nauto_run = false\n" });
    h.fake.queue(toolCalls([{ name: "bash", arguments: { command: "touch never-made" } }]), text("ok"));
    const sid = await h.start();
    const { turn_id } = await h.request("turn.start", { session_id: sid, prompt: "run" });
    const asked = await h.waitFor("approval.requested");
    expect(asked.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    await h.request("approval.resolve", { session_id: sid, approval_id: asked.approval_id, approved: false });
    await h.waitFor("turn.ended", (p) => p.turn_id === turn_id);
    expect(h.events.find((e) => e.method === "tool.completed")!.params).toMatchObject({ ok: false, denied: true });
  });

  test("identical calls share an approval fingerprint; different arguments do not", async () => {
    h = await startHarness({ config: "[sandbox]\nauto_run = false\n" });
    const call = (command: string) => toolCalls([{ name: "bash", arguments: { command } }]);
    h.fake.queue(call("touch f"), call("touch f"), call("touch f g"), text("ok"));
    const sid = await h.start();
    const { turn_id } = await h.request("turn.start", { session_id: sid, prompt: "run" });
    const prints: string[] = [];
    for (let i = 0; i < 3; i++) {
      const asked = await h.waitFor("approval.requested", (p) => !prints.includes(p.approval_id));
      prints.push(asked.approval_id);
      await h.request("approval.resolve", { session_id: sid, approval_id: asked.approval_id, approved: false });
    }
    await h.waitFor("turn.ended", (p) => p.turn_id === turn_id);
    const f = h.events.filter((e) => e.method === "approval.requested").map((e) => e.params.fingerprint);
    expect(f[0]).toBe(f[1]);
    expect(f[2]).not.toBe(f[0]);
  });

  test("each provider retry is a model.retrying notification", async () => {
    h = await startHarness({ maxRetries: 2 });
    h.fake.queue(errorReply("rate_limit", { "retry-after-ms": "20" }), errorReply("overloaded", { "retry-after-ms": "20" }), text("finally"));
    const sid = await h.start();
    const ended = await h.turn(sid, "hi");
    expect(ended.status).toBe("completed");
    const retries = h.events.filter((e) => e.method === "model.retrying").map((e) => e.params);
    expect(retries).toEqual([
      expect.objectContaining({ attempt: 1, max_retries: 2, delay_ms: 20, error: expect.objectContaining({ class: "rate_limit", status: 429 }) }),
      expect.objectContaining({ attempt: 2, max_retries: 2, delay_ms: 20, error: expect.objectContaining({ status: 503 }) }),
    ]);
  });
});

describe("bad tool calls become results the model reads", () => {
  test("invalid arguments, invalid JSON and an unknown tool", async () => {
    h = await startHarness();
    h.fake.queue(
      toolCalls([
        { name: "read", arguments: { path: 42 } },
        { name: "read", arguments: "{not json" },
        { name: "teleport", arguments: {} },
      ]),
      text("sorry"),
    );
    const sid = await h.start();
    const ended = await h.turn(sid, "go");
    expect(ended.status).toBe("completed");
    const outputs = h.events.filter((e) => e.method === "tool.completed").map((e) => e.params);
    expect(outputs.map((o) => o.ok)).toEqual([false, false, false]);
    expect(outputs[0].output).toContain("invalid arguments");
    expect(outputs[1].output).toContain("not valid JSON");
    expect(outputs[2].output).toContain('unknown tool "teleport"');
    expect(h.events.some((e) => e.method === "approval.requested")).toBe(false);
  });
});

describe("turn control", () => {
  test("turn.cancel stops a hanging model stream", async () => {
    h = await startHarness();
    h.fake.queue(hang("partial "));
    const sid = await h.start();
    const { turn_id } = await h.request("turn.start", { session_id: sid, prompt: "wait" });
    await h.waitFor("assistant.delta");
    expect((await h.request("turn.cancel", { session_id: sid })).cancelled).toBe(true);
    const ended = await h.waitFor("turn.ended", (p) => p.turn_id === turn_id);
    expect(ended.status).toBe("cancelled");
  });

  test("a second prompt queues behind the running turn", async () => {
    h = await startHarness();
    h.fake.queue(text("first"), text("second"));
    const sid = await h.start();
    const a = await h.request("turn.start", { session_id: sid, prompt: "one" });
    const b = await h.request("turn.start", { session_id: sid, prompt: "two" });
    expect(a.queued).toBe(false);
    expect(b.queued).toBe(true);
    const endB = await h.waitFor("turn.ended", (p) => p.turn_id === b.turn_id);
    expect(endB.reply).toBe("second");
    const order = h.events.filter((e) => e.method === "turn.ended").map((e) => e.params.turn_id);
    expect(order).toEqual([a.turn_id, b.turn_id]);
    // history carried over: the second request replays the first exchange
    expect(JSON.stringify(lastInput(h))).toContain("first");
  });

  test("a provider failure ends the turn failed with its class, never the key", async () => {
    h = await startHarness({ config: `api_key = "sk-test-abcdefghijklmnop"\n` });
    h.fake.queue(errorReply("auth"));
    const sid = await h.start();
    const ended = await h.turn(sid, "hi");
    expect(ended.status).toBe("failed");
    expect(ended.error.class).toBe("auth");
    expect(JSON.stringify(h.events)).not.toContain("sk-test-abcdefghijklmnop");
  });

  test("the step bound ends a turn that never stops calling tools", async () => {
    h = await startHarness({ config: `[tools]\nmax_steps = 2\n` });
    writeFileSync(join(h.workspace, "a.txt"), "a");
    h.fake.queue(toolCalls([{ name: "read", arguments: { path: "a.txt" } }]), toolCalls([{ name: "read", arguments: { path: "a.txt" } }]));
    const sid = await h.start();
    const ended = await h.turn(sid, "loop");
    expect(ended.status).toBe("failed");
    expect(ended.error.class).toBe("step_limit");
  });

  test("a tool-free session offers no tools", async () => {
    h = await startHarness();
    h.fake.queue(text("just text"));
    await h.request("initialize", { protocol_version: 3 });
    const r = await h.request("session.start", { cwd: h.workspace, tools: false });
    expect(r.tools).toEqual([]);
    await h.turn(r.session_id, "hi");
    const body = lastInput(h);
    expect(body.tools ?? []).toEqual([]);
  });
});

test("argumentsForDisplay masks values under credential names only", async () => {
  const { argumentsForDisplay } = await import("../../src/tools/tool");
  const shown = argumentsForDisplay({ api_key: "abc", auth_token: "def", Password: "ghi", keywords: "cats", max_tokens: "5", nested: { secret: "x", path: "a/b" } });
  expect(shown).toEqual({ api_key: "…", auth_token: "…", Password: "…", keywords: "cats", max_tokens: "5", nested: { secret: "…", path: "a/b" } });
});

test("argumentsForDisplay masks a long string's shown part, a credential across the cut too, and counts every character", async () => {
  const { argumentsForDisplay } = await import("../../src/tools/tool");
  const key = "sk-abcdefghijklmnopqrstuv";
  const content = `${"x".repeat(1990)} ${key} ${"y".repeat(1_000_000)}`;
  const shown = argumentsForDisplay({ content }).content as string;
  expect(shown).toBe(`${"x".repeat(1990)} … ${"y".repeat(7)}… [${content.length} characters]`);
});

describe("refusals and incomplete answers", () => {
  test("turn.ended says a reply was a refusal, even one sent only in the finished item", async () => {
    h = await startHarness();
    h.fake.queue(refusal("I can't do that.", { only_done: true }));
    const sid = await h.start();
    const ended = await h.turn(sid, "do the bad thing");
    expect(ended).toMatchObject({ status: "completed", reply: "I can't do that.", refusal: true });
  });

  test.each(["max_output_tokens", "content_filter"] as const)("turn.ended carries incomplete_reason %s", async (reason) => {
    h = await startHarness({ wireApi: reason === "content_filter" ? "chat" : "responses" });
    h.fake.queue(incomplete("half an ans", reason));
    const sid = await h.start();
    const ended = await h.turn(sid, "long answer please");
    expect(ended).toMatchObject({ status: "failed", reply: "half an ans", incomplete_reason: reason, error: { class: "incomplete" } });
    expect(ended.error.message).toContain(reason);
    expect(ended.refusal).toBeUndefined();
  });
});
