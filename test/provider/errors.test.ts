// The classifier table (reference §3), retry-after parsing and secret scrubbing, without HTTP.
import { describe, expect, test } from "bun:test";
import { classifyErrorBody, classifyException, classifyHttp, retryAfterMs, scrubFailure, scrubSecrets } from "../../src/provider/errors";
import { ERROR_BODIES } from "../fake/model-replies";

const h = (init: Record<string, string> = {}) => new Headers(init);

describe("classifyHttp", () => {
  test.each([
    [401, '{"error":{"message":"bad","type":"invalid_request_error","code":"invalid_api_key"}}', "auth", false],
    [400, '{"error":{"message":"x","code":"invalid_api_key"}}', "auth", false],
    [403, "Forbidden", "forbidden", false],
    [404, "404 page not found", "model_not_found", false],
    [400, '{"error":{"message":"no such model","code":"model_not_found"}}', "model_not_found", false],
    [429, '{"error":{"message":"slow","code":"rate_limit_exceeded"}}', "rate_limit", true],
    [429, "", "rate_limit", true],
    [429, '{"error":{"message":"q","type":"insufficient_quota","code":null}}', "quota", false],
    [429, '{"error":{"message":"q","type":"insufficient_quota","code":"billing_hard_limit_reached"}}', "quota", false],
    [400, '{"error":{"message":"too long","code":"context_length_exceeded"}}', "context_window", false],
    [400, '{"object":"error","message":"This model\'s maximum context length is 8192 tokens."}', "context_window", false],
    [400, '{"error":{"message":"This model\'s maximum context length is 8192 tokens.","type":"BadRequestError"}}', "context_window", false],
    [422, '{"error":{"message":"bad field"}}', "invalid_request", false],
    [500, "<html>Internal</html>", "server", true],
    [502, "Bad Gateway", "server", true],
    [503, '{"error":{"message":"m","code":"slow_down"}}', "server", true],
    [504, "", "server", true],
    [408, "", "server", true],
  ] as const)("%d %s -> %s", (status, body, cls, retryable) => {
    const c = classifyHttp(status, body, h());
    expect(c.failure.class).toBe(cls);
    expect(c.failure.status).toBe(status);
    expect(c.retryable).toBe(retryable);
  });

  test("every verbatim reference body", () => {
    const expected: Record<string, string> = { credits: "quota", overloaded: "server", invalid_request: "invalid_request" };
    for (const [name, { status, body }] of Object.entries(ERROR_BODIES)) {
      expect(classifyHttp(status, JSON.stringify(body), h()).failure.class).toBe((expected[name] ?? name) as never);
    }
  });

  test("messages carry the provider's text, a hint and the request id, bounded to one line", () => {
    const c = classifyHttp(404, JSON.stringify(ERROR_BODIES.model_not_found.body), h({ "x-request-id": "req_123" }));
    expect(c.failure.message).toContain("check the profile's model and base_url");
    expect(c.failure.message).toContain("`gpt-5-foo` does not exist");
    expect(c.failure.message).toContain("[request id req_123]");
    const huge = scrubFailure(classifyHttp(502, `<html>\n${"x".repeat(5000)}\n</html>`, h({ "x-request-id": "req_9" })).failure);
    expect(huge.message.length).toBeLessThan(450);
    expect(huge.message).not.toContain("\n");
    expect(huge.message).toEndWith("[request id req_9]");
  });

  test("the message is scrubbed before it is cut, so a key the cut would split leaves nothing behind", () => {
    const key = "sk-SPLITKEY-abcdef123456";
    for (let pad = 330; pad < 420; pad += 7) {
      const c = classifyHttp(401, JSON.stringify({ error: { message: `${"y".repeat(pad)} ${key} tail` } }), h());
      const m = scrubFailure(c.failure, key).message;
      expect(m).not.toContain("sk-SPL");
      expect(m).not.toContain("SPLITKEY");
    }
  });

  test("x-should-retry: false stops a retry", () => {
    expect(classifyHttp(500, "", h({ "x-should-retry": "false" })).retryable).toBe(false);
  });
});

describe("classifyErrorBody (response.failed, error events)", () => {
  test("codes without a status", () => {
    expect(classifyErrorBody({ code: "insufficient_quota", message: "q" }).failure.class).toBe("quota");
    expect(classifyErrorBody({ code: "usage_not_included", message: "q" }).failure.class).toBe("quota");
    expect(classifyErrorBody({ code: "server_is_overloaded", message: "o" }).retryable).toBe(true);
    expect(classifyErrorBody({ code: "invalid_prompt", message: "p" }).failure.class).toBe("invalid_request");
    expect(classifyErrorBody({ code: "something_new", message: "?" }).failure.class).toBe("server");
    expect(classifyErrorBody({ type: "invalid_request_error", message: "?" }).failure.class).toBe("invalid_request");
  });
});

describe("retryAfterMs", () => {
  test("headers first, then the message", () => {
    expect(retryAfterMs(h({ "retry-after-ms": "1500", "retry-after": "9" }), "try again in 3s")).toBe(1500);
    expect(retryAfterMs(h({ "retry-after": "2" }), "")).toBe(2000);
    expect(retryAfterMs(h({ "retry-after": new Date(10_000).toUTCString() }), "", 4_000)).toBe(6000);
    expect(retryAfterMs(h(), "Please try again in 11.054s. Visit")).toBe(11054);
    expect(retryAfterMs(h(), "Please try again in 28ms.")).toBe(28);
    expect(retryAfterMs(h(), "Rate limit is exceeded. Try again in 35 seconds.")).toBe(35000);
    expect(retryAfterMs(h(), "no hint here")).toBeUndefined();
  });
});

describe("classifyException", () => {
  const ctx = { timedOut: false, timeoutSeconds: 30, host: "api.example:443" };
  test("connect errors are network failures named by cause", () => {
    const err = Object.assign(new TypeError("ECONNREFUSED: Unable to connect"), { code: "ECONNREFUSED" });
    expect(classifyException(err, "connect", ctx).failure).toMatchObject({ class: "network", message: expect.stringContaining("connection refused") });
    const dns = Object.assign(new TypeError("getaddrinfo ENOTFOUND x"), { code: "ENOTFOUND" });
    expect(classifyException(dns, "connect", ctx).failure.message).toContain("DNS");
    expect(classifyException(new Error("x"), "connect", { ...ctx, timedOut: true }).failure.message).toContain("timeout_seconds = 30");
  });
  test("a body error is a retryable stream failure", () => {
    const c = classifyException(Object.assign(new TypeError("closed"), { code: "ECONNRESET" }), "body", ctx);
    expect(c.failure.class).toBe("stream");
    expect(c.retryable).toBe(true);
  });
});

describe("scrubSecrets", () => {
  test("removes the key, its prefix, key-shaped tokens, masked echoes and bearer tokens", () => {
    const key = "sk-proj-abcdefghijklmnop1234";
    const out = scrubSecrets(
      `k=${key} p=sk-proj-abcdefgh... masked sk-inval***c66a other=xai-AbCdEf123456 gsk_abcdef12345 Authorization: Bearer tok.en-value relay***9f2a`,
      key,
    );
    for (const s of [key, "abcdefgh", "c66a", "inval", "AbCdEf123456", "abcdef12345", "tok.en-value", "9f2a"]) expect(out).not.toContain(s);
    expect(out).toContain("k=***");
  });
  test("leaves ordinary text alone", () => {
    const msg = "The server had an error while processing your request. Sorry about that! (code server_error) task-based";
    expect(scrubSecrets(msg, "sk-xyz-0123456789abc")).toBe(msg);
  });
});
