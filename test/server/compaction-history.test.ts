// compactHistory on hand-built histories: where it splits (never between a call and its result, never between
// a reasoning item and what it preceded), what it hands the summariser, and the size estimates.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { compactHistory, estimateRequest, estimateTokens, requestView, SEEN_OUTPUT_KEEP } from "../../src/server/compaction";
import type { HistoryItem } from "../../src/provider/types";
import { startFakeModel, text, type FakeModel } from "../fake/model-server";
import { client } from "../provider/helpers";

let fake: FakeModel;
beforeAll(async () => (fake = await startFakeModel()));
afterAll(() => fake.close());

const big = (tag: string) => `${tag} ${"y".repeat(20_000)} END-${tag}`;
function turn(n: number, withReasoning = false): HistoryItem[] {
  return [
    { role: "user", content: `prompt ${n}` },
    ...(withReasoning ? [{ role: "reasoning" as const, id: `rs_${n}`, encryptedContent: `enc${n}`, summary: [] }] : []),
    { role: "assistant", content: "", toolCalls: [{ id: `call_${n}`, name: "read", arguments: "{}" }] },
    { role: "tool", callId: `call_${n}`, name: "read", output: big(`out${n}`) },
    { role: "assistant", content: `answer ${n}` },
  ];
}
const deps = (window: number, turnStart: number) => ({ model: client(fake.url, "responses"), window, turnStart, fixedTokens: 100, signal: new AbortController().signal });

test("splits at a turn or step start, keeps recent items verbatim and returns what it replaced", async () => {
  const history = [...turn(1), ...turn(2, true), ...turn(3, true)];
  const original = history.slice();
  fake.queue(text("summary of turns 1-2"));
  // cut outputs make each turn about 1100 tokens; 30% of 6000 keeps the last one
  const result = await compactHistory(history, deps(6000, history.length), "request");
  expect(result.ok).toBe(true);
  if (!result.ok) return;
  expect(history[0]).toBe(result.summary);
  expect(result.summary).toEqual({ role: "summary", content: "summary of turns 1-2", turns: 2 });
  expect([...result.replaced, ...history.slice(1)]).toEqual(original); // nothing lost, nothing reordered
  expect(history[1]).toEqual({ role: "user", content: "prompt 3" });
  const transcript = JSON.stringify(fake.requests.at(-1)!.body.input);
  expect(transcript).toContain("prompt 1");
  expect(transcript).toContain("END-out2"); // a cut output keeps its tail
  expect(transcript).not.toContain("y".repeat(2000)); // but not its bulk
});

test("inside one long turn it splits only where a step starts, keeping reasoning with its call", async () => {
  const history: HistoryItem[] = [{ role: "user", content: "one long task" }];
  for (let n = 1; n <= 4; n++) history.push(...turn(n, true).slice(1, 4)); // reasoning, call, result; no new prompt
  history.push({ role: "assistant", content: "done" });
  fake.queue(text("the task so far"));
  // each step's whole output is about 5000 tokens; 15% of 40000 keeps the last step
  const result = await compactHistory(history, deps(40_000, 0), "overflow");
  expect(result.ok).toBe(true);
  // the kept tail starts with a reasoning item that directly follows a tool result in the original
  expect(history[1]!.role).toBe("reasoning");
  const calls = new Set(history.flatMap((i) => (i.role === "assistant" ? (i.toolCalls ?? []).map((c) => c.id) : [])));
  for (const i of history) if (i.role === "tool") expect(calls.has(i.callId)).toBe(true);
});

test("nothing older than the last turn: no model call, history unchanged", async () => {
  const history: HistoryItem[] = [{ role: "user", content: big("prompt") }, { role: "assistant", content: "ok" }];
  const before = fake.requests.length;
  const result = await compactHistory(history, deps(1000, 0), "threshold");
  expect(result).toMatchObject({ ok: false });
  expect(history).toHaveLength(2);
  expect(fake.requests.length).toBe(before);
});

test("a failed summary request leaves history unchanged and says why", async () => {
  const history = [...turn(1), ...turn(2)];
  fake.queue({ kind: "http_error", status: 400, body: { error: { message: "bad", type: "invalid_request_error" } } });
  const result = await compactHistory(history, deps(8000, history.length), "request");
  expect(result).toMatchObject({ ok: false, failure: { class: "invalid_request" } });
  expect(history).toHaveLength(8);
});

test("the view cuts only earlier turns' long outputs, the same cut object each time; estimates follow the cut", () => {
  const history = [...turn(1), ...turn(2)];
  const view = requestView(history, 4);
  expect((view[2] as { output: string }).output.length).toBeLessThan(SEEN_OUTPUT_KEEP + 200);
  expect(view[6]).toBe(history[6]); // the current turn's output goes whole
  expect(requestView(history, 4)[2]).toBe(view[2]);
  // last request carried turn 1's output whole; now that it is cut, the estimate drops by the difference
  const sentWhole = history.slice(0, 4); // as sent while turn 1 was the current turn
  const state = { window: 100_000, compactAt: 0.8, last: { inputTokens: 10_000, view: sentWhole } };
  const estimate = estimateRequest(state, view, 100);
  const expected = 10_000 - estimateTokens([sentWhole[2]!]) + estimateTokens([view[2]!]) + estimateTokens(view.slice(4));
  expect(estimate).toBe(expected);
  expect(estimate).toBeLessThan(10_000 + estimateTokens(view.slice(4)) - 3000);
});

test("an item's estimate is its JSON length over four, long strings measured rather than written out", () => {
  // Every character JSON escapes, many times over, so a miscount by one for any of them shows after the division.
  const specials = Array.from({ length: 0x20 }, (_, c) => String.fromCharCode(c)).join("") + '"\\';
  const long = `${"plain text, é, 漢字, 🙂 ".repeat(2000)}${specials.repeat(3000)}\u2028\u007f`;
  const items: HistoryItem[] = [
    { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "write", arguments: JSON.stringify({ path: "a.txt", content: long }) }] },
    { role: "tool", callId: "c1", name: "write", output: long },
    { role: "user", content: `${"x".repeat(70_000)}\ud800` }, // a lone surrogate: written out as JSON writes it
  ];
  for (const item of items) expect(estimateTokens([item])).toBe(Math.ceil(JSON.stringify(item).length / 4));
});
