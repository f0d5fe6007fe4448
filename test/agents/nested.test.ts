// The nested SCV behind the `scv` agent, against a bash stand-in for `scv server --stdio` that speaks real
// protocol v3 lines (test/fake/scv-server-fake.sh): conversations on one child, progress, approval relay,
// cancel and timeout, a child dying, teardown, the depth limit, and the child's own background jobs.
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { finishedJobsIn } from "../../src/agents/nested/finished-jobs";
import { delegationState, listRecords } from "../../src/process/delegation-records";
import { killDelegation } from "../../src/process/reconcile";
import { createAgentTool } from "../../src/tools/agent";
import type { ToolRisk } from "../../src/scope";
import type { Tool } from "../../src/tools/tool";
import { type AgentFixture, type FixtureOptions, makeAgentFixture } from "../fake/agent-harness";
import { alive } from "../fake/proc";
import { invokeTool, makeCallContext } from "../fake/scope";

// A teardown test alone takes 4-5 s here (a 2 s grace and the fake's start): bun's 5 s default is too tight.
setDefaultTimeout(30_000);

const fixtures: AgentFixture[] = [];
afterEach(async () => {
  for (const f of fixtures.splice(0)) {
    await f.scope.close();
    rmSync(f.root, { recursive: true, force: true });
    rmSync(f.scope.workspace, { recursive: true, force: true });
  }
});

function setup(opts: FixtureOptions & { env?: Record<string, string> } = {}) {
  const f = makeAgentFixture({ agents: ["scv"], ...opts, env: { FAKE_SCV_LOG: "", ...opts.env } });
  (f.scope.env as Record<string, string>).FAKE_SCV_LOG = join(f.root, "scv-log");
  fixtures.push(f);
  return { f, tool: createAgentTool(f.scope)! };
}

type Asked = { tool?: string; risk: ToolRisk; summary: string };

async function call(f: AgentFixture, tool: Tool, args: Record<string, unknown>, opts: { approve?: (r: Asked) => boolean; cancelAfterMs?: number; cancelWhen?: () => boolean } = {}) {
  const ctx = makeCallContext(f.scope);
  const asked: Asked[] = [];
  if (opts.approve) {
    const decide = opts.approve;
    ctx.approve = async (r) => {
      asked.push(r);
      const approved = decide(r);
      return { approved, reason: approved ? "approved" : "denied by the test" };
    };
  }
  if (opts.cancelAfterMs !== undefined) setTimeout(() => ctx.cancel(), opts.cancelAfterMs);
  if (opts.cancelWhen) {
    const when = opts.cancelWhen;
    const poll = setInterval(() => {
      if (!when()) return;
      clearInterval(poll);
      ctx.cancel();
    }, 20);
  }
  const started = performance.now();
  const inv = await invokeTool(tool, { agent: "scv", ...args }, ctx);
  let json: Record<string, any> | undefined;
  try {
    json = JSON.parse(inv.result.output);
  } catch {}
  return { ...inv, json, progress: ctx.progressLines, asked, ms: performance.now() - started };
}

const requests = (f: AgentFixture) =>
  readFileSync(join(f.root, "scv-log", "requests"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { method: string; params: Record<string, unknown> });
const childPid = (f: AgentFixture) => Number(readFileSync(join(f.root, "scv-log", "pid"), "utf8"));
const scvRecords = (f: AgentFixture) => listRecords(f.scvHome).filter((r) => r.agent === "scv");

/** True from 150 ms after the child logged turn.start (time for its answer to reach the caller). */
function turnSeen(f: AgentFixture): () => boolean {
  let seenAt: number | undefined;
  return () => {
    if (seenAt === undefined && existsSync(join(f.root, "scv-log", "requests")) && requests(f).some((q) => q.method === "turn.start")) seenAt = Date.now();
    return seenAt !== undefined && Date.now() - seenAt >= 150;
  };
}

/**
 * Holds the fake child's report turn of its background job until the returned function is called (the fake's
 * default, a report about a second after the job starts, can land before the test reads the record on a busy
 * machine, or in the middle of the next call).
 */
function holdReport(f: AgentFixture): () => void {
  const file = join(f.root, "report-now");
  (f.scope.env as Record<string, string>).FAKE_SCV_REPORT_FILE = file;
  return () => writeFileSync(file, "");
}

async function until(check: () => boolean, ms = 20_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await Bun.sleep(25);
  }
  return check();
}

describe("conversations on one nested server", () => {
  test("initialize, session.start at depth + 1, one turn per call; progress without tool output", async () => {
    const { f, tool } = setup();
    const first = await call(f, tool, { prompt: "hello there", model: "gpt-nested" });
    expect(first.json).toMatchObject({ agent: "scv", status: "completed", reply: "all done", session: "scv-1", turn: 1 });
    expect(first.json!.usage).toEqual({ input_tokens: 10, output_tokens: 5 });
    expect(first.progress).toEqual(["line one", "line two", "$ make test", "compiling", "$ make test done"]);
    expect(JSON.stringify(first)).not.toContain("SECRET TOOL OUTPUT");
    const pid = childPid(f);
    const [rec] = scvRecords(f);
    expect(rec).toMatchObject({ agent: "scv", conversation: "scv-1", pid, depth: 1 });
    expect(delegationState(rec!)).toBe("idle");

    const second = await call(f, tool, { session: "scv-1", prompt: "hello again" });
    expect(second.json).toMatchObject({ status: "completed", session: "scv-1", turn: 2 });
    expect(childPid(f)).toBe(pid);
    const sent = requests(f);
    expect(sent.map((r) => r.method)).toEqual(["initialize", "session.start", "turn.start", "turn.start"]);
    expect(sent[0]!.params.protocol_version).toBe(3);
    const { sandbox_ceiling: ceiling, ...start } = sent[1]!.params as { sandbox_ceiling: Record<string, any> };
    expect(start).toEqual({ cwd: f.scope.workspace, delegation_depth: 1, model: "gpt-nested" });
    // The child's home is a private one: the parent's sandbox, with the parent's SCV home and hidden paths, caps it.
    expect(ceiling).toMatchObject({ mode: "workspace-write", network: false, auto_run: true, required: false });
    expect(ceiling.hidden_paths).toContain(f.scvHome);
    expect(sent[3]!.params.prompt).toBe("hello again");
  });

  test("a parent with auto_run off, network on and read-only mode sends that ceiling; a parent without a sandbox sends none", async () => {
    const { f, tool } = setup({ config: { sandbox: { mode: "read-only", auto_run: false, network: true, required: false, writable_roots: [], hidden_paths: [], allow_unix_sockets: [] } } });
    await call(f, tool, { prompt: "hello" });
    expect(requests(f)[1]!.params.sandbox_ceiling).toMatchObject({ mode: "read-only", network: true, auto_run: false });
    const off = setup({ config: { sandbox: { mode: "off", auto_run: true, network: false, required: false, writable_roots: [], hidden_paths: [], allow_unix_sockets: [] } } });
    await call(off.f, off.tool, { prompt: "hello" });
    expect(requests(off.f)[1]!.params.sandbox_ceiling).toBeUndefined();
  });

  test("effort is refused before anything starts; model only starts a conversation", async () => {
    const { f, tool } = setup();
    const effort = await call(f, tool, { prompt: "hello", effort: "high" });
    expect(effort.result.ok).toBe(false);
    expect(effort.result.output).toContain("scv does not take effort");
    await call(f, tool, { prompt: "hello" });
    const model = await call(f, tool, { session: "scv-1", prompt: "hello", model: "m2" });
    expect(model.result.output).toContain("scv takes model only when a conversation starts");
    expect(requests(f).filter((r) => r.method === "turn.start").length).toBe(1);
  });

  test("the depth limit: one level deeper on the child, no agent tool at the limit", async () => {
    const { f, tool } = setup({ delegationDepth: 1 });
    await call(f, tool, { prompt: "hello" });
    expect(requests(f)[1]!.params.delegation_depth).toBe(2);
    const atLimit = makeAgentFixture({ agents: ["scv"], delegationDepth: 2 });
    fixtures.push(atLimit);
    expect(createAgentTool(atLimit.scope)).toBeUndefined();
  });
});

describe("approvals relayed through the calling session's gate", () => {
  test("approved and denied answers go back as approval.resolve; the summary names the conversation and depth", async () => {
    const { f, tool } = setup();
    const yes = await call(f, tool, { prompt: "approve it" }, { approve: () => true });
    expect(yes.json?.reply).toBe("approved=true");
    expect(yes.asked).toEqual([{ tool: "bash", risk: "process", summary: "[scv-1 depth 1] $ rm -rf build" }]);
    const no = await call(f, tool, { session: "scv-1", prompt: "approve it" }, { approve: () => false });
    expect(no.json?.reply).toBe("approved=false");
    const resolves = requests(f).filter((r) => r.method === "approval.resolve");
    expect(resolves.map((r) => r.params.approved)).toEqual([true, false]);
  });

  test("without a gate the request is denied", async () => {
    const { f, tool } = setup();
    const r = await call(f, tool, { prompt: "approve it" });
    expect(r.json?.reply).toBe("approved=false");
  });
});

describe("cancel and timeout", () => {
  test("a cancelled turn that settles keeps the conversation", async () => {
    const { f, tool } = setup();
    // Cancelled once the child has the turn and has had a moment to answer it (from that event, not from the call's
    // start: the child's start varies with the machine's load).
    const turnStarted = turnSeen(f);
    const r = await call(f, tool, { prompt: "sleep a while" }, { cancelWhen: turnStarted });
    expect(r.json).toMatchObject({ status: "cancelled", session: "scv-1" });
    expect(requests(f).some((q) => q.method === "turn.cancel" && q.params.turn_id === "t1")).toBe(true);
    const again = await call(f, tool, { session: "scv-1", prompt: "hello" });
    expect(again.json).toMatchObject({ status: "completed", turn: 2 });
  });

  test("a timed-out turn is resumable", async () => {
    const { f, tool } = setup();
    const r = await call(f, tool, { prompt: "sleep a while", timeout_seconds: 1 });
    expect(r.json).toMatchObject({ status: "timeout", session: "scv-1" });
    expect(r.json!.note).toContain("session scv-1");
  });

  test("a child that never opens its session is stopped at the call's deadline", async () => {
    const { f, tool } = setup({ env: { FAKE_SCV_MUTE: "1" } });
    const r = await call(f, tool, { prompt: "hello", timeout_seconds: 1 });
    expect(r.result.ok).toBe(false);
    expect(r.result.output).toContain("did not open its session within 1 seconds");
    expect(await until(() => !alive(childPid(f)))).toBe(true);
    expect(scvRecords(f)).toEqual([]);
  });

  test("a child that ignores turn.cancel is shut down after 2 s and the conversation forgotten", async () => {
    const { f, tool } = setup();
    const turnStarted = turnSeen(f);
    const r = await call(f, tool, { prompt: "stubborn work" }, { cancelWhen: turnStarted });
    expect(r.json?.status).toBe("cancelled");
    expect(r.json?.session).toBeUndefined();
    expect(r.ms).toBeGreaterThan(2000);
    expect(await until(() => !alive(childPid(f)))).toBe(true);
    expect(await until(() => scvRecords(f).length === 0)).toBe(true);
    const next = await call(f, tool, { session: "scv-1", prompt: "hello" });
    expect(next.result.output).toContain("not a conversation of this session");
  });
});

describe("a nested server that exits", () => {
  test("mid-turn: the call fails with its stderr tail and the conversation ends", async () => {
    const { f, tool } = setup();
    const r = await call(f, tool, { prompt: "die now" });
    expect(r.json).toMatchObject({ status: "failed", exit_code: 3 });
    expect(r.json!.stderr_tail).toContain("boom: the nested server broke");
    expect(r.json!.error).toContain("exited during the turn");
    expect(r.json!.session).toBeUndefined();
    expect(scvRecords(f)).toEqual([]);
  });

  test("between turns: collected at once; the next turn says its server exited, then a new one starts cleanly", async () => {
    const { f, tool } = setup();
    await call(f, tool, { prompt: "hello" });
    const pid = childPid(f);
    process.kill(pid, "SIGKILL");
    expect(await until(() => scvRecords(f).length === 0)).toBe(true);
    const next = await call(f, tool, { session: "scv-1", prompt: "hello" });
    expect(next.result.ok).toBe(false);
    expect(next.result.output).toContain("its server exited");
    const fresh = await call(f, tool, { prompt: "hello" });
    expect(fresh.json).toMatchObject({ status: "completed", session: "scv-2" });
    expect(childPid(f)).not.toBe(pid);
  });
});

describe("scv agents kill", () => {
  test("kills an idle nested SCV like any delegation; the conversation then says its server exited", async () => {
    const { f, tool } = setup();
    await call(f, tool, { prompt: "hello" });
    const [rec] = scvRecords(f);
    const outcome = await killDelegation(f.scvHome, rec!.handle);
    expect(outcome.killed).toBe(true);
    expect(await until(() => scvRecords(f).length === 0)).toBe(true);
    expect(alive(rec!.pid)).toBe(false);
    const next = await call(f, tool, { session: "scv-1", prompt: "hello" });
    expect(next.result.output).toContain("its server exited");
  });
});

describe("teardown", () => {
  test("an idle conversation expires and its server ends", async () => {
    const { f, tool } = setup({ config: { agent: { conversation_idle_seconds: 1 } } });
    await call(f, tool, { prompt: "hello" });
    const pid = childPid(f);
    expect(await until(() => !alive(pid), 20_000)).toBe(true); // after the 1 s idle limit, not never
    expect(await until(() => scvRecords(f).length === 0)).toBe(true);
  });

  test("session end closes stdin; a server that ignores EOF is killed after 2 s", async () => {
    const { f, tool } = setup({ env: { FAKE_SCV_IGNORE_EOF: "1" } });
    await call(f, tool, { prompt: "hello" });
    const pid = childPid(f);
    const t0 = performance.now();
    await f.scope.close();
    expect(performance.now() - t0).toBeGreaterThan(1900);
    expect(alive(pid)).toBe(false);
    expect(scvRecords(f)).toEqual([]);
  });

  test("session end with a server that exits on EOF is quick", async () => {
    const { f, tool } = setup();
    await call(f, tool, { prompt: "hello" });
    const pid = childPid(f);
    const t0 = performance.now();
    await f.scope.close();
    expect(performance.now() - t0).toBeLessThan(1500);
    expect(alive(pid)).toBe(false);
  });
});

describe("the nested session's own background jobs", () => {
  test("counted in the record until reported; report-turn approvals are denied", async () => {
    const { f, tool } = setup();
    const reportNow = holdReport(f);
    const r = await call(f, tool, { prompt: "jobs please" });
    expect(r.json?.reply).toBe("started job-1");
    let [rec] = scvRecords(f);
    expect(rec?.background_jobs).toBe(1);
    expect(delegationState(rec!)).toBe("background");
    reportNow();
    expect(await until(() => requests(f).some((q) => q.method === "approval.resolve"))).toBe(true);
    const resolve = requests(f).find((q) => q.method === "approval.resolve")!;
    expect(resolve.params).toMatchObject({ approval_id: "ap-report", approved: false });
    expect(await until(() => scvRecords(f)[0]?.background_jobs === undefined)).toBe(true);
    [rec] = scvRecords(f);
    expect(delegationState(rec!)).toBe("idle");
  });

  test("a later call whose tool output shows the job finished stops counting it", async () => {
    const { f, tool } = setup();
    holdReport(f); // never reported: only the tool output below can stop the count
    await call(f, tool, { prompt: "jobs please" });
    expect(scvRecords(f)[0]?.background_jobs).toBe(1);
    await call(f, tool, { session: "scv-1", prompt: "seen" });
    expect(scvRecords(f)[0]?.background_jobs).toBeUndefined();
    expect(requests(f).some((q) => q.method === "approval.resolve")).toBe(false);
  });

  test("finished jobs are read from handles and statuses only", () => {
    expect(finishedJobsIn('{"job":"job-2","status":"completed"}')).toEqual(["job-2"]);
    expect(finishedJobsIn('{"jobs":[{"job":"job-1","status":"running"},{"job":"job-3","status":"failed"}]}')).toEqual(["job-3"]);
    expect(finishedJobsIn("job-1 finished")).toEqual([]);
  });
});
