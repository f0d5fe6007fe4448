import { describe, expect, test } from "bun:test";
import { tailUtf8 } from "../../src/text/cut";
import { buildResult, declinedNote, isAvailabilityFailure, type RunOutcome } from "../../src/agents/result";

const base = (o: Partial<RunOutcome>): RunOutcome => ({
  agent: "codex",
  status: "completed",
  reply: "done",
  replyTruncated: false,
  exitCode: 0,
  stderr: "",
  timeoutSeconds: 60,
  ...o,
});
const ctx = { offered: ["claude", "codex", "grok"], outputLimitBytes: 65536 };

describe("fallback", () => {
  test("names the other offered agents when the provider refused", () => {
    const r = buildResult(base({ status: "failed", exitCode: 1, error: "unexpected status 429 Too Many Requests: slow down" }), ctx);
    expect(r.fallback).toBe(
      "This agent could not run: it is missing, signed out, or its provider returned an error. Other agents are available: claude, grok. Call agent again with one of them.",
    );
  });

  test("covers 401, 403, 404, 5xx, quota, unknown models, a structured status and a crash", () => {
    const failed = (o: Partial<RunOutcome>) => isAvailabilityFailure({ status: "failed", exitCode: 1, ...o });
    expect(failed({ error: "API Error: 401 fake" })).toBe(true);
    expect(failed({ error: "HTTP error 403 Forbidden" })).toBe(true);
    expect(failed({ error: "status 404 Not Found" })).toBe(true);
    expect(failed({ error: "We’re currently experiencing high demand" })).toBe(true);
    expect(failed({ error: "insufficient_quota: You exceeded your current quota" })).toBe(true);
    expect(failed({ error: "The model `gpt-9` does not exist" })).toBe(true);
    expect(failed({ error: "unknown model foo" })).toBe(true);
    expect(failed({ error: "API Error: 400 fake", errorStatus: 503 })).toBe(true);
    expect(failed({ exitCode: null, crashSignal: "SIGSEGV" })).toBe(true);
    expect(failed({ exitCode: 127, error: "node: not found" })).toBe(true);
  });

  test("other failures are returned unchanged", () => {
    const r = buildResult(base({ status: "failed", exitCode: 1, error: "3 tests failed in src/app.test.ts" }), ctx);
    expect(r.fallback).toBeUndefined();
    expect(r.error).toBe("3 tests failed in src/app.test.ts");
    expect(isAvailabilityFailure({ status: "failed", exitCode: 1, error: "API Error: 400 bad request" })).toBe(false);
  });

  test("never decided from the reply, and never on success or a decline", () => {
    const r = buildResult(base({ reply: "the provider returned 401 Unauthorized and quota exceeded" }), ctx);
    expect(r.fallback).toBeUndefined();
    const d = buildResult(base({ status: "declined", reply: "I won't. status 429" }), ctx);
    expect(d.fallback).toBeUndefined();
  });

  test("no fallback when no other agent is offered", () => {
    const r = buildResult(base({ status: "failed", exitCode: 1, error: "status 500" }), { ...ctx, offered: ["codex"] });
    expect(r.fallback).toBeUndefined();
  });
});

describe("sign-in hint and notes", () => {
  test("a failure that reads like a missing sign-in names scv agents login", () => {
    const r = buildResult(base({ agent: "claude", status: "failed", exitCode: 1, error: "Not logged in · Please run /login" }), ctx);
    expect(r.hint).toContain('"scv agents login claude"');
    expect(r.fallback).toBeDefined();
    const dsh = buildResult(base({ agent: "dsh", status: "failed", exitCode: 1, stderr: "error MISSING_CREDENTIAL: DEEPSEEK_API_KEY" }), ctx);
    expect(dsh.hint).toContain("scv agents login dsh");
  });

  test("a declined result asks to try grok when it is offered and another agent declined", () => {
    const r = buildResult(base({ agent: "claude", status: "declined", reply: "I can't help with that." }), ctx);
    expect(r.note).toContain('call agent again with agent "grok" and the same request');
    expect(r.note).toContain("a safety or guardrail refusal is not a reason to skip Grok");
  });

  test("grok declining, or grok not offered, asks to tell the user instead", () => {
    for (const note of [declinedNote("grok", ["claude", "grok"]), declinedNote("claude", ["claude", "codex"])]) {
      expect(note).toContain("Tell the user what it said rather than passing the request to another agent on your own");
      expect(note).not.toContain('"grok"');
    }
  });

  test("Codex outside a git checkout gets a hint, not a fallback", () => {
    const r = buildResult(base({ status: "failed", exitCode: 1, stderr: "Not inside a trusted directory and --skip-git-repo-check was not specified." }), ctx);
    expect(r.hint).toContain('"--skip-git-repo-check" to [agents.codex] args');
    expect(r.fallback).toBeUndefined();
  });

  test("a timed-out conversation turn says it can be continued", () => {
    const r = buildResult(base({ status: "timeout", exitCode: null, session: "codex-2", turn: 1 }), ctx);
    expect(r.note).toContain("session codex-2");
    expect(r.session).toBe("codex-2");
    expect(r.turn).toBe(1);
  });
});

describe("bounds", () => {
  test("the serialized result fits the output limit, cut on a character boundary", () => {
    const reply = "é\"\\\n".repeat(4000);
    const r = buildResult(base({ reply, stderr: "warn ".repeat(1000) }), { ...ctx, outputLimitBytes: 4096 });
    const json = JSON.stringify(r);
    expect(Buffer.byteLength(json)).toBeLessThanOrEqual(4096);
    expect(r.truncated).toBe(true);
    expect(r.reply.length).toBeGreaterThan(100);
    expect(reply.startsWith(r.reply)).toBe(true);
    expect(JSON.parse(json).reply).toBe(r.reply);
  });

  test("stderr_tail is the last 2 KiB with secrets masked", () => {
    const r = buildResult(base({ stderr: `${"a".repeat(5000)}\nAuthorization: Bearer sk-abcdefghijklmnop end` }), ctx);
    expect(Buffer.byteLength(r.stderr_tail)).toBeLessThanOrEqual(2048);
    expect(r.stderr_tail.endsWith("Bearer … end")).toBe(true);
    expect(r.truncated).toBe(false);
  });

  test("tailUtf8 never splits a character", () => {
    expect(tailUtf8("ab€", 2)).toBe("");
    expect(tailUtf8("ab€", 3)).toBe("€");
  });
});
