// Cancel and timeout (including an agent that ignores session/cancel), dying mid-turn, kill and exit between
// turns, idle teardown, full-permission modes, and model/effort selection over ACP.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { listRecords } from "../../../src/process/delegations";
import { killDelegation } from "../../../src/process/reconcile";
import { acpCall, acpFixtures, script } from "../../fake/acp-harness";

const setup = acpFixtures();

const recordsGone = async (scvHome: string) => {
  for (let i = 0; i < 1250 && listRecords(scvHome).length; i++) await Bun.sleep(20); // up to 25 s
  return listRecords(scvHome).length === 0;
};

const serverGone = async (pid: number) => {
  for (let i = 0; i < 500 && existsSync(`/proc/${pid}`); i++) await Bun.sleep(50); // up to 25 s
  return !existsSync(`/proc/${pid}`);
};

describe("cancel and timeout", () => {
  test("a cancelled turn sends session/cancel; an agent that settles keeps the conversation", async () => {
    const { f, tool } = setup({ servers: ["claude"] });
    const r = await acpCall(f, tool, { agent: "claude", prompt: script([{ say: "working\n" }, { waitCancel: true }]) }, { cancelOnProgress: true });
    expect(r.json).toMatchObject({ status: "cancelled", session: "claude-1" });
    expect(f.servers()[0]!.received.map((m) => m.method)).toContain("session/cancel");
    const next = await acpCall(f, tool, { session: "claude-1", prompt: script([{ say: "resumed" }]) });
    expect(next.json).toMatchObject({ status: "completed", reply: "resumed", turn: 2 });
  });

  test("a timed-out turn is resumable when the agent answers session/cancel", async () => {
    const { f, tool } = setup({ servers: ["codex"] });
    const r = await acpCall(f, tool, { agent: "codex", timeout_seconds: 2, prompt: script([{ waitCancel: true }]) });
    expect(r.json).toMatchObject({ status: "timeout", session: "codex-1" });
    expect(r.json.note).toContain("session codex-1");
  });

  test("an agent that ignores session/cancel is shut down after 2 seconds and its conversation forgotten", async () => {
    const { f, tool } = setup({ servers: ["claude"] });
    const started = Date.now();
    const r = await acpCall(f, tool, { agent: "claude", prompt: script([{ say: "working\n" }, { hang: true }]) }, { cancelOnProgress: true });
    expect(r.json.status).toBe("cancelled");
    expect(r.json.session).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
    const pid = f.servers()[0]!.pid;
    expect(await serverGone(pid)).toBe(true);
    expect(await recordsGone(f.scvHome)).toBe(true);
    const next = await acpCall(f, tool, { session: "claude-1", prompt: "again" });
    expect(next.result.output).toContain('session "claude-1" is not a conversation of this session');
  });
});

describe("the server's life", () => {
  test("an agent dying mid-turn fails the call with its stderr tail and the fallback", async () => {
    const { f, tool } = setup({ servers: ["claude", "codex"] });
    const r = await acpCall(f, tool, { agent: "claude", prompt: script([{ say: "about to crash\n" }, { exit: 3 }]) });
    expect(r.json.status).toBe("failed");
    expect(r.json.error).toContain("exited mid-turn with code 3");
    expect(r.json.stderr_tail).toContain("fake agent: crashed mid-turn");
    expect(r.json.exit_code).toBe(3);
    expect(r.json.fallback).toContain("codex");
    expect(r.json.session).toBeUndefined();
  });

  test("killed between turns: collected at once, gone from the records, and the next turn says its server exited", async () => {
    const { f, tool } = setup({ servers: ["grok"] });
    await acpCall(f, tool, { agent: "grok", prompt: script([{ say: "hi" }]) });
    const pid = f.servers()[0]!.pid;
    process.kill(pid, "SIGKILL");
    expect(await serverGone(pid)).toBe(true); // no zombie: /proc/<pid> disappears only once reaped
    expect(await recordsGone(f.scvHome)).toBe(true);
    const next = await acpCall(f, tool, { session: "grok-1", prompt: "again" });
    expect(next.result.ok).toBe(false);
    expect(next.result.output).toContain("conversation grok-1 has ended: its server exited");
    const fresh = await acpCall(f, tool, { agent: "grok", prompt: script([{ say: "new" }]) });
    expect(fresh.json).toMatchObject({ status: "completed", session: "grok-2" });
  });

  test("scv agents kill mid-turn: the call ends cancelled, the server and its record are gone", async () => {
    const { f, tool } = setup({ servers: ["claude"] });
    const pending = acpCall(f, tool, { agent: "claude", prompt: script([{ say: "working\n" }, { hang: true }]) });
    let records = listRecords(f.scvHome);
    for (let i = 0; i < 100 && !records.length; i++) {
      await Bun.sleep(20);
      records = listRecords(f.scvHome);
    }
    expect(records[0]!.idle_since_unix).toBeUndefined(); // running its turn
    const killed = await killDelegation(f.scvHome, records[0]!.handle, { graceMs: 200 });
    expect(killed.killed).toBe(true);
    const r = await pending;
    expect(r.json.status).toBe("cancelled");
    expect(r.json.session).toBeUndefined();
    expect(await serverGone(records[0]!.pid)).toBe(true);
    expect(await recordsGone(f.scvHome)).toBe(true);
  });

  test("an idle conversation is torn down after agent.conversation_idle_seconds: stdin closed, server gone, TMPDIR removed", async () => {
    const { f, tool } = setup({ servers: ["dsh"], config: { agent: { conversation_idle_seconds: 1 } as never } });
    await acpCall(f, tool, { agent: "dsh", prompt: script([{ say: "hi" }]) });
    const server = f.servers()[0]!;
    expect(existsSync(server.env.TMPDIR!)).toBe(true);
    expect(await serverGone(server.pid)).toBe(true);
    expect(await recordsGone(f.scvHome)).toBe(true);
    for (let i = 0; i < 1250 && existsSync(server.env.TMPDIR!); i++) await Bun.sleep(20); // up to 25 s
    expect(existsSync(server.env.TMPDIR!)).toBe(false);
    expect(readdirSync(join(f.scvHome, "agents", "dsh", "tmp"))).toEqual([]);
  });

  test("closing the session ends the server even when it ignores EOF", async () => {
    const { f, tool } = setup({ servers: ["codex"], env: { FAKE_ACP_IGNORE_EOF: "1" } });
    await acpCall(f, tool, { agent: "codex", prompt: script([{ say: "hi" }]) });
    const pid = f.servers()[0]!.pid;
    expect(existsSync(`/proc/${pid}`)).toBe(true);
    await f.scope.close();
    expect(existsSync(`/proc/${pid}`)).toBe(false);
    expect(listRecords(f.scvHome)).toHaveLength(0);
  });
});

describe("permissions = full", () => {
  test("claude and codex select their full-access session modes; codex also gets CODEX_CONFIG; grok --always-approve; dsh its variable", async () => {
    const full = { permissions: "full" as const };
    const { f, tool } = setup({ overrides: { claude: full, codex: full, grok: full, dsh: full } });
    for (const agent of ["claude", "codex", "grok", "dsh"]) {
      const r = await acpCall(f, tool, { agent, prompt: script([{ say: "ok" }]) });
      expect(r.json.status).toBe("completed");
      expect(r.summary).toContain("FULL PERMISSIONS");
    }
    const by = Object.fromEntries(f.servers().map((s) => [s.flavour, s]));
    const mode = (s: (typeof by)[string]) => (s!.received.find((m) => m.method === "session/set_mode") as any)?.params.modeId;
    expect(mode(by["claude-agent-acp"])).toBe("bypassPermissions");
    expect(mode(by["codex-acp"])).toBe("agent-full-access");
    expect(by["codex-acp"]!.env.CODEX_CONFIG).toBe('{"web_search":"live"}');
    expect(by.grok!.args).toEqual(["agent", "--always-approve", "stdio"]);
    expect(mode(by.grok)).toBeUndefined();
    expect(by.dsh!.env.DSH_PERMISSION_MODE).toBe("danger-full-access");
  });

  test("claude as root: bypassPermissions refused with the root hint", async () => {
    const { f, tool } = setup({ servers: ["claude"], overrides: { claude: { permissions: "full" } }, env: { FAKE_ACP_ROOT: "1" } });
    const r = await acpCall(f, tool, { agent: "claude", prompt: "hello" });
    expect(r.json.status).toBe("failed");
    expect(r.json.error).toContain("cannot be used with root/sudo privileges");
    expect(r.json.hint).toContain("IS_SANDBOX=1");
    expect(r.json.hint).toContain("normal user");
  });
});

describe("model and effort", () => {
  test("set_config_option on model and effort/reasoning_effort, at any turn", async () => {
    const { f, tool } = setup({ servers: ["claude", "codex"] });
    const c = await acpCall(f, tool, { agent: "claude", model: "opus", effort: "high", prompt: script([{ say: "ok" }]) });
    expect(c.json.status).toBe("completed");
    expect(c.summary).toContain("Selects: model opus, effort high");
    const x = await acpCall(f, tool, { agent: "codex", prompt: script([{ say: "ok" }]) });
    const x2 = await acpCall(f, tool, { session: x.json.session, model: "gpt-5.4", effort: "xhigh", prompt: script([{ say: "ok" }]) });
    expect(x2.json.status).toBe("completed");
    const sets = (flavour: string) =>
      f
        .servers()
        .find((s) => s.flavour === flavour)!
        .received.filter((m) => m.method === "session/set_config_option")
        .map((m: any) => [m.params.configId, m.params.value]);
    expect(sets("claude-agent-acp")).toEqual([
      ["model", "opus"],
      ["effort", "high"],
    ]);
    expect(sets("codex-acp")).toEqual([
      ["model", "gpt-5.4"],
      ["reasoning_effort", "xhigh"],
    ]);
  });

  test("a value the agent does not offer fails with the offered list and keeps the conversation", async () => {
    const { f, tool } = setup({ servers: ["codex"] });
    const r = await acpCall(f, tool, { agent: "codex", effort: "max", prompt: script([{ say: "never" }]) });
    expect(r.json.status).toBe("failed");
    expect(r.json.error).toBe('codex does not offer effort "max"; it offers: low, medium, high, xhigh. Pass one of them, or omit effort');
    expect(r.json.session).toBe("codex-1");
    const next = await acpCall(f, tool, { session: "codex-1", prompt: script([{ say: "fine" }]) });
    expect(next.json).toMatchObject({ status: "completed", reply: "fine" });
  });
});
