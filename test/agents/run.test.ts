// Real processes: every agent runs the fake script through bash (see test/fake/agent-harness.ts).
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isAlive, identityOf } from "../../src/process/procfs";
import { createAgentTool } from "../../src/tools/agent";
import type { Tool } from "../../src/tools/tool";
import { type AgentFixture, type FixtureOptions, makeAgentFixture } from "../fake/agent-harness";
import * as S from "../fake/agent-streams";
import { invokeTool, makeCallContext } from "../fake/scope";

const fixtures: AgentFixture[] = [];
afterEach(async () => {
  for (const f of fixtures.splice(0)) await f.scope.close();
});

function setup(opts: FixtureOptions = {}) {
  const f = makeAgentFixture(opts);
  fixtures.push(f);
  return { f, tool: createAgentTool(f.scope)! };
}

async function call(f: AgentFixture, tool: Tool, args: Record<string, unknown>, outputLimitBytes?: number) {
  const ctx = makeCallContext(f.scope, { outputLimitBytes });
  const inv = await invokeTool(tool, args, ctx);
  let json: Record<string, any> | undefined;
  try {
    json = JSON.parse(inv.result.output);
  } catch {
    json = undefined;
  }
  return { ...inv, ctx, json };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const TRICKY = `it's "quoted" $(touch /tmp/scv-pwned) ; rm -rf / && echo \`id\`\nsecond line *`;

describe("invocation contracts", () => {
  test("each agent's argv, with model and effort as single arguments", async () => {
    const { f, tool } = setup();
    const runs: [string, string, Record<string, string>][] = [
      ["claude", S.CLAUDE_OK, { model: "claude-opus-4-8[1m]", effort: "high" }],
      ["codex", S.CODEX_OK, { model: "gpt-5.5", effort: "xhigh" }],
      ["grok", "grok reply\n", { model: "grok-4", effort: "low" }],
      ["dsh", "dsh reply\n", {}],
      ["pi", S.PI_OK, { model: "anthropic/claude-sonnet-4-5", effort: "max" }],
    ];
    for (const [agent, stdout, opts] of runs) {
      f.set({ stdout });
      const r = await call(f, tool, { agent, prompt: TRICKY, ...opts });
      expect(r.json?.status).toBe("completed");
    }
    const [claude, codex, grok, dsh, pi] = f.invocations().map((i) => i.args);
    expect(claude!.slice(0, 5)).toEqual(["-p", "--output-format", "stream-json", "--verbose", "--session-id"]);
    expect(claude![5]).toMatch(UUID);
    expect(claude!.slice(6)).toEqual(["--model", "claude-opus-4-8[1m]", "--effort", "high", TRICKY]);
    expect(codex!.slice(0, 3)).toEqual(["exec", "--json", "-o"]);
    expect(codex![3]).toStartWith(join(f.scvHome, "agents", "codex", "tmp", "last-message-"));
    expect(codex!.slice(4)).toEqual(["-m", "gpt-5.5", "-c", 'model_reasoning_effort="xhigh"', TRICKY]);
    expect(grok!.slice(0, 3)).toEqual(["--output-format", "json", "-s"]);
    expect(grok![3]).toMatch(UUID);
    expect(grok!.slice(4)).toEqual(["-m", "grok-4", "--reasoning-effort", "low", "-p", TRICKY]);
    expect(dsh).toEqual(["--profile", "headless", TRICKY]);
    expect(pi!.slice(0, 4)).toEqual(["-p", "--mode", "json", "--session-id"]);
    expect(pi![4]).toMatch(UUID);
    expect(pi!.slice(5)).toEqual(["--model", "anthropic/claude-sonnet-4-5", "--thinking", "max", TRICKY]);
    expect(existsSync("/tmp/scv-pwned")).toBe(false);
  });

  test('permissions = "full" switches follow the fixed arguments, before the output format', async () => {
    const full = { permissions: "full" as const };
    const { f, tool } = setup({ overrides: { claude: full, codex: full, grok: full, dsh: full, pi: full } });
    for (const [agent, stdout] of [["claude", S.CLAUDE_OK], ["codex", S.CODEX_OK], ["grok", "ok\n"], ["dsh", "ok\n"], ["pi", S.PI_OK]] as const) {
      f.set({ stdout });
      await call(f, tool, { agent, prompt: "go" });
    }
    const [claude, codex, grok, dsh, pi] = f.invocations();
    expect(claude!.args.slice(0, 6)).toEqual(["-p", "--permission-mode", "bypassPermissions", "--output-format", "stream-json", "--verbose"]);
    expect(codex!.args.slice(0, 6)).toEqual(["exec", "--dangerously-bypass-approvals-and-sandbox", "-c", 'web_search="live"', "--json", "-o"]);
    expect(grok!.args.slice(0, 4)).toEqual(["--always-approve", "--output-format", "json", "-s"]);
    expect(grok!.args.slice(5)).toEqual(["-p", "go"]);
    expect(dsh!.args).toEqual(["--profile", "headless", "go"]);
    expect(dsh!.env.DSH_PERMISSION_MODE).toBe("danger-full-access");
    expect(pi!.args.slice(0, 3)).toEqual(["-p", "--mode", "json"]);
    expect(pi!.env.DSH_PERMISSION_MODE).toBeUndefined();
  });

  test("custom args replace the fixed arguments only", async () => {
    const { f, tool } = setup({ agents: ["codex"], overrides: { codex: { args: [join(import.meta.dir, "../fake/agent-fake.sh"), "exec", "--skip-git-repo-check"] } } });
    f.set({ stdout: S.CODEX_OK });
    await call(f, tool, { agent: "codex", prompt: "go" });
    expect(f.invocations()[0]!.args.slice(0, 4)).toEqual(["exec", "--skip-git-repo-check", "--json", "-o"]);
  });
});

describe("conversations", () => {
  test("claude resumes with --resume and the ID it started with", async () => {
    const { f, tool } = setup({ agents: ["claude"] });
    f.set({ stdout: S.CLAUDE_OK });
    const a = await call(f, tool, { agent: "claude", prompt: "one" });
    const b = await call(f, tool, { session: "claude-1", prompt: "two" });
    expect([a.json?.session, a.json?.turn, b.json?.session, b.json?.turn]).toEqual(["claude-1", 1, "claude-1", 2]);
    const [first, second] = f.invocations();
    const id = first!.args[first!.args.indexOf("--session-id") + 1];
    expect(second!.args).toEqual(["-p", "--output-format", "stream-json", "--verbose", "--resume", id!, "two"]);
    expect(JSON.stringify(b.json)).not.toContain(id!);
  });

  test("codex resumes with `resume <thread-id>` before the prompt, and usage becomes per turn", async () => {
    const { f, tool } = setup({ agents: ["codex"] });
    f.set({ stdout: S.CODEX_OK });
    const a = await call(f, tool, { agent: "codex", prompt: "one" });
    expect(a.json?.usage).toEqual({ input_tokens: 606, output_tokens: 90, cached_input_tokens: 150 });
    f.set({ stdout: S.CODEX_RESUMED });
    const b = await call(f, tool, { session: "codex-1", prompt: "two", model: "gpt-5.5" });
    expect(b.json?.reply).toBe("Resumed and done.");
    expect(b.json?.usage).toEqual({ input_tokens: 205, output_tokens: 30, cached_input_tokens: 0 });
    const args = f.invocations()[1]!.args;
    expect(args.slice(-5)).toEqual(["-m", "gpt-5.5", "resume", S.CODEX_THREAD_ID, "two"]);
  });

  test("pi passes the same --session-id every turn", async () => {
    const { f, tool } = setup({ agents: ["pi"] });
    f.set({ stdout: S.PI_OK });
    await call(f, tool, { agent: "pi", prompt: "one" });
    await call(f, tool, { session: "pi-1", prompt: "two" });
    const [a, b] = f.invocations();
    expect(a!.args.slice(0, 5)).toEqual(b!.args.slice(0, 5));
    expect(b!.args[3]).toBe("--session-id");
  });

  test("a conversation keeps its cwd; a marker names its CLI session while it lives", async () => {
    const { f, tool } = setup({ agents: ["codex"] });
    mkdirSync(join(f.scope.workspace, "proj"));
    mkdirSync(join(f.scope.workspace, "other"));
    f.set({ stdout: S.CODEX_OK });
    await call(f, tool, { agent: "codex", prompt: "one", cwd: "proj" });
    const marker = join(f.scvHome, "state", "conversations", `${S.CODEX_THREAD_ID}.json`);
    const body = JSON.parse(readFileSync(marker, "utf8"));
    expect(body.owner).toEqual({ pid: process.pid, start_time: identityOf(process.pid)!.startTime });
    expect(body.handle).toBe("codex-1");
    const moved = await call(f, tool, { session: "codex-1", prompt: "two", cwd: "other" });
    expect(moved.result.output).toContain("conversation codex-1 runs in");
    await call(f, tool, { session: "codex-1", prompt: "two" });
    expect(f.invocations().map((i) => i.cwd)).toEqual([join(f.scope.workspace, "proj"), join(f.scope.workspace, "proj")]);
    await f.scope.close();
    expect(existsSync(marker)).toBe(false);
  });

  test("one turn at a time: a second call while a turn runs is session busy", async () => {
    const { f, tool } = setup({ agents: ["codex"] });
    f.set({ stdout: S.CODEX_OK });
    await call(f, tool, { agent: "codex", prompt: "one" });
    // Turn two runs until the test releases it (a 2 s sleep could end before call three on a busy machine).
    const release = join(f.root, "release-two");
    f.set({ hold: release });
    const running = call(f, tool, { session: "codex-1", prompt: "two" });
    await waitFor(() => f.invocations().length === 2);
    const busy = await call(f, tool, { session: "codex-1", prompt: "three" });
    expect(busy.result.output).toStartWith("session busy");
    writeFileSync(release, "");
    expect((await running).json?.turn).toBe(2);
  });

  test("a first turn that fails before the CLI reports a session is forgotten", async () => {
    const { f, tool } = setup({ agents: ["codex"] });
    f.set({ stdout: "", stderr: "boom", exit: 1 });
    const r = await call(f, tool, { agent: "codex", prompt: "one" });
    expect(r.json?.status).toBe("failed");
    expect(r.json?.session).toBeUndefined();
    expect(r.json?.error).toBe("boom");
    const again = await call(f, tool, { session: "codex-1", prompt: "two" });
    expect(again.result.output).toContain('session "codex-1" is not a conversation of this session');
  });
});

describe("environment", () => {
  const inherited = {
    OPENAI_API_KEY: "sk-parent",
    MY_SERVICE_API_KEY: "x",
    ANTHROPIC_API_KEY: "a",
    ANTHROPIC_AUTH_TOKEN: "a",
    ANTHROPIC_BASE_URL: "http://parent",
    CLAUDE_CODE_OAUTH_TOKEN: "t",
    CLAUDE_CONFIG_DIR: "/home/u/.claude",
    OPENAI_BASE_URL: "http://parent",
    CODEX_BASE_URL: "http://parent",
    CODEX_HOME: "/home/u/.codex",
    GROK_HOME: "/home/u/.grok",
    GROK_XAI_API_BASE_URL: "http://parent",
    XAI_API_KEY: "x",
    DSH_HOME: "/home/u/.dsh",
    DSH_PERMISSION_MODE: "danger-full-access",
    DEEPSEEK_BASE_URL: "http://parent",
    PI_CODING_AGENT_DIR: "/home/u/.pi/agent",
    PI_OFFLINE: "1",
    SCV_PROVIDER: "parent",
    SCV_MODEL: "parent-model",
    XDG_CONFIG_HOME: "/home/u/.config",
    KEEP_ME: "kept",
  };
  const removed = Object.keys(inherited).filter((k) => k !== "KEEP_ME" && !k.startsWith("XDG_"));
  const own: Record<string, [string, string] | undefined> = {
    claude: undefined,
    codex: ["CODEX_HOME", ""],
    grok: ["GROK_HOME", ".grok"],
    dsh: ["DSH_HOME", ".dsh"],
    pi: ["PI_CODING_AGENT_DIR", ".pi/agent"],
  };

  test("a private home, the agent's own state variable, and nothing inherited that configures an agent", async () => {
    const { f, tool } = setup();
    // Set after the scope's config is loaded: SCV_PROVIDER would otherwise select the parent's provider there.
    Object.assign(f.scope.env, inherited);
    for (const [agent, stdout] of [["claude", S.CLAUDE_OK], ["codex", S.CODEX_OK], ["grok", "ok\n"], ["dsh", "ok\n"], ["pi", S.PI_OK]] as const) {
      f.set({ stdout });
      const r = await call(f, tool, { agent, prompt: "go" });
      expect(r.json?.status).toBe("completed");
      const { env } = f.invocations().at(-1)!;
      const home = join(f.scvHome, "agents", agent);
      expect(env.HOME).toBe(home);
      expect(env.SCV_HOME).toBe(join(home, ".scv"));
      expect(env.XDG_CONFIG_HOME).toBe(join(home, ".config"));
      expect(env.XDG_DATA_HOME).toBe(join(home, ".local/share"));
      expect(env.XDG_STATE_HOME).toBe(join(home, ".local/state"));
      expect(env.KEEP_ME).toBe("kept");
      expect(env.SCV_DELEGATION_DEPTH).toBe("1");
      expect(env.SCV_PARENT).toContain(`/${f.scope.sessionId}/${agent}-`);
      const state = own[agent];
      if (state) expect(env[state[0]]).toBe(state[1] ? join(home, state[1]) : home);
      for (const name of removed) if (name !== state?.[0]) expect([agent, name, env[name]] as unknown[]).toEqual([agent, name, undefined]);
      expect(env.GROK_DISABLE_AUTOUPDATER as string | undefined).toBe(agent === "grok" ? "1" : undefined);
      expect(existsSync(home)).toBe(true);
    }
  });

  test("stdin is at end of file", async () => {
    const { f, tool } = setup({ agents: ["dsh"], env: { FAKE_AGENT_STDIN: "1" } });
    f.set({ stdout: "ok\n" });
    const r = await call(f, tool, { agent: "dsh", prompt: "go", timeout_seconds: 10 });
    expect(r.json?.status).toBe("completed");
    const stdinFile = readdirSync(f.logDir).find((n) => n.endsWith(".stdin"))!;
    expect(readFileSync(join(f.logDir, stdinFile), "utf8")).toBe("");
  });
});

describe("cwd", () => {
  test("relative and absolute directories inside the workspace, resolved through symlinks", async () => {
    const { f, tool } = setup({ agents: ["dsh"] });
    const ws = f.scope.workspace;
    mkdirSync(join(ws, "proj/sub"), { recursive: true });
    symlinkSync(join(ws, "proj"), join(ws, "link"));
    f.set({ stdout: "ok\n" });
    await call(f, tool, { agent: "dsh", prompt: "a" });
    await call(f, tool, { agent: "dsh", prompt: "b", cwd: "proj/sub" });
    await call(f, tool, { agent: "dsh", prompt: "c", cwd: join(ws, "proj") });
    await call(f, tool, { agent: "dsh", prompt: "d", cwd: "link" });
    expect(f.invocations().map((i) => i.cwd)).toEqual([ws, join(ws, "proj/sub"), join(ws, "proj"), join(ws, "proj")]);
  });

  test("escapes are refused without launching anything", async () => {
    const { f, tool } = setup({ agents: ["dsh"] });
    const ws = f.scope.workspace;
    const outside = realpathSync(f.root);
    symlinkSync(outside, join(ws, "escape"));
    writeFileSync(join(ws, "file.txt"), "x");
    for (const [cwd, message] of [
      ["escape", "is outside the workspace"],
      ["../", "is outside the workspace"],
      [outside, "is outside the workspace"],
      ["file.txt", "is not a directory"],
      ["missing/dir", "does not exist"],
    ]) {
      const r = await call(f, tool, { agent: "dsh", prompt: "x", cwd });
      expect([cwd, r.result.ok, r.result.output.includes(message!)]).toEqual([cwd, false, true]);
    }
    expect(f.invocations()).toHaveLength(0);
  });

  test("a symlink swapped to point outside after approval is caught when the call runs", async () => {
    const { f, tool } = setup({ agents: ["dsh"] });
    const ws = f.scope.workspace;
    mkdirSync(join(ws, "proj"));
    symlinkSync(join(ws, "proj"), join(ws, "link"));
    const ctx = makeCallContext(f.scope);
    const a = await tool.assess({ agent: "dsh", prompt: "x", cwd: "link" }, ctx);
    expect(a.ok).toBe(true);
    Bun.spawnSync(["ln", "-sfn", realpathSync(f.root), join(ws, "link")]);
    const r = await tool.run(a.ok ? a.args : undefined, ctx);
    expect(r.ok).toBe(false);
    expect(r.output).toContain("is outside the workspace");
    expect(f.invocations()).toHaveLength(0);
  });
});

describe("timeout and cancel", () => {
  test("a timed-out run stops the agent and its background child; a reported session stays resumable", async () => {
    const { f, tool } = setup({ agents: ["codex"] });
    f.set({ stdout: S.lines(S.CODEX_THREAD), sleep: 30, child: true });
    const started = Date.now();
    const r = await call(f, tool, { agent: "codex", prompt: "long", timeout_seconds: 1 });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(r.json?.status).toBe("timeout");
    expect(r.json?.session).toBe("codex-1");
    expect(r.json?.note).toContain("session codex-1");
    const child = f.invocations()[0]!.childPid!;
    expect(child).toBeGreaterThan(0);
    await waitFor(() => !isAlive(identityOf(child) ?? { pid: child, startTime: "gone" }));
  });

  test("cancelling the call stops the run with no survivor", async () => {
    const { f, tool } = setup({ agents: ["dsh"] });
    f.set({ stdout: "partial\n", sleep: 30, child: true });
    const ctx = makeCallContext(f.scope);
    const a = await tool.assess({ agent: "dsh", prompt: "long" }, ctx);
    const run = tool.run(a.ok ? a.args : undefined, ctx);
    await waitFor(() => f.invocations()[0]?.childPid !== undefined);
    const child = f.invocations()[0]!.childPid!;
    const started = Date.now();
    ctx.cancel();
    const r = await run;
    expect(Date.now() - started).toBeLessThan(20_000); // stopped, not the 30 s sleep waited out
    expect(JSON.parse(r.output).status).toBe("cancelled");
    await waitFor(() => identityOf(child) === undefined || !isAlive(identityOf(child)!));
    expect(readdirSync(join(f.scvHome, "state", "delegations")).filter((n) => n.endsWith(".json"))).toEqual([]);
  });
});

describe("output", () => {
  test("Codex's -o file gives the reply when the stream has none, and is deleted", async () => {
    const { f, tool } = setup({ agents: ["codex"] });
    f.set({ stdout: S.CODEX_NO_MESSAGE, last: "From the file." });
    const r = await call(f, tool, { agent: "codex", prompt: "x" });
    expect(r.json?.reply).toBe("From the file.");
    expect(readdirSync(join(f.scvHome, "agents", "codex", "tmp"))).toEqual([]);
  });

  test("a structured stream without any JSON falls back to its text", async () => {
    const { f, tool } = setup({ agents: ["claude"] });
    f.set({ stdout: "plain words from an older CLI\n" });
    const r = await call(f, tool, { agent: "claude", prompt: "x" });
    expect(r.json?.status).toBe("completed");
    expect(r.json?.reply).toBe("plain words from an older CLI");
  });

  test("a plain-text reply is bounded by the output limit", async () => {
    const { f, tool } = setup({ agents: ["grok"] });
    f.set({ stdout: `${"é".repeat(60_000)}\n` });
    const r = await call(f, tool, { agent: "grok", prompt: "x" }, 4096);
    expect(Buffer.byteLength(r.result.output)).toBeLessThanOrEqual(4096);
    expect(r.json?.truncated).toBe(true);
    expect(r.json?.reply.length).toBeGreaterThan(1000);
  });

  test("Codex's sign-out and provider failures", async () => {
    const { f, tool } = setup({ agents: ["codex", "claude"] });
    f.set({ stdout: S.CODEX_401, exit: 1 });
    const a = await call(f, tool, { agent: "codex", prompt: "x" });
    expect(a.json?.error).toContain("401 Unauthorized");
    expect(a.json?.hint).toContain("scv agents login codex");
    expect(a.json?.fallback).toContain("Other agents are available: claude.");
    f.set({ stdout: S.CODEX_500 });
    const b = await call(f, tool, { agent: "codex", prompt: "x" });
    expect(b.json?.fallback).toBeDefined();
    expect(b.json?.hint).toBeUndefined();
  });

  test("a failed plain-text run: its closing stdout is the error, but only stderr can bring a fallback", async () => {
    const { f, tool } = setup({ agents: ["grok", "claude"] });
    // What the agent printed (its reply) says 429; that must not suggest another agent.
    f.set({ stdout: "upstream said: status 429 Too Many Requests\n", exit: 1 });
    const a = await call(f, tool, { agent: "grok", prompt: "x" });
    expect(a.json?.status).toBe("failed");
    expect(a.json?.error).toBe("upstream said: status 429 Too Many Requests");
    expect(a.json?.fallback).toBeUndefined();
    // The same words from the CLI on stderr are its own error report.
    f.set({ stdout: "", stderr: "error: status 429 Too Many Requests", exit: 1 });
    const b = await call(f, tool, { agent: "grok", prompt: "x" });
    expect(b.json?.error).toBe("error: status 429 Too Many Requests");
    expect(b.json?.fallback).toContain("Other agents are available: claude.");
  });
});

/** Polls `cond`; the bound (25 s) only catches a hang: nothing here promises a time. */
async function waitFor(cond: () => boolean, ms = 25_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await Bun.sleep(25);
  }
}
