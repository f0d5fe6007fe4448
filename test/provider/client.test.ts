// The client's promises over real HTTP: failure classes, bounded retries with backoff and retry-after,
// cancellation, timeouts, no throwing, no key in any message, and no proxy from the environment.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { createModelClient } from "../../src/provider/client";
import type { FailureClass } from "../../src/provider/types";
import { cut, ERROR_BODIES, errorReply, hang, httpError, midStreamError, startFakeModel, text, type ErrorName, type FakeModel } from "../fake/model-server";
import { client, collect, endOf, profile, request, retriesOf, TEST_KEY, textOf, WIRES } from "./helpers";

let fake: FakeModel;
beforeAll(async () => (fake = await startFakeModel()));
afterAll(() => fake.close());
afterEach(() => fake.clear()); // leftovers from one test must not answer the next

const EXPECTED: Record<ErrorName, { cls: FailureClass; retried: boolean }> = {
  auth: { cls: "auth", retried: false },
  forbidden: { cls: "forbidden", retried: false },
  model_not_found: { cls: "model_not_found", retried: false },
  rate_limit: { cls: "rate_limit", retried: true },
  quota: { cls: "quota", retried: false },
  credits: { cls: "quota", retried: false },
  context_window: { cls: "context_window", retried: false },
  invalid_request: { cls: "invalid_request", retried: false },
  server: { cls: "server", retried: true },
  overloaded: { cls: "server", retried: true },
};

describe.each(WIRES)("HTTP error classes (%s)", (wire) => {
  for (const name of Object.keys(ERROR_BODIES) as ErrorName[]) {
    const { cls, retried } = EXPECTED[name];
    test(`${name} -> ${cls}, ${retried ? "retried up to max_retries" : "not retried"}`, async () => {
      const before = fake.requests.length;
      fake.queue(errorReply(name), errorReply(name), errorReply(name));
      const events = await collect(client(fake.url, wire, { max_retries: 2 }).stream(request()));
      const end = endOf(events);
      expect(end.status).toBe("failed");
      expect(end.failure?.class).toBe(cls);
      expect(end.failure?.status).toBe(ERROR_BODIES[name].status);
      expect(fake.requests.length - before).toBe(retried ? 3 : 1);
      expect(retriesOf(events)).toHaveLength(retried ? 2 : 0);
      if (retried) expect(end.failure?.message).toContain("gave up after 2 retries");
      expect(end.failure?.message).toContain("[request id req_fake_");
      expect(JSON.stringify(events)).not.toContain("c66a"); // the echoed partial key of the auth body
    });
  }
});

describe.each(WIRES)("retries (%s)", (wire) => {
  test("retry-after-ms is honoured, then the retry succeeds", async () => {
    fake.queue(httpError(429, { error: { message: "slow down", type: "requests", code: "rate_limit_exceeded" } }, { "retry-after-ms": "60" }), text("after wait"));
    const started = performance.now();
    const events = await collect(client(fake.url, wire).stream(request()));
    expect(performance.now() - started).toBeGreaterThanOrEqual(55);
    expect(retriesOf(events)).toEqual([{ type: "retry", attempt: 1, maxRetries: 3, delayMs: 60, failure: expect.objectContaining({ class: "rate_limit", status: 429 }) }]);
    expect(textOf(events)).toBe("after wait");
    expect(endOf(events).status).toBe("completed");
  });

  test("retry-after in seconds and 'try again in Nms' text; long waits are capped", async () => {
    fake.queue(
      httpError(429, { error: { message: "busy", code: "rate_limit_exceeded" } }, { "retry-after": "0.05" }),
      httpError(429, { error: { message: "Rate limit reached. Please try again in 28ms. Visit x.", code: "rate_limit_exceeded" } }),
      httpError(503, "overloaded", { "retry-after": "3600" }),
      text("ok"),
    );
    const events = await collect(client(fake.url, wire, { max_retries: 3 }).stream(request()));
    expect(retriesOf(events).map((r) => r.delayMs)).toEqual([50, 28, 300]);
    expect(endOf(events).status).toBe("completed");
  });

  test("exponential backoff with bounded jitter, and retries are bounded by max_retries", async () => {
    for (let i = 0; i < 5; i++) fake.queue(errorReply("server"));
    const c = createModelClient(profile(fake.url, wire, { max_retries: 4 }), {
      version: "t",
      retry: { baseDelayMs: 4, maxDelayMs: 12 },
      random: () => 0.999999,
    });
    const events = await collect(c.stream(request()));
    expect(retriesOf(events).map((r) => [r.attempt, r.delayMs])).toEqual([[1, 4], [2, 8], [3, 12], [4, 12]]);
    expect(endOf(events).failure?.class).toBe("server");
    expect(fake.pending()).toBe(0);
  });

  test("a quota error is never retried, even with retries left", async () => {
    fake.queue(errorReply("credits"), text("never sent"));
    const events = await collect(client(fake.url, wire, { max_retries: 5 }).stream(request()));
    expect(endOf(events).failure?.class).toBe("quota");
    expect(retriesOf(events)).toHaveLength(0);
    expect(fake.pending()).toBe(1);
  });

  test("a stream cut before any output is retried; after max_retries it ends as a stream failure", async () => {
    fake.queue(cut(), cut(), cut());
    const events = await collect(client(fake.url, wire, { max_retries: 2 }).stream(request()));
    expect(retriesOf(events).map((r) => r.failure.class)).toEqual(["stream", "stream"]);
    expect(endOf(events)).toMatchObject({ status: "failed", failure: { class: "stream" } });
    expect(endOf(events).failure?.message).toContain("gave up after 2 retries");
  });

  test("a cut stream is retried transparently when the next attempt succeeds", async () => {
    fake.queue(cut(), text("second time"));
    const events = await collect(client(fake.url, wire).stream(request()));
    expect(events.map((e) => e.type)).toContain("retry");
    expect(textOf(events)).toBe("second time");
    expect(endOf(events).status).toBe("completed");
  });

  test("no retry once output reached the caller", async () => {
    fake.queue(cut("already said"), text("must not be requested"));
    const events = await collect(client(fake.url, wire, { max_retries: 3 }).stream(request()));
    expect(retriesOf(events)).toHaveLength(0);
    expect(endOf(events).failure?.class).toBe("stream");
    expect(fake.pending()).toBe(1);
  });
});

describe.each(WIRES)("the key never appears in a message (%s)", (wire) => {
  test("echoed in an HTTP error body, a mid-stream error and a retry event", async () => {
    const echo = `Incorrect API key provided: ${TEST_KEY}; prefix ${TEST_KEY.slice(0, 12)}; masked sk-proj***CRET; Bearer ${TEST_KEY}`;
    fake.queue(
      httpError(500, { error: { message: echo, type: "server_error" } }),
      midStreamError({ message: echo, code: "invalid_api_key", type: "invalid_request_error" }),
    );
    const events = await collect(client(fake.url, wire, { max_retries: 1 }).stream(request()));
    const all = JSON.stringify(events);
    expect(retriesOf(events)).toHaveLength(1);
    expect(endOf(events).failure?.class).toBe("auth");
    for (const secret of [TEST_KEY, TEST_KEY.slice(0, 8), "CRET", "TESTKEY"]) expect(all).not.toContain(secret);
  });

  test("a key that does not look like sk-...", async () => {
    const key = "relay-7f3a9c2e5b8d1f40aa";
    fake.queue(errorReply("auth"), httpError(401, { error: { message: `bad key ${key} (relay-7f***1f40aa)`, code: "invalid_api_key" } }));
    const c = createModelClient(profile(fake.url, wire), { version: "t", apiKey: key });
    const first = JSON.stringify(await collect(c.stream(request())));
    const second = JSON.stringify(await collect(c.stream(request())));
    expect(fake.requests.at(-1)!.headers.authorization).toBe(`Bearer ${key}`);
    for (const out of [first, second]) {
      expect(out).not.toContain(key);
      expect(out).not.toContain("7f3a9c2e");
      expect(out).not.toContain("1f40aa");
    }
  });
});

describe.each(WIRES)("extra header values are secrets too (%s)", (wire) => {
  test("a header value echoed in an error body never reaches the message", async () => {
    const headerSecret = "hdr-7b1e44c09d2a";
    fake.queue(httpError(403, { error: { message: `header x-api-key ${headerSecret} is not allowed here` } }));
    const c = createModelClient({ ...profile(fake.url, wire), headers: { "x-api-key": headerSecret } }, { version: "t", apiKey: TEST_KEY });
    const out = JSON.stringify(await collect(c.stream(request())));
    expect(fake.requests.at(-1)!.headers["x-api-key"]).toBe(headerSecret);
    expect(out).toContain("is not allowed here");
    expect(out).not.toContain(headerSecret);
  });
});

describe.each(WIRES)("cancellation and timeouts (%s)", (wire) => {
  test("a hung request ends as cancelled when the caller aborts", async () => {
    fake.queue(hang());
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 80);
    const started = performance.now();
    const events = await collect(client(fake.url, wire).stream(request({ signal: ac.signal })));
    expect(performance.now() - started).toBeLessThan(10_000); // the request hangs for good: ended by the abort
    expect(events).toEqual([{ type: "end", status: "cancelled", failure: expect.objectContaining({ class: "cancelled" }) }]);
  });

  test("aborting mid-stream keeps the output so far and ends as cancelled", async () => {
    fake.queue(hang("first words"));
    const ac = new AbortController();
    const events = [];
    for await (const e of client(fake.url, wire).stream(request({ signal: ac.signal }))) {
      events.push(e);
      if (e.type === "text" && textOf(events) === "first words") ac.abort();
    }
    expect(textOf(events)).toBe("first words");
    expect(endOf(events).status).toBe("cancelled");
  });

  test("aborting during a retry wait ends as cancelled at once", async () => {
    fake.queue(httpError(429, "rate_limit", { "retry-after": "30" }));
    const ac = new AbortController();
    const c = createModelClient(profile(fake.url, wire), { version: "t", retry: { maxRetryAfterMs: 60_000 } });
    const events = [];
    const started = performance.now();
    for await (const e of c.stream(request({ signal: ac.signal }))) {
      events.push(e);
      if (e.type === "retry") setTimeout(() => ac.abort(), 20);
    }
    expect(performance.now() - started).toBeLessThan(10_000); // not the 30 s retry wait
    expect(retriesOf(events)[0]?.delayMs).toBe(30_000);
    expect(endOf(events).status).toBe("cancelled");
  });

  test("an already-aborted signal sends nothing", async () => {
    const before = fake.requests.length;
    const events = await collect(client(fake.url, wire).stream(request({ signal: AbortSignal.abort() })));
    expect(events).toEqual([{ type: "end", status: "cancelled", failure: expect.objectContaining({ class: "cancelled" }) }]);
    expect(fake.requests.length).toBe(before);
  });
});

test("timeout_seconds bounds an attempt: a hang becomes a network failure", async () => {
  fake.queue(hang());
  const started = performance.now();
  const events = await collect(client(fake.url, "responses", { timeout_seconds: 1, max_retries: 0 }).stream(request()));
  const elapsed = performance.now() - started;
  expect(elapsed).toBeGreaterThanOrEqual(900);
  expect(elapsed).toBeLessThan(15_000); // the 1 s limit, not the hang (which never ends)
  expect(endOf(events)).toMatchObject({ status: "failed", failure: { class: "network" } });
  expect(endOf(events).failure?.message).toContain("timeout_seconds = 1");
});

describe("requests", () => {
  test("User-Agent, Authorization and profile headers; no Authorization without a key", async () => {
    fake.queue(text("a"), text("b"));
    await collect(client(fake.url, "responses", { headers: { "X-Org": "org-1", "User-Agent": "custom/1" } }).stream(request()));
    const withKey = fake.requests.at(-1)!.headers;
    expect(withKey.authorization).toBe(`Bearer ${TEST_KEY}`);
    expect(withKey["x-org"]).toBe("org-1");
    expect(withKey["user-agent"]).toBe("custom/1");
    await collect(createModelClient(profile(fake.url, "chat"), { version: "1.2.3" }).stream(request()));
    const noKey = fake.requests.at(-1)!.headers;
    expect(noKey.authorization).toBeUndefined();
    expect(noKey["user-agent"]).toBe("scv/1.2.3");
  });

  test("proxy variables in the environment are ignored", async () => {
    const dead = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const deadUrl = `http://127.0.0.1:${dead.port}`;
    dead.stop(true); // nothing listens there now
    const names = ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"];
    const saved = Object.fromEntries(["NO_PROXY", "no_proxy", ...names].map((n) => [n, process.env[n]]));
    try {
      delete process.env.NO_PROXY;
      delete process.env.no_proxy;
      for (const n of names) process.env[n] = deadUrl;
      // Sanity: a plain fetch really is sent to the dead proxy, so this test can fail.
      await expect(fetch(`${fake.url}/responses`, { method: "POST", body: "{}" })).rejects.toThrow();
      fake.queue(text("direct"));
      const events = await collect(client(fake.url, "responses", { max_retries: 0 }).stream(request()));
      expect(textOf(events)).toBe("direct");
    } finally {
      for (const [n, v] of Object.entries(saved)) v === undefined ? delete process.env[n] : (process.env[n] = v);
    }
  });

  test("a profile proxy is used", async () => {
    const seen: string[] = [];
    const proxy = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req) {
        seen.push(`${req.method} ${req.url}`);
        const res = await fetch(req.url, { method: req.method, headers: req.headers, body: await req.arrayBuffer(), proxy: false });
        return new Response(res.body, { status: res.status, headers: res.headers });
      },
    });
    try {
      fake.queue(text("via proxy"));
      const events = await collect(client(fake.url, "chat", { proxy: `http://127.0.0.1:${proxy.port}` }).stream(request()));
      expect(textOf(events)).toBe("via proxy");
      expect(seen).toEqual([`POST ${fake.url}/chat/completions`]);
    } finally {
      proxy.stop(true);
    }
  });
});

describe("the stream never throws", () => {
  test("connection refused is a network failure", async () => {
    const gone = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const url = `http://127.0.0.1:${gone.port}/v1`;
    gone.stop(true);
    const end = endOf(await collect(client(url, "responses", { max_retries: 1 }).stream(request())));
    expect(end.failure).toMatchObject({ class: "network" });
    expect(end.failure?.message).toContain("connection refused");
  });

  test("a fetch that throws, a body that errors, and a bad header become end events", async () => {
    const throwing = createModelClient(profile("http://127.0.0.1:9/v1", "chat", { max_retries: 0 }), {
      version: "t",
      fetch: (() => {
        throw new Error("kaboom");
      }) as unknown as typeof fetch,
    });
    expect(endOf(await collect(throwing.stream(request()))).failure?.class).toBe("network");

    const erroring = createModelClient(profile("http://127.0.0.1:9/v1", "chat", { max_retries: 0 }), {
      version: "t",
      fetch: (async () => {
        let sent = false;
        const body = new ReadableStream({
          pull(c) {
            if (sent) return c.error(new Error("socket hang up"));
            sent = true;
            c.enqueue(new TextEncoder().encode('data: {"choices":[{"index":0,"delta":{"content":"x"}}]}\n\n'));
          },
        });
        return new Response(body, { headers: { "content-type": "text/event-stream" } });
      }) as unknown as typeof fetch,
    });
    const events = await collect(erroring.stream(request()));
    expect(textOf(events)).toBe("x");
    expect(endOf(events).failure?.class).toBe("stream");

    const badHeader = client(fake.url, "chat", { headers: { "X-Bad": "line\nbreak" } });
    const end = endOf(await collect(badHeader.stream(request())));
    expect(end.failure?.class).toBe("config");
    expect(end.failure?.message).toContain("headers.X-Bad");
  });

  test("a redirect and a JSON body that is no answer are config failures", async () => {
    const odd = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (req) =>
        new URL(req.url).pathname === "/r/responses"
          ? new Response(null, { status: 307, headers: { location: "https://elsewhere.invalid/v1/responses" } })
          : Response.json({ hello: "not an answer" }),
    });
    try {
      const redirected = endOf(await collect(client(`http://127.0.0.1:${odd.port}/r`, "responses").stream(request())));
      expect(redirected.failure?.class).toBe("config");
      expect(redirected.failure?.message).toContain("elsewhere.invalid");
      const json = endOf(await collect(client(`http://127.0.0.1:${odd.port}/j`, "responses").stream(request())));
      expect(json.failure?.class).toBe("config");
      expect(json.failure?.message).toContain("application/json");
    } finally {
      odd.stop(true);
    }
  });

  test("a consumer that stops early releases the server's stream", async () => {
    let cancelled = false;
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      idleTimeout: 0,
      fetch: () =>
        new Response(
          new ReadableStream({
            start(c) {
              c.enqueue(new TextEncoder().encode('data: {"choices":[{"index":0,"delta":{"content":"x"}}]}\n\n'));
            },
            cancel() {
              cancelled = true;
            },
          }),
          { headers: { "content-type": "text/event-stream" } },
        ),
    });
    try {
      for await (const e of client(`http://127.0.0.1:${server.port}/v1`, "chat").stream(request())) {
        if (e.type === "text") break;
      }
      for (let i = 0; i < 2500 && !cancelled; i++) await Bun.sleep(10); // up to 25 s for the server to see the cancel
      expect(cancelled).toBe(true);
    } finally {
      server.stop(true);
    }
  });
});
