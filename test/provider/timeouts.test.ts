// timeout_seconds bounds only the wait for the answer to start; a stream that keeps sending is never cut, and
// one that goes silent for stream_idle_timeout_seconds is a retryable stream failure.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { stall, startFakeModel, text, type FakeModel } from "../fake/model-server";
import { client, collect, endOf, request, retriesOf, textOf, WIRES } from "./helpers";

let slow: FakeModel; // pauses between frames
let fake: FakeModel;
beforeAll(async () => {
  slow = await startFakeModel({ frameDelayMs: 50 });
  fake = await startFakeModel();
});
afterAll(async () => {
  await slow.close();
  await fake.close();
});

describe.each(WIRES)("timeouts (%s)", (wire) => {
  test("a stream that keeps sending for longer than timeout_seconds completes", async () => {
    const long = "a steady answer that arrives in many small pieces ".repeat(3); // ~40 frames x 50 ms = 2 s
    slow.queue(text(long));
    const started = performance.now();
    const events = await collect(client(slow.url, wire, { timeout_seconds: 1, stream_idle_timeout_seconds: 0.5, max_retries: 0 }).stream(request()));
    expect(performance.now() - started).toBeGreaterThan(1500); // really outlived timeout_seconds
    expect(endOf(events).status).toBe("completed");
    expect(textOf(events)).toBe(long);
  });

  test("a stream silent past stream_idle_timeout_seconds is retried, then fails saying it went idle", async () => {
    fake.queue(stall(), stall());
    const before = fake.requests.length;
    const started = performance.now();
    const events = await collect(client(fake.url, wire, { stream_idle_timeout_seconds: 0.3, max_retries: 1 }).stream(request()));
    const elapsed = performance.now() - started;
    expect(fake.requests.length - before).toBe(2);
    expect(retriesOf(events)).toHaveLength(1);
    expect(retriesOf(events)[0]!.failure.class).toBe("stream");
    const end = endOf(events);
    expect(end).toMatchObject({ status: "failed", failure: { class: "stream" } });
    expect(end.failure?.message).toContain("sent nothing for 0.3 s (stream_idle_timeout_seconds = 0.3)");
    expect(end.failure?.message).toContain("gave up after 1 retry");
    expect(elapsed).toBeGreaterThanOrEqual(550);
    expect(elapsed).toBeLessThan(15_000); // the two 0.3 s idle limits, not the stalls (which never end)
  });

  test("a stall retried into a healthy stream succeeds", async () => {
    fake.queue(stall(), text("back again"));
    const events = await collect(client(fake.url, wire, { stream_idle_timeout_seconds: 0.2, max_retries: 1 }).stream(request()));
    expect(retriesOf(events)).toHaveLength(1);
    expect(textOf(events)).toBe("back again");
    expect(endOf(events).status).toBe("completed");
  });
});
