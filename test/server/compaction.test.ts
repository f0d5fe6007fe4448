// Compaction on request and after an overflow compaction cannot fix; seen tool outputs cut to head and tail.
import { afterEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Harness, startHarness } from "../fake/harness";
import { startFakeModel, text, toolCalls } from "../fake/model-server";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const isSummaryRequest = (body: any) => typeof body.instructions === "string" && body.instructions.startsWith("You are compacting");

test("session.compact summarises older turns, keeps recent ones verbatim and reports it", async () => {
  // Each turn is about 1200 tokens: three stay under compact_at of 8000, and 30% of it keeps one turn verbatim.
  // The tool definitions count too (about 4,500 tokens): background commands off keeps the job tools out of them,
  // so the three turns stay under the threshold and only session.compact compacts.
  h = await startHarness({ config: `context_window = 8000\n[tools]\nmax_background_commands = 0\n` });
  const sid = await h.start();
  const pad = ` ${"(context) ".repeat(240)}`;
  h.fake.queue(text(`Noted: the deploy target is berlin-3.${pad}`), text(`Job job-7 started.${pad}`), text(`Still running.${pad}`));
  await h.turn(sid, `The deploy target is berlin-3.${pad}`);
  await h.turn(sid, `Start the tests as a job.${pad}`);
  await h.turn(sid, `How is it going?${pad}`);
  expect(h.events.some((e) => e.method === "session.compacted")).toBe(false);
  h.fake.queue(text("The user deploys to berlin-3; job-7 runs the tests and was still running."));
  const result = await h.request("session.compact", { session_id: sid });
  expect(result).toMatchObject({ compacted: true, turns: 2 });
  expect(result.tokens_after).toBeLessThan(result.tokens_before);
  const note = await h.waitFor("session.compacted");
  expect(note).toMatchObject({ session_id: sid, reason: "request", turns: 2, items: 4 });
  expect(note.turn_id).toBeUndefined();
  const summaryRequest = h.fake.requests.at(-1)!.body;
  expect(isSummaryRequest(summaryRequest)).toBe(true);
  expect(summaryRequest.tools).toBeUndefined();
  expect(JSON.stringify(summaryRequest.input)).toContain("berlin-3");
  // the next request: the summary first, then the kept turn verbatim, then the new prompt
  h.fake.queue(text("ok"));
  await h.turn(sid, "Thanks.");
  const input = h.fake.requests.at(-1)!.body.input;
  expect(JSON.stringify(input[0])).toContain("job-7 runs the tests");
  expect(input.slice(1).map((i: any) => i.content[0].text)).toEqual([`How is it going?${pad}`, `Still running.${pad}`, "Thanks."]);
});

test("session.compact with nothing older to summarise says so and changes nothing", async () => {
  h = await startHarness();
  const sid = await h.start();
  h.fake.queue(text("hi"));
  await h.turn(sid, "hello");
  expect(await h.request("session.compact", { session_id: sid })).toEqual({ compacted: false, turns: 0, tokens_before: 0, tokens_after: 0 });
  expect(h.fake.requests).toHaveLength(1);
});

test("an overflow compaction cannot fix fails the turn; the next prompt compacts first and the session answers", async () => {
  const fake = await startFakeModel({ contextWindowTokens: 4000 });
  h = await startHarness({ fake, config: `context_window = 100000\n[tools]\noutput_limit_bytes = 16384\n` });
  try {
    writeFileSync(join(h.workspace, "big.txt"), "0123456789abcdef\n".repeat(1000)); // read returns ~16 KiB = 4k tokens
    const sid = await h.start();
    fake.queue(toolCalls([{ name: "read", arguments: { path: "big.txt" } }]));
    const first = await h.turn(sid, "read big.txt");
    // the request carrying the fresh 16 KiB output overflows, and nothing before this turn can be summarised
    expect(first.status).toBe("failed");
    expect(first.error.class).toBe("context_window");
    fake.queue(text("Summary: the user had big.txt read; its output was too large."), text("Hello again."));
    const second = await h.turn(sid, "hello?");
    expect(second).toMatchObject({ status: "completed", reply: "Hello again." });
    const note = h.events.find((e) => e.method === "session.compacted")!.params;
    expect(note).toMatchObject({ reason: "overflow", turns: 1 });
    const summaryRequest = fake.requests.find((r) => isSummaryRequest(r.body))!.body;
    const transcript = JSON.stringify(summaryRequest.input);
    expect(transcript).toContain("read big.txt");
    expect(transcript).toContain("characters cut"); // the tool output reached the summariser as head and tail
  } finally {
    await fake.close();
  }
});

test("tool outputs from earlier turns are sent cut to head and tail; the current turn's in full", async () => {
  h = await startHarness({ config: `[tools]\noutput_limit_bytes = 16384\n` });
  const body = `HEAD-MARK ${"x".repeat(12000)} TAIL-MARK\n`;
  writeFileSync(join(h.workspace, "f.txt"), body);
  const sid = await h.start();
  h.fake.queue(toolCalls([{ name: "read", arguments: { path: "f.txt" } }]), text("read it"), text("ok"));
  await h.turn(sid, "read f.txt");
  const sameTurn = JSON.stringify(h.fake.requests[1]!.body.input);
  expect(sameTurn).toContain("x".repeat(12000));
  await h.turn(sid, "next");
  const later = h.fake.requests[2]!.body.input.find((i: any) => i.type === "function_call_output").output;
  expect(later).toContain("HEAD-MARK");
  expect(later).toContain("TAIL-MARK");
  expect(later).toContain("characters cut; this output was shown in full when the call ran");
  expect(later.length).toBeLessThan(4300);
});

test("session.start and session.resume say the context window the session counts with", async () => {
  h = await startHarness({ config: `context_window = 8000\n` });
  await h.request("initialize", { protocol_version: 3 });
  const started = await h.request("session.start", { cwd: h.workspace });
  expect(started.context_window).toBe(8000);
  h.fake.queue(text("ok"));
  await h.turn(started.session_id, "hello");
  await h.request("session.close", { session_id: started.session_id });
  expect((await h.request("session.resume", { session_id: started.session_id })).context_window).toBe(8000);
  await h.close();
  // Without a configured window the model family's known size is used: fake-model is unknown, so 128000.
  h = await startHarness({});
  expect((await h.start().then(() => h.request("session.start", { cwd: h.workspace }))).context_window).toBe(128000);
});
