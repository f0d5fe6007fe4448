// Reasoning over the protocol against the scripted endpoint: reasoning items requested, kept in place and
// replayed verbatim on every later request; summaries streamed as reasoning.delta only; effort settable per
// profile and per session; fields an endpoint rejects dropped once, with one notice.
import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Harness, startHarness } from "../fake/harness";
import { startFakeModel, text, toolCalls } from "../fake/model-server";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const rsItems = (body: any) => body.input.filter((i: any) => i.type === "reasoning");

describe("reasoning items (responses)", () => {
  test("every request asks for encrypted reasoning and replays each item in order, in place, verbatim", async () => {
    h = await startHarness();
    writeFileSync(join(h.workspace, "a.txt"), "alpha\n");
    h.fake.queue(
      toolCalls([{ name: "read", arguments: { path: "a.txt" }, id: "call_1" }], { reasoning: true }),
      text("It says alpha.", { reasoning: true }),
      toolCalls([{ name: "read", arguments: { path: "a.txt" }, id: "call_2" }], { reasoning: true, text: "Looking again." }),
      text("Still alpha.", { reasoning: true }),
    );
    const sid = await h.start();
    expect((await h.turn(sid, "read a.txt")).reply).toBe("It says alpha.");
    expect((await h.turn(sid, "and again?")).reply).toBe("Still alpha.");

    const reqs = h.fake.requests.map((r) => r.body);
    expect(reqs).toHaveLength(4);
    const issued = h.fake.reasoningIssued;
    expect(issued).toHaveLength(4);
    for (const [n, body] of reqs.entries()) {
      expect(body.include).toEqual(["reasoning.encrypted_content"]);
      // request n replays exactly the n items issued before it, with their encrypted content, in order
      expect(rsItems(body).map((i: any) => [i.id, i.encrypted_content])).toEqual(issued.slice(0, n).map((i) => [i.id, i.encrypted_content]));
    }
    // each reasoning item sits right before the output it preceded
    const input = reqs[3].input;
    const at = (pred: (i: any) => boolean) => input.findIndex(pred);
    expect(at((i: any) => i.id === issued[0]!.id) + 1).toBe(at((i: any) => i.type === "function_call" && i.call_id === "call_1"));
    expect(at((i: any) => i.id === issued[1]!.id) + 1).toBe(at((i: any) => i.role === "assistant" && JSON.stringify(i).includes("It says alpha.")));
    expect(at((i: any) => i.id === issued[2]!.id) + 1).toBe(at((i: any) => i.role === "assistant" && JSON.stringify(i).includes("Looking again.")));
  });

  test("summary text streams as reasoning.delta, never into the reply; usage reports reasoning tokens", async () => {
    h = await startHarness({ config: `reasoning_effort = "high"\nreasoning_summary = "auto"\n` });
    h.fake.queue(text("The answer is 4.", { reasoning: "Adding two and two.", usage: { input_tokens: 50, output_tokens: 30, reasoning_tokens: 22 } }));
    const sid = await h.start();
    const ended = await h.turn(sid, "2+2?");
    expect(ended.reply).toBe("The answer is 4.");
    expect(ended.usage).toEqual({ input_tokens: 50, output_tokens: 30, cached_input_tokens: 0, reasoning_tokens: 22 });
    const summary = h.events.filter((e) => e.method === "reasoning.delta").map((e) => e.params.text).join("");
    expect(summary).toBe("Adding two and two.");
    expect(h.events.filter((e) => e.method === "assistant.delta").map((e) => e.params.text).join("")).toBe("The answer is 4.");
    expect(h.fake.requests[0]!.body.reasoning).toEqual({ effort: "high", summary: "auto" });
    // the next request replays the item with its summary inside it, and no summary as message text
    h.fake.queue(text("ok"));
    await h.turn(sid, "thanks");
    const body = h.fake.requests[1]!.body;
    expect(rsItems(body)[0].summary).toEqual([{ type: "summary_text", text: "Adding two and two." }]);
    expect(body.input.filter((i: any) => i.type === "message" && JSON.stringify(i).includes("Adding two"))).toEqual([]);
  });

  test("session.start reasoning_effort overrides the profile's", async () => {
    h = await startHarness({ config: `reasoning_effort = "low"\n` });
    h.fake.queue(text("a"), text("b"));
    await h.turn(await h.start(), "x");
    expect(h.fake.requests[0]!.body.reasoning).toEqual({ effort: "low" });
    await h.request("session.start", { cwd: h.workspace, reasoning_effort: "xhigh" }).then((r) => h.turn(r.session_id, "y"));
    expect(h.fake.requests[1]!.body.reasoning).toEqual({ effort: "xhigh" });
    await expect(h.request("session.start", { cwd: h.workspace, reasoning_effort: "extreme" })).rejects.toThrow(/reasoning_effort/);
  });

  test("an endpoint that rejects include gets it dropped after the first 400, with one notice", async () => {
    const fake = await startFakeModel({ rejectFields: ["include"] });
    h = await startHarness({ fake });
    try {
      fake.queue(text("first"), text("second"));
      const sid = await h.start();
      expect((await h.turn(sid, "one")).reply).toBe("first");
      expect((await h.turn(sid, "two")).reply).toBe("second");
      const bodies = fake.requests.map((r) => r.body);
      expect(bodies.map((b) => "include" in b)).toEqual([true, false, false]);
      const notices = h.events.filter((e) => e.method === "model.notice");
      expect(notices).toHaveLength(1);
      expect(notices[0]!.params.message).toContain('"include"');
    } finally {
      await fake.close();
    }
  });

  test("an endpoint that rejects reasoning keeps include", async () => {
    const fake = await startFakeModel({ rejectFields: ["reasoning"] });
    h = await startHarness({ fake, config: `reasoning_effort = "medium"\n` });
    try {
      fake.queue(text("fine"));
      const ended = await h.turn(await h.start(), "one");
      expect(ended.status).toBe("completed");
      expect(fake.requests.map((r) => [("reasoning" in r.body), ("include" in r.body)])).toEqual([[true, true], [false, true]]);
    } finally {
      await fake.close();
    }
  });
});

describe("chat wire", () => {
  test("reasoning_effort is sent when set; reasoning_content in replies is ignored", async () => {
    h = await startHarness({ wireApi: "chat", config: `reasoning_effort = "minimal"\n` });
    h.fake.queue(text("Paris.", { reasoning: "The capital of France is Paris." }));
    const ended = await h.turn(await h.start(), "capital of France?");
    expect(ended.reply).toBe("Paris.");
    expect(h.fake.requests[0]!.body.reasoning_effort).toBe("minimal");
    expect(h.fake.requests[0]!.body.include).toBeUndefined();
    expect(h.events.some((e) => e.method === "reasoning.delta")).toBe(false);
  });
});
