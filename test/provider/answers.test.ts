// Answers in the shapes real endpoints send besides a plain stream: a refusal only in the finished item, and one
// JSON body from an endpoint that ignored `stream: true`, replayed as the same events a stream gives.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { jsonAnswer, refusal, startFakeModel, type FakeModel } from "../fake/model-server";
import { callsOf, client, collect, endOf, refusalOf, request, textOf, WIRES } from "./helpers";

let fake: FakeModel;
beforeAll(async () => (fake = await startFakeModel()));
afterAll(() => fake.close());
afterEach(() => fake.clear());

test("a refusal sent only in output_item.done still reaches the caller (responses)", async () => {
  fake.queue(refusal("I can't help with that.", { only_done: true }));
  const events = await collect(client(fake.url, "responses").stream(request()));
  expect(refusalOf(events)).toBe("I can't help with that.");
  expect(endOf(events).status).toBe("completed");
});

test("a streamed refusal is not repeated from the finished item (responses)", async () => {
  fake.queue(refusal("No."));
  const events = await collect(client(fake.url, "responses").stream(request()));
  expect(refusalOf(events)).toBe("No.");
});

describe.each(WIRES)("a single JSON answer (%s)", (wire) => {
  test("text with usage", async () => {
    fake.queue(jsonAnswer({ text: "Olá!", usage: { input_tokens: 20, output_tokens: 3, reasoning_tokens: 1 } }));
    const events = await collect(client(fake.url, wire).stream(request()));
    expect(textOf(events)).toBe("Olá!");
    expect(endOf(events)).toEqual({
      type: "end",
      status: "completed",
      usage: { input_tokens: 20, output_tokens: 3, cached_input_tokens: 0, reasoning_tokens: 1 },
    });
  });

  test("tool calls", async () => {
    fake.queue(jsonAnswer({ calls: [{ name: "read", arguments: { path: "a" }, id: "call_a" }, { name: "read", arguments: { path: "b" }, id: "call_b" }] }));
    const events = await collect(client(fake.url, wire).stream(request()));
    expect(callsOf(events)).toEqual([
      { id: "call_a", name: "read", arguments: '{"path":"a"}' },
      { id: "call_b", name: "read", arguments: '{"path":"b"}' },
    ]);
    expect(endOf(events).status).toBe("completed");
  });

  test("a refusal", async () => {
    fake.queue(jsonAnswer({ refusal: "I won't." }));
    const events = await collect(client(fake.url, wire).stream(request()));
    expect(refusalOf(events)).toBe("I won't.");
    expect(textOf(events)).toBe("");
  });
});
