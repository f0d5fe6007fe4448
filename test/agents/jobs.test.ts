// Background jobs over the real protocol: the fake model endpoint drives the turns, and the committed fake agent
// script (run through bash) is the delegated CLI. Real processes throughout.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JobManager } from "../../src/agents/jobs";
import { BASH, FAKE_AGENT, signIn } from "../fake/agent-harness";
import { CLAUDE_OK } from "../fake/agent-streams";
import { type Harness, startHarness } from "../fake/harness";
import { text, toolCalls } from "../fake/model-server";
import { makeScope } from "../fake/scope";
import { alive } from "../fake/proc";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

interface JobOpts {
  reply?: string;
  sleep?: number;
  /** The fake agent's run lasts until `release()` (FAKE_AGENT_HOLD): "still running" without a race against a sleep. */
  hold?: boolean;
  child?: boolean;
  maxBackground?: number;
  extraConfig?: string;
}

async function jobHarness(o: JobOpts = {}) {
  const dir = mkdtempSync(join(tmpdir(), "scv-jobs-"));
  const stdout = join(dir, "agent-stdout.txt");
  writeFileSync(stdout, o.reply ?? "fixed the bug in parser.ts");
  const env: Record<string, string> = { FAKE_AGENT_STDOUT: stdout, FAKE_AGENT_LOG: dir };
  if (o.sleep) env.FAKE_AGENT_SLEEP = String(o.sleep);
  const hold = join(dir, "release");
  if (o.hold) env.FAKE_AGENT_HOLD = hold;
  if (o.child) env.FAKE_AGENT_CHILD = "1";
  const harness = await startHarness({
    env,
    config: `[agent]\nmax_background = ${o.maxBackground ?? 4}\n[agents.dsh]\ncommand = "${BASH}"\nargs = ["${FAKE_AGENT}", "--profile", "headless"]\n${o.extraConfig ?? ""}`,
  });
  signIn(harness.home, "dsh");
  return { harness, dir, release: () => writeFileSync(hold, "") };
}

const bg = (prompt = "fix the parser") => ({ name: "agent", arguments: { agent: "dsh", prompt, background: true } });
const starts = (h: Harness) => h.events.filter((e) => e.method === "turn.started").map((e) => e.params);
const completedOf = (h: Harness, tool: string) => h.events.filter((e) => e.method === "tool.completed" && e.params.tool === tool).map((e) => e.params);


/** The PID of the `sleep` the fake agent leaves running, once it has recorded it. */
async function backgroundChildOf(dir: string): Promise<number> {
  for (let i = 0; i < 100; i++) {
    const file = readdirSync(dir).find((f) => f.endsWith(".child"));
    if (file) return Number(readFileSync(join(dir, file), "utf8"));
    await Bun.sleep(50);
  }
  throw new Error("the fake agent never started its background child");
}

describe("start and report", () => {
  test("a background call returns a job at once; its result arrives in a report turn with the origin", async () => {
    const { harness } = await jobHarness({ reply: "REPLY-FROM-AGENT: parser fixed" });
    h = harness;
    h.fake.queue(toolCalls([bg()]), text("Started job-1; I'll tell you when it is done."), text("The agent fixed the parser."));
    const sid = await h.start({ auto_approve: true });
    const first = await h.turn(sid, "fix the parser in the background");
    expect(first.status).toBe("completed");
    const started = completedOf(h, "agent")[0];
    expect(started.jobs).toEqual(["job-1"]);
    expect(JSON.parse(started.output)).toEqual({ job: "job-1", agent: "dsh", status: "running", background: true });

    const report = await h.waitFor("turn.started", (p) => p.origin.kind === "background");
    expect(report.origin).toEqual({ kind: "background", jobs: ["job-1"] });
    expect(report.prompt.startsWith("[SCV background report]")).toBe(true);
    expect(report.prompt).toContain("job-1: agent dsh");
    expect(report.prompt).toContain("status completed");
    expect(report.prompt).toContain("REPLY-FROM-AGENT: parser fixed");
    const ended = await h.waitFor("turn.ended", (p) => p.turn_id === report.turn_id);
    expect(ended).toMatchObject({ status: "completed", reply: "The agent fixed the parser.", origin: { kind: "background", jobs: ["job-1"] } });
  });

  test("the user's queued prompt runs before the report turn", async () => {
    const { harness } = await jobHarness();
    h = harness;
    h.fake.queue(toolCalls([bg()]), text("started"), text("answer to the second prompt"), text("report relayed"));
    const sid = await h.start({ auto_approve: true });
    const a = await h.request("turn.start", { session_id: sid, prompt: "start a job" });
    const b = await h.request("turn.start", { session_id: sid, prompt: "and another question" });
    const report = await h.waitFor("turn.started", (p) => p.origin.kind === "background");
    const order = starts(h).map((s) => s.turn_id);
    expect(order.slice(0, 3)).toEqual([a.turn_id, b.turn_id, report.turn_id]);
  });

  test("one report turn names at most four jobs", async () => {
    const { harness } = await jobHarness({ maxBackground: 6 });
    h = harness;
    // The bash call holds the turn open until all five jobs have finished, so they are all due at once: each fake
    // agent makes <id>.done in the workspace as it exits, and the call waits for five (a fixed `sleep 1` was not
    // always enough for five agents to start and end on a busy machine), then a moment for the exits to be seen.
    mkdirSync(join(h.workspace, "done"));
    h.env.FAKE_AGENT_DONE = join(h.workspace, "done");
    const waitFive = 'for i in $(seq 400); do [ "$(ls done | wc -l)" -ge 5 ] && break; sleep 0.05; done; sleep 0.5';
    h.fake.queue(
      toolCalls([bg("1"), bg("2"), bg("3"), bg("4"), bg("5")]),
      toolCalls([{ name: "bash", arguments: { command: waitFive } }]),
      text("five started"),
      text("report one"),
      text("report two"),
    );
    const sid = await h.start({ auto_approve: true });
    await h.turn(sid, "start five");
    const r1 = await h.waitFor("turn.ended", (p) => p.origin.kind === "background");
    const r2 = await h.waitFor("turn.ended", (p) => p.origin.kind === "background" && p.turn_id !== r1.turn_id);
    expect(r1.origin.jobs.length).toBe(4);
    expect(r2.origin.jobs.length).toBe(1);
    expect(new Set([...r1.origin.jobs, ...r2.origin.jobs]).size).toBe(5);
  });
});

describe("agent_wait, agent_status, agent_cancel", () => {
  test("agent_wait on a finished job returns its result and no report turn follows", async () => {
    const { harness } = await jobHarness({ reply: "waited result" });
    h = harness;
    h.fake.queue(toolCalls([bg()]), toolCalls([{ name: "agent_wait", arguments: { job: "job-1", timeout_seconds: 20 } }]), text("it finished"));
    const sid = await h.start({ auto_approve: true });
    await h.turn(sid, "start and wait");
    const waited = JSON.parse(completedOf(h, "agent_wait")[0].output);
    expect(waited).toMatchObject({ job: "job-1", agent: "dsh", status: "completed" });
    expect(waited.result.reply).toBe("waited result");
    expect(typeof waited.elapsed_seconds).toBe("number");
    expect(completedOf(h, "agent_wait")[0].jobs_settled).toEqual(["job-1"]);
    await Bun.sleep(300);
    expect(starts(h).some((s) => s.origin.kind === "background")).toBe(false);
  });

  test("agent_wait that times out returns running with progress; the report still comes later", async () => {
    const { harness, release } = await jobHarness({ hold: true });
    h = harness;
    h.fake.queue(toolCalls([bg()]), toolCalls([{ name: "agent_wait", arguments: { job: "job-1", timeout_seconds: 1 } }]), text("still running"), text("report"));
    const sid = await h.start({ auto_approve: true });
    await h.turn(sid, "start and wait briefly");
    expect(JSON.parse(completedOf(h, "agent_wait")[0].output)).toMatchObject({ job: "job-1", status: "running" });
    release();
    const report = await h.waitFor("turn.started", (p) => p.origin.kind === "background", 15_000);
    expect(report.origin.jobs).toEqual(["job-1"]);
  }, 20_000);

  test("a running job's progress reaches the client as job.progress between turns", async () => {
    // Claude Code's stream-json carries interim progress (a command, interim text); plain text carries none.
    const { harness } = await jobHarness({ sleep: 2, reply: CLAUDE_OK, extraConfig: `[agents.claude]\ncommand = "${BASH}"\nargs = ["${FAKE_AGENT}"]\n` });
    h = harness;
    h.fake.queue(toolCalls([{ name: "agent", arguments: { agent: "claude", prompt: "fix the parser", background: true } }]), text("started"), text("report"));
    const sid = await h.start({ auto_approve: true });
    await h.turn(sid, "start it");
    // On a timeout, say what the session did instead, so a failure points at its cause.
    const progress = await h.waitFor("job.progress", (p) => p.job === "job-1", 15_000).catch((e) => {
      const seen = h!.events.map((ev) => (ev.method === "tool.completed" ? `${ev.method} ${ev.params.tool}: ${String(ev.params.output).slice(0, 200)}` : ev.method));
      throw new Error(`${(e as Error).message}; the session sent: ${seen.join(" | ")}`);
    });
    expect(progress).toMatchObject({ session_id: sid, job: "job-1", agent: "claude" });
    expect(progress.line.length).toBeGreaterThan(0);
    await h.waitFor("turn.started", (p) => p.origin.kind === "background", 15_000);
  }, 35_000);

  test("agent_status describes one job and all jobs", async () => {
    const { harness } = await jobHarness({ hold: true });
    h = harness;
    h.fake.queue(
      toolCalls([bg()]),
      toolCalls([{ name: "agent_status", arguments: { job: "job-1" } }, { name: "agent_status", arguments: {} }, { name: "agent_status", arguments: { job: "job-9" } }]),
      text("checked"),
      text("report"),
    );
    const sid = await h.start({ auto_approve: true });
    await h.turn(sid, "start and check");
    const [one, all, missing] = completedOf(h, "agent_status");
    expect(JSON.parse(one.output)).toMatchObject({ job: "job-1", status: "running", agent: "dsh" });
    expect(JSON.parse(all.output).jobs.map((j: any) => j.job)).toEqual(["job-1"]);
    expect(missing.ok).toBe(false);
    expect(missing.output).toContain('no job "job-9"');
  }, 20_000);

  test("agent_cancel stops a running job and its processes, returns cancelled, and no report follows", async () => {
    const { harness, dir } = await jobHarness({ sleep: 60, child: true });
    h = harness;
    h.fake.queue(toolCalls([bg()]), text("started"), toolCalls([{ name: "agent_cancel", arguments: { job: "job-1" } }]), text("cancelled it"));
    const sid = await h.start({ auto_approve: true });
    await h.turn(sid, "start");
    const childPid = await backgroundChildOf(dir);
    expect(alive(childPid)).toBe(true);
    await h.turn(sid, "stop it");
    const cancelled = JSON.parse(completedOf(h, "agent_cancel")[0].output);
    expect(cancelled).toMatchObject({ job: "job-1", status: "cancelled" });
    expect(alive(childPid)).toBe(false);
    await Bun.sleep(300);
    expect(starts(h).some((s) => s.origin.kind === "background")).toBe(false);
  }, 30_000);

  test("agent_wait and agent_status are read-only and run unasked; agent_cancel is process risk and asks", async () => {
    const { harness } = await jobHarness({ sleep: 60 });
    h = harness;
    h.fake.queue(
      toolCalls([bg()]),
      text("started"),
      toolCalls([
        { name: "agent_status", arguments: { job: "job-1" } },
        { name: "agent_wait", arguments: { job: "job-1", timeout_seconds: 1 } },
        { name: "agent_cancel", arguments: { job: "job-1" } },
      ]),
      text("done"),
    );
    const sid = await h.start(); // tools.approval_policy "on-risk", nothing auto-approved
    const first = await h.request("turn.start", { session_id: sid, prompt: "start" });
    const launch = await h.waitFor("approval.requested", (p) => p.tool === "agent");
    expect(launch.risk).toBe("delegate");
    await h.request("approval.resolve", { session_id: sid, approval_id: launch.approval_id, approved: true });
    await h.waitFor("turn.ended", (p) => p.turn_id === first.turn_id);
    await h.request("turn.start", { session_id: sid, prompt: "check and stop" });
    const cancel = await h.waitFor("approval.requested", (p) => p.tool === "agent_cancel", 15_000);
    expect(cancel.risk).toBe("process");
    // By the time agent_cancel asks, status and wait have run without a question.
    expect(h.events.filter((e) => e.method === "approval.requested").map((e) => e.params.tool)).toEqual(["agent", "agent_cancel"]);
    const started = h.events.filter((e) => e.method === "tool.started" && e.params.tool !== "agent").map((e) => [e.params.tool, e.params.risk]);
    expect(started).toEqual([["agent_status", "read_only"], ["agent_wait", "read_only"], ["agent_cancel", "process"]]);
    await h.request("approval.resolve", { session_id: sid, approval_id: cancel.approval_id, approved: true });
    await h.waitFor("tool.completed", (p) => p.tool === "agent_cancel", 15_000);
  }, 40_000);

  test("agent_cancel on a finished job describes it with a note", async () => {
    const { harness } = await jobHarness();
    h = harness;
    h.fake.queue(toolCalls([bg()]), toolCalls([{ name: "agent_wait", arguments: { job: "job-1" } }]), toolCalls([{ name: "agent_cancel", arguments: { job: "job-1" } }]), text("ok"));
    const sid = await h.start({ auto_approve: true });
    await h.turn(sid, "go");
    const view = JSON.parse(completedOf(h, "agent_cancel")[0].output);
    expect(view.status).toBe("completed");
    expect(view.note).toContain("already finished");
  });
});

describe("limits and settings", () => {
  test("a start beyond agent.max_background is refused naming the limit and agent_cancel, and starts no job", async () => {
    const { harness, dir } = await jobHarness({ maxBackground: 1, hold: true });
    h = harness;
    h.fake.queue(toolCalls([bg("first")]), toolCalls([bg("second")]), text("one refused"), text("report"));
    const sid = await h.start({ auto_approve: true });
    await h.turn(sid, "start two");
    const [, second] = completedOf(h, "agent");
    expect(second.ok).toBe(false);
    expect(second.output).toContain("agent.max_background = 1");
    expect(second.output).toContain("agent_cancel");
    expect(second.jobs).toBeUndefined();
    await Bun.sleep(200);
    expect(readdirSync(dir).filter((f) => f.endsWith(".args")).length).toBe(1);
  }, 20_000);

  test("max_background = 0 turns background calls and the job tools off (with background commands off too)", async () => {
    const { harness } = await jobHarness({ maxBackground: 0, extraConfig: "[tools]\nmax_background_commands = 0\n" });
    h = harness;
    h.fake.queue(toolCalls([bg()]), text("refused"));
    await h.request("initialize", { protocol_version: 3 });
    const r = await h.request("session.start", { cwd: h.workspace, auto_approve: true });
    expect(r.tools).toContain("agent");
    for (const t of ["agent_wait", "agent_status", "agent_cancel"]) expect(r.tools).not.toContain(t);
    await h.turn(r.session_id, "try");
    const schema = h.fake.requests[0]!.body.tools.find((t: any) => t.name === "agent").parameters;
    expect(schema.properties.background).toBeUndefined();
    expect(completedOf(h, "agent")[0].output).toContain("max_background = 0");
  });

  test("max_background = 0 with background commands on: the agent runs in the foreground only, the job tools stay for commands", async () => {
    const { harness } = await jobHarness({ maxBackground: 0 });
    h = harness;
    await h.request("initialize", { protocol_version: 3 });
    const r = await h.request("session.start", { cwd: h.workspace, auto_approve: true });
    for (const t of ["agent", "agent_wait", "agent_status", "agent_cancel"]) expect(r.tools).toContain(t);
  });

  test("with jobs on, the system prompt asks the model to stay available and relay reports", async () => {
    const { harness } = await jobHarness();
    h = harness;
    h.fake.queue(text("hi"));
    const sid = await h.start();
    await h.turn(sid, "hello");
    const instructions = JSON.stringify(h.fake.requests[0]!.body);
    expect(instructions).toContain("Stay available");
    expect(instructions).toContain("[SCV background report]");
  });
});

describe("jobs belong to their session", () => {
  test("closing the session cancels running jobs and kills their processes", async () => {
    const { harness, dir } = await jobHarness({ sleep: 60, child: true });
    h = harness;
    h.fake.queue(toolCalls([bg()]), text("started"));
    const sid = await h.start({ auto_approve: true });
    await h.turn(sid, "start");
    const childPid = await backgroundChildOf(dir);
    expect(alive(childPid)).toBe(true);
    await h.request("session.close", { session_id: sid });
    expect(alive(childPid)).toBe(false);
    expect(existsSync(join(h.home, "state", "delegations")) ? readdirSync(join(h.home, "state", "delegations")).filter((f) => f.endsWith(".json")) : []).toEqual([]);
  }, 30_000);
});

describe("remembered jobs", () => {
  // The manager alone, with runs that settle when the test says: what it keeps does not depend on the agent.
  const result = (reply: string) => ({ agent: "dsh", status: "completed" as const, reply, usage: null, exit_code: 0, stderr_tail: "", truncated: false });

  test("the 16 newest finished jobs are kept; none is forgotten before the model has seen it", async () => {
    const jobs = new JobManager(makeScope({ config: { agent: { max_background: 64 } } }));
    for (let i = 1; i <= 20; i++) await jobs.start("dsh", async () => result(`r${i}`)).done;
    // Unseen, every one stays: each still has to be reported.
    expect(jobs.list().map((j) => j.job)).toHaveLength(20);
    const reported: string[] = [];
    for (let r = jobs.nextReport(); r; r = jobs.nextReport()) reported.push(...r.origin.jobs);
    expect(reported).toHaveLength(20);
    const kept = jobs.list().map((j) => j.job);
    expect(kept).toEqual(Array.from({ length: 16 }, (_, i) => `job-${i + 5}`));
    expect(() => jobs.get("job-1")).toThrow('no job "job-1"');
  });

  test("newest means the latest to finish, not the latest to start", async () => {
    const jobs = new JobManager(makeScope({ config: { agent: { max_background: 64 } } }));
    let release!: () => void;
    const slow = jobs.start("dsh", () => new Promise((resolve) => (release = () => resolve(result("slow")))));
    for (let i = 2; i <= 17; i++) {
      const j = jobs.start("dsh", async () => result(`r${i}`));
      await j.done;
      jobs.describe(j, true);
    }
    release();
    await slow.done;
    jobs.describe(slow, true);
    const last = jobs.start("dsh", async () => result("r18"));
    await last.done;
    jobs.describe(last, true);
    // job-1 started first but finished second to last, so job-2 and job-3 (the earliest to finish) went.
    const kept = jobs.list().map((j) => j.job);
    expect(kept).toHaveLength(16);
    expect(kept).toContain("job-1");
    expect(kept).not.toContain("job-2");
    expect(kept).not.toContain("job-3");
  });
});
