import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createBashTool, lastLine } from "../../src/tools/bash";
import { invokeTool, makeCallContext, makeScope, type ScopeOptions } from "../fake/scope";

// Real commands through the sandbox's launcher (from source): bun's 5 s default is too tight under load.
setDefaultTimeout(30_000);

function setup(scopeOpts: ScopeOptions = {}, outputLimitBytes?: number) {
  const scope = makeScope(scopeOpts);
  const ctx = makeCallContext(scope, { outputLimitBytes });
  const tool = createBashTool(scope);
  return { scope, ctx, tool, bash: (args: unknown) => invokeTool(tool, args, ctx) };
}

describe("bash: arguments", () => {
  test("the schema takes command, timeout_seconds, secrets, background, keep and unsandboxed, advertising the configured ceiling as maximum", () => {
    const { tool } = setup({ config: { tools: { max_timeout_seconds: 120 } } });
    const props = tool.jsonSchema.properties as Record<string, Record<string, unknown>>;
    expect(Object.keys(props).sort()).toEqual(["background", "command", "keep", "secrets", "timeout_seconds", "unsandboxed"]);
    expect(props.command!.type).toBe("string");
    expect(props.timeout_seconds!.maximum).toBe(120);
    expect(props.timeout_seconds!.type).toBe("integer");
    expect(tool.jsonSchema.required).toEqual(["command"]);
  });

  test("bad input is refused before approval and before anything runs", async () => {
    const { bash, scope } = setup({ config: { tools: { max_timeout_seconds: 120 } } });
    const marker = join(scope.workspace, "ran");
    const cases: Array<[unknown, RegExp]> = [
      [{ command: "" }, /command: must not be empty/],
      [{ command: "   \n" }, /command: must not be empty/],
      [{ command: 42 }, /command: must be a string/],
      [{}, /command: must be a string/],
      [{ command: `touch ${marker}`, timeout_seconds: 0 }, /timeout_seconds: must be at least 1/],
      [{ command: `touch ${marker}`, timeout_seconds: -5 }, /timeout_seconds: must be at least 1/],
      [{ command: `touch ${marker}`, timeout_seconds: 2.5 }, /timeout_seconds: must be a whole number/],
      [{ command: `touch ${marker}`, timeout_seconds: "60" }, /timeout_seconds: must be a number/],
      [{ command: `touch ${marker}`, timeout_seconds: Number.NaN }, /timeout_seconds/],
      [{ command: `touch ${marker}`, timeout_seconds: 121 }, /timeout_seconds: must be at most 120 seconds \(the tools.max_timeout_seconds ceiling\)/],
      [{ command: `touch ${marker}\0` }, /command: must not contain NUL bytes/],
      [{ command: `touch ${marker}`, cwd: "/" }, /Unrecognized key/i],
    ];
    for (const [args, message] of cases) {
      const { result, risk } = await bash(args);
      expect(risk).toBeUndefined(); // refused in assess: no approval was asked
      expect(result.ok).toBe(false);
      expect(result.output).toMatch(message);
    }
    expect(existsSync(marker)).toBe(false);
  });

  test("risk is process; the approval summary shows the command, the cwd, the timeout and how it runs", async () => {
    const { tool, ctx, scope } = setup();
    const a = await tool.assess({ command: "make test", timeout_seconds: 900 }, ctx);
    expect(a.ok && a.risk).toBe("process");
    expect(a.ok && a.summary).toMatch(new RegExp(`^\\$ make test\ncwd: ${scope.workspace}\ntimeout: 900s\n(sandboxed|not sandboxed): `));
    const d = await tool.assess({ command: "ls" }, ctx);
    expect(d.ok && d.summary).toContain("timeout: 600s");
  });
});

describe("bash: running", () => {
  test("a shell with the login environment (bash-login.test.ts) in the workspace; exit 0 is ok with the output after the header", async () => {
    const { bash, scope } = setup();
    const { result } = await bash({ command: "pwd" });
    expect(result).toMatchObject({ ok: true, output: `exit 0\n${scope.workspace}\n` });
    expect(result.event).toMatchObject({ exit_code: 0, signal: null, timed_out: false, cancelled: false, truncated: false });
  });

  test("a nonzero exit, a signal, and empty output", async () => {
    const { bash } = setup();
    expect((await bash({ command: "echo no >&2; exit 3" })).result).toMatchObject({ ok: false, output: "exit 3\nno\n" });
    expect((await bash({ command: "kill -TERM $$" })).result).toMatchObject({ ok: false, output: "signal SIGTERM\n[no output]" });
    expect((await bash({ command: "true" })).result).toMatchObject({ ok: true, output: "exit 0\n[no output]" });
  });

  test("stdout and stderr combined in order; >/dev/stdout works; stdin is at EOF", async () => {
    const { bash } = setup();
    const { result } = await bash({ command: "echo a; echo b >&2; echo c >/dev/stdout; cat; echo d >/dev/stderr" });
    expect(result.output).toBe("exit 0\na\nb\nc\nd\n");
  });

  test("timeout_seconds kills the command at the deadline", async () => {
    const { bash } = setup();
    const began = performance.now();
    const { result } = await bash({ command: "echo start; trap '' TERM; sleep 30", timeout_seconds: 1 });
    expect(performance.now() - began).toBeLessThan(10_000); // the 1 s deadline's KILL, not the 30 s sleep
    expect(result.ok).toBe(false);
    expect(result.output).toBe("timeout after 1s (killed)\nstart\n");
    expect(result.event).toMatchObject({ timed_out: true, signal: "SIGKILL" });
  });

  test("without timeout_seconds the call gets tools.command_timeout_seconds", async () => {
    const { bash } = setup({ config: { tools: { command_timeout_seconds: 1 } } });
    const { result } = await bash({ command: "sleep 30" });
    expect(result.output).toBe("timeout after 1s (killed)\n[no output]");
  });

  test("cancellation of the turn stops the command", async () => {
    const { tool, ctx, scope } = setup();
    // `: >started` (no child): a `touch` still exiting when the cancel comes would be stopped and reported too.
    const a = await tool.assess({ command: "echo started; : >started; sleep 30" }, ctx);
    if (!a.ok) throw new Error("assess refused");
    // Cancelled once the command runs (the sandbox's launcher, run from source here, takes a moment to start).
    let began = 0;
    const poll = setInterval(() => {
      if (!existsSync(join(scope.workspace, "started"))) return;
      clearInterval(poll);
      began = performance.now();
      ctx.cancel();
    }, 10);
    const result = await tool.run(a.args, ctx);
    clearInterval(poll);
    // Stopped, not waited out: far under the command's 30 s, with room for a busy machine.
    expect(performance.now() - began).toBeLessThan(10_000);
    // What the cancel stopped while the command ran (a `touch` not yet exited) is the command, not a leftover.
    expect(result).toMatchObject({ ok: false, output: "cancelled\nstarted\n" });
  });

  test("long output keeps head and tail with truncation metadata, within the output limit", async () => {
    const { bash } = setup({}, 2048);
    const { result } = await bash({ command: "seq 1 100000" });
    const total = Array.from({ length: 100000 }, (_, i) => `${i + 1}\n`).join("").length;
    const [status, meta, ...rest] = result.output.split("\n");
    expect(status).toBe("exit 0");
    const m = /^\[output: (\d+) bytes, (\d+) lines; truncated: showing first (\d+) and last (\d+) bytes\]$/.exec(meta!);
    expect(m).not.toBeNull();
    expect(Number(m![1])).toBe(total);
    expect(Number(m![2])).toBe(100000);
    const body = rest.join("\n");
    expect(body.startsWith("1\n2\n3\n")).toBe(true);
    expect(body.endsWith("99999\n100000\n")).toBe(true);
    expect(body).toMatch(/\n\[\.\.\. \d+ bytes omitted \.\.\.\]\n/);
    expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(2048);
    expect(result.event).toMatchObject({ truncated: true, output_bytes: total, output_lines: 100000 });
  });

  test("background processes do not outlive the call, and the result says they were stopped", async () => {
    const { bash } = setup();
    const began = performance.now();
    const { result } = await bash({ command: "sleep 300 & echo started" });
    expect(performance.now() - began).toBeLessThan(10_000); // far under the 300 s the background sleep would take
    expect(result.output).toBe("exit 0\n[stopped 1 background process still running after the command]\nstarted\n");
  });

  test("the environment is built from the allowlist plus tools.bash_env: no keys, no BUN_OPTIONS", async () => {
    const env = { BUN_OPTIONS: "--smol", BUN_BE_BUN: "1", OPENAI_API_KEY: "sk-test-0123456789", FEISHU_APP_SECRET: "s3cret", LANG: "C.UTF-8", LC_ALL: "C", TZ: "UTC", PASSED_ON: "kept" };
    const { bash } = setup({ env, config: { tools: { bash_env: ["PASSED_ON", "SET_HERE=value"] } } });
    const show = ["BUN_OPTIONS", "BUN_BE_BUN", "OPENAI_API_KEY", "FEISHU_APP_SECRET", "LANG", "LC_ALL", "TZ", "PASSED_ON", "SET_HERE"].map((n) => `\${${n}-unset}`).join(" ");
    const { result } = await bash({ command: `echo "${show}"` });
    expect(result.output).toBe("exit 0\nunset unset unset unset C.UTF-8 C UTC kept value\n");
  });

  test("progress reports the last line of output, at most twice a second", async () => {
    const { tool, ctx } = setup();
    const seen: Array<{ at: number; line: string }> = [];
    const began = performance.now();
    ctx.progress = (line) => void seen.push({ at: performance.now() - began, line });
    const a = await tool.assess({ command: "for i in 1 2 3 4 5 6 7 8; do echo step $i; sleep 0.25; done" }, ctx);
    if (!a.ok) throw new Error("assess refused");
    const result = await tool.run(a.args, ctx);
    const took = performance.now() - began;
    expect(result.ok).toBe(true);
    expect(seen.length).toBeGreaterThanOrEqual(2);
    // At most one line per 500 ms of the run: about 2 s idle (≤ 6 lines), longer on a busy machine.
    expect(seen.length).toBeLessThanOrEqual(Math.max(6, Math.floor(took / 500) + 1));
    for (const s of seen) expect(s.line).toMatch(/^step [1-8]$/);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.at - seen[i - 1]!.at).toBeGreaterThanOrEqual(450);
  });

  test("the progress line is the last non-blank line, without escape sequences or carriage-return history", () => {
    const enc = (s: string) => new TextEncoder().encode(s);
    expect(lastLine(enc("one\ntwo\n\n"))).toBe("two");
    expect(lastLine(enc("10%\r50%\r\x1b[32m90%\x1b[0m"))).toBe("90%");
    expect(lastLine(enc("x".repeat(500))).length).toBe(200);
    expect(lastLine(enc(""))).toBe("");
  });
});
