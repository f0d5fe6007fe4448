import { describe, expect, test } from "bun:test";
import { readerFor } from "../../src/agents/formats";
import { unwrapShell } from "../../src/agents/formats/codex";
import type { OutputFormat } from "../../src/agents/descriptors";
import * as S from "../fake/agent-streams";

function parse(format: OutputFormat, text: string, opts: { chunk?: number; maxLine?: number; session?: string } = {}) {
  const progress: string[] = [];
  const sessions: string[] = [];
  const reader = readerFor(format, { progress: (l) => progress.push(l), session: (id) => sessions.push(id) }, opts.maxLine);
  const bytes = new TextEncoder().encode(text.replaceAll("@SESSION@", opts.session ?? "11111111-2222-4333-8444-555555555555"));
  const step = opts.chunk ?? bytes.length;
  for (let i = 0; i < bytes.length; i += step) reader.push(bytes.subarray(i, i + step));
  return { ...reader.end(), progress, sessions };
}

describe("Claude stream-json", () => {
  test("keeps the result's reply, usage including cache tokens, and the session", () => {
    const r = parse("claude-stream-json", S.CLAUDE_OK, { session: "aaaaaaaa-2222-4333-8444-555555555555" });
    expect(r.failed).toBe(false);
    expect(r.reply).toBe("All tools done.");
    expect(r.usage).toEqual({ input_tokens: 515 + 25 + 35, output_tokens: 60, cached_input_tokens: 35 });
    expect(r.sessions).toEqual(["aaaaaaaa-2222-4333-8444-555555555555"]);
    expect(r.progress).toEqual([
      "$ echo hi-from-bash",
      "Write /scratch/runs/claude2/scv_note.txt",
      "search: scv wire formats",
      "fetch http://127.0.0.1:18080/page?token=abc",
      "Checking the tests now.",
    ]);
  });

  test("an API error reported as subtype success with is_error is a failure with its HTTP status", () => {
    const r = parse("claude-stream-json", S.CLAUDE_401);
    expect(r.failed).toBe(true);
    expect(r.error).toBe("Failed to authenticate. API Error: 401 fake 401 error");
    expect(r.errorStatus).toBe(401);
    expect(r.reply).toBeUndefined();
    // the synthetic error text is not interim progress
    expect(r.progress).toEqual([]);
  });

  test("error subtypes carry errors[] instead of result", () => {
    const r = parse("claude-stream-json", S.CLAUDE_MAX_TURNS);
    expect(r.failed).toBe(true);
    expect(r.error).toBe("Reached maximum number of turns (3)");
  });

  test("a refusal stop reason is declined, not failed", () => {
    const r = parse("claude-stream-json", S.CLAUDE_REFUSAL);
    expect(r.failed).toBe(false);
    expect(r.declined).toBe(true);
    expect(r.reply).toBe("I can't help with that request.");
  });

  test("byte-by-byte chunks give the same outcome, including multi-byte characters", () => {
    const text = S.CLAUDE_OK.replace("All tools done.", "Fertig — 完成 ✓");
    const whole = parse("claude-stream-json", text);
    const bytewise = parse("claude-stream-json", text, { chunk: 1 });
    expect(bytewise.reply).toBe("Fertig — 完成 ✓");
    expect(bytewise).toEqual(whole);
  });

  test("Claude Code 2.1.332 puts type later in the result line; each line is parsed as JSON", () => {
    const moved = '{"subtype":"success","is_error":false,"result":"ok","type":"result","stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":2}}';
    const r = parse("claude-stream-json", S.lines(S.CLAUDE_INIT, moved));
    expect(r.reply).toBe("ok");
  });
});

describe("Codex --json", () => {
  test("last agent_message, turn usage, thread id and progress lines", () => {
    const r = parse("codex-json", S.CODEX_OK);
    expect(r.failed).toBe(false);
    expect(r.reply).toBe("All codex tools done.");
    expect(r.usage).toEqual({ input_tokens: 606, output_tokens: 90, cached_input_tokens: 150 });
    expect(r.sessionId).toBe(S.CODEX_THREAD_ID);
    expect(r.sessions).toEqual([S.CODEX_THREAD_ID]);
    expect(r.progress).toEqual([
      "$ echo hi-from-codex",
      "$ npm test",
      "exit 1: npm test",
      "add /scratch/runs/codex1/scv_codex.txt",
      "search: scv wire formats",
    ]);
  });

  test("error items are warnings; a top-level error with turn.failed is the failure", () => {
    const r = parse("codex-json", S.CODEX_401);
    expect(r.failed).toBe(true);
    expect(r.error).toContain("unexpected status 401 Unauthorized");
    const ok = parse("codex-json", S.CODEX_RESUMED);
    expect(ok.failed).toBe(false);
    expect(ok.reply).toBe("Resumed and done.");
  });

  test("a top-level error followed by a completed turn was a retry notice", () => {
    const r = parse("codex-json", S.lines(S.CODEX_THREAD, '{"type":"error","message":"Reconnecting... 1/5"}', '{"type":"item.completed","item":{"id":"i","type":"agent_message","text":"fine"}}', '{"type":"turn.completed","usage":{"input_tokens":1,"output_tokens":1}}'));
    expect(r.failed).toBe(false);
    expect(r.reply).toBe("fine");
  });

  test("unwraps the shell wrapper Codex puts around commands", () => {
    expect(unwrapShell("/bin/bash -lc 'echo hi'")).toBe("echo hi");
    expect(unwrapShell("/bin/bash -lc 'echo '\\''quoted'\\'''")).toBe("echo 'quoted'");
    expect(unwrapShell('bash -c "make \\"all\\""')).toBe('make "all"');
    expect(unwrapShell("ls -la")).toBe("ls -la");
  });
});

describe("pi --mode json", () => {
  test("the last assistant message_end gives reply and usage; tool lines and failures", () => {
    const r = parse("pi-json", S.PI_OK, { session: "0190-pi" });
    expect(r.failed).toBe(false);
    expect(r.reply).toBe("Done");
    expect(r.usage).toEqual({ input_tokens: 130, output_tokens: 2, cached_input_tokens: 0 });
    expect(r.sessions).toEqual(["0190-pi"]);
    expect(r.progress).toEqual(["$ echo hi", "edit /home/u/proj/src/main.ts", "edit failed"]);
  });

  test("stopReason error fails the run although pi exits 0", () => {
    const r = parse("pi-json", S.PI_401);
    expect(r.failed).toBe(true);
    expect(r.error).toBe("401 Invalid API key");
  });

  test("after auto-retry the last cycle decides", () => {
    const r = parse("pi-json", S.PI_RETRY_503);
    expect(r.failed).toBe(true);
    expect(r.error).toBe("503 overloaded");
  });
});

describe("stream reading", () => {
  test("unknown events and fields are ignored", () => {
    const r = parse(
      "codex-json",
      S.lines('{"type":"brand.new","x":1}', '{"type":"item.completed","item":{"id":"i","type":"agent_message","text":"hi","extra":{"a":1}}}', "not json at all", '{"type":"turn.completed","usage":{"input_tokens":3,"output_tokens":4,"future":9}}'),
    );
    expect(r.reply).toBe("hi");
    expect(r.usage).toEqual({ input_tokens: 3, output_tokens: 4, cached_input_tokens: 0 }); // none reported: 0
  });

  test("lines over the limit are skipped without breaking the next line", () => {
    const huge = `{"type":"item.completed","item":{"id":"i","type":"agent_message","text":"${"x".repeat(5000)}"}}`;
    const text = S.lines(huge, '{"type":"item.completed","item":{"id":"j","type":"agent_message","text":"small"}}');
    const r = parse("codex-json", text, { maxLine: 4096, chunk: 777 });
    expect(r.skippedLines).toBe(1);
    expect(r.reply).toBe("small");
    const reverse = parse("codex-json", S.lines('{"type":"item.completed","item":{"id":"j","type":"agent_message","text":"small"}}', huge), { maxLine: 4096 });
    expect(reverse.reply).toBe("small");
  });

  test("the real 4 MiB limit: a 5 MiB line is skipped", () => {
    const huge = `{"type":"item.completed","item":{"id":"i","type":"agent_message","text":"${"y".repeat(5 * 1024 * 1024)}"}}`;
    const r = parse("codex-json", S.lines(huge, S.CODEX_THREAD), { chunk: 65536 });
    expect(r.skippedLines).toBe(1);
    expect(r.reply).toBeUndefined();
    expect(r.sessionId).toBe(S.CODEX_THREAD_ID);
  });

  test("a stream with no JSON at all says so (the caller falls back to its text)", () => {
    const r = parse("claude-stream-json", "Error: When using --print, --output-format=stream-json requires --verbose\n");
    expect(r.sawJson).toBe(false);
    expect(r.failed).toBe(false);
  });

  test("a final line without a newline is still read", () => {
    const r = parse("pi-json", S.PI_OK.trimEnd());
    expect(r.reply).toBe("Done");
  });
});
