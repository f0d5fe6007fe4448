// What the real CLIs showed (claude 2.1.332, codex 0.171.0, grok 1.0.41), replayed from canned outputs through
// real processes: Grok's JSON output and sessions, Claude's final answer and sign-out usage, the root
// refusal, Codex's stderr notices, a crash by signal, and the private TMPDIR.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { agentCall, agentFixtures } from "../fake/agent-harness";
import * as S from "../fake/agent-streams";

const setup = agentFixtures();

describe("grok --output-format json", () => {
  test("reply, usage and a session continued with -r", async () => {
    const { f, tool } = setup({ agents: ["grok"] });
    f.set({ stdout: S.GROK_OK });
    const first = await agentCall(f, tool, { agent: "grok", prompt: "hello" });
    expect(first.json).toMatchObject({ status: "completed", reply: "Grok reply.", usage: { input_tokens: 310, output_tokens: 20 }, session: "grok-1", turn: 1 });
    const second = await agentCall(f, tool, { session: "grok-1", prompt: "again" });
    expect(second.json).toMatchObject({ status: "completed", session: "grok-1", turn: 2 });
    const [a, b] = f.invocations().map((i) => i.args);
    const id = a![a!.indexOf("-s") + 1];
    expect(b!.slice(b!.indexOf("-r"), b!.indexOf("-r") + 2)).toEqual(["-r", id!]);
    expect(b).not.toContain("-s");
  });

  test("a run Grok cancelled (a tool needed approval) fails with a note instead of an empty completion", async () => {
    const { f, tool } = setup({ agents: ["grok", "codex"] });
    f.set({ stdout: S.GROK_CANCELLED });
    const r = await agentCall(f, tool, { agent: "grok", prompt: "edit the file" });
    expect(r.json.status).toBe("failed");
    expect(r.json.error).toContain('stop reason "cancelled"');
    expect(r.json.note).toContain('permissions = "full"');
    expect(r.json.fallback).toBeUndefined();
  });

  test("the object on one line (an older build) is read the same way", async () => {
    const { f, tool } = setup({ agents: ["grok"] });
    f.set({ stdout: S.GROK_OK_ONE_LINE });
    const r = await agentCall(f, tool, { agent: "grok", prompt: "hello" });
    expect(r.json).toMatchObject({ status: "completed", reply: "Grok reply.", session: "grok-1" });
  });

  test("Grok and DeepSeek Harness give no progress lines: their output is one result, not a stream", async () => {
    const { f, tool } = setup({ agents: ["grok", "dsh"] });
    f.set({ stdout: S.GROK_OK });
    const grok = await agentCall(f, tool, { agent: "grok", prompt: "hello" });
    expect(grok.json.status).toBe("completed");
    expect(grok.ctx.progressLines).toEqual([]);
    f.set({ stdout: "Looking at the parser.\nRunning the tests.\nFixed the bug." });
    const dsh = await agentCall(f, tool, { agent: "dsh", prompt: "fix it" });
    expect(dsh.json).toMatchObject({ status: "completed", reply: "Looking at the parser.\nRunning the tests.\nFixed the bug." });
    expect(dsh.ctx.progressLines).toEqual([]);
  });

  test("refusal is declined", async () => {
    const { f, tool } = setup({ agents: ["grok"] });
    f.set({ stdout: S.GROK_REFUSAL });
    const r = await agentCall(f, tool, { agent: "grok", prompt: "x" });
    expect(r.json).toMatchObject({ status: "declined", reply: "I won't do that." });
  });
});

describe("claude", () => {
  test("the final answer is not a progress line; interim text is", async () => {
    const { f, tool } = setup({ agents: ["claude"] });
    f.set({ stdout: S.CLAUDE_FINAL_TEXT });
    const r = await agentCall(f, tool, { agent: "claude", prompt: "go" });
    expect(r.json.reply).toBe("All tools done.");
    expect(r.ctx.progressLines).toContain("Let me look.");
    expect(r.ctx.progressLines).not.toContain("All tools done.");
  });

  test("signed out: usage is null and the sign-in hint is given", async () => {
    const { f, tool } = setup({ agents: ["claude"] });
    f.set({ stdout: S.CLAUDE_SIGNED_OUT, exit: 1 });
    const r = await agentCall(f, tool, { agent: "claude", prompt: "go" });
    expect(r.json).toMatchObject({ status: "failed", usage: null });
    expect(r.json.hint).toContain("scv agents login claude");
  });

  test("full permissions as root: the refusal comes back with the cause and the fix", async () => {
    const { f, tool } = setup({ agents: ["claude"], overrides: { claude: { permissions: "full" } } });
    f.set({ stdout: "", stderr: S.CLAUDE_ROOT_STDERR, exit: 1 });
    const r = await agentCall(f, tool, { agent: "claude", prompt: "go" });
    expect(r.json.status).toBe("failed");
    expect(r.json.error).toContain("cannot be used with root/sudo privileges");
    expect(r.json.hint).toContain("Run SCV as a normal user");
    expect(r.json.hint).toContain('"IS_SANDBOX": "1"');
  });
});

describe("process", () => {
  test("Codex's harmless notices stay out of stderr_tail", async () => {
    const { f, tool } = setup({ agents: ["codex"] });
    f.set({ stdout: S.CODEX_OK, stderr: `${S.CODEX_NOISE}\nreal warning` });
    const r = await agentCall(f, tool, { agent: "codex", prompt: "go" });
    expect(r.json.stderr_tail.trim()).toBe("real warning");
  });

  test("an agent killed by a signal names it", async () => {
    const { f, tool } = setup({ agents: ["dsh"] });
    f.set({ stdout: "", signal: "SEGV" });
    const r = await agentCall(f, tool, { agent: "dsh", prompt: "go" });
    expect(r.json.status).toBe("failed");
    expect(r.json.error).toBe("dsh was killed by SIGSEGV");
  });

  test("a private TMPDIR in the agent's home, cleaned of the run's leftovers", async () => {
    const { f, tool } = setup({ agents: ["claude"] });
    f.set({ stdout: S.CLAUDE_OK, tmpFile: "claude-0" });
    await agentCall(f, tool, { agent: "claude", prompt: "go" });
    const tmpdir = f.invocations()[0]!.env.TMPDIR!;
    expect(tmpdir).toStartWith(join(f.scvHome, "agents", "claude", "tmp") + "/");
    expect(existsSync(tmpdir)).toBe(false);
    expect(readdirSync(join(f.scvHome, "agents", "claude", "tmp"))).toEqual([]);
  });
});
