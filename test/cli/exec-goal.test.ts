// `dist/scv exec --until CHECK`: a goal run end to end against the scripted model, with real commands and files.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, fakeModelForEachTest, requireBinary, runBinary } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";
import { killAll, pidsWithArgv } from "../fake/proc";
import { until } from "../fake/until";

const fake = fakeModelForEachTest();

const CHECK = `test "$(cat n.txt)" = 3 || { echo "n is $(cat n.txt 2>/dev/null)"; exit 1; }`;

function events(stdout: string): { method: string; params: any }[] {
  return stdout.trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));
}

function writeN(n: number) {
  return toolCalls([{ name: "write", arguments: { path: "n.txt", content: String(n), mode: n === 1 ? "create" : "replace" } }]);
}

test("a goal whose check passes on the third attempt stops there: three attempts, each its own turn, each undoable", async () => {
  const { env, workspace } = fakeHome(fake.url);
  fake.queue(writeN(1), text("wrote 1"), writeN(2), text("wrote 2"), writeN(3), text("wrote 3"), text("never used"));
  const r = await runBinary(["exec", "--json", "--yes", "--until", CHECK, "count to three in n.txt"], env, workspace);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  const ev = events(r.stdout);
  const progress = ev.filter((e) => e.method === "goal.progress").map((e) => e.params);
  expect(progress.map((p) => [p.attempt, p.passed, p.exit_code])).toEqual([
    [1, false, 1],
    [2, false, 1],
    [3, true, 0],
  ]);
  expect(progress[0].last_line).toBe("n is 1");
  const ended = ev.filter((e) => e.method === "goal.ended");
  expect(ended).toHaveLength(1);
  expect(ended[0].params).toMatchObject({ status: "passed", attempts: 3, check: CHECK });
  expect(fake.pending()).toBe(1);
  // The check is a bash call the person sees, in the attempt's own turn.
  const checks = ev.filter((e) => e.method === "tool.started" && e.params.call_id.startsWith("goal-check-"));
  expect(checks.map((e) => [e.params.turn_id, e.params.tool])).toEqual([
    ["t1", "bash"],
    ["t2", "bash"],
    ["t3", "bash"],
  ]);
  const turns = ev.filter((e) => e.method === "turn.started").map((e) => e.params.origin);
  expect(turns).toEqual([{ kind: "user" }, { kind: "goal", attempt: 2 }, { kind: "goal", attempt: 3 }]);
  // The second request carries the failed check's exit code and output.
  const second = JSON.stringify(fake.requests[2]!.body);
  expect(second).toContain("failed with exit 1");
  expect(second).toContain("n is 1");
  // Each attempt is undoable on its own, and a rewind to t0 goes back to before the goal.
  const sessionId = ev.find((e) => e.method === "turn.started")!.params.session_id;
  for (const [to, want] of [["t2", "2"], ["t1", "1"], ["t0", undefined]] as const) {
    const rw = await runBinary(["sessions", "rewind", sessionId, "--to", to, "--files-only", "--yes"], env, workspace);
    expect(rw.code).toBe(0);
    if (want) expect(readFileSync(join(workspace, "n.txt"), "utf8")).toBe(want);
    else expect(existsSync(join(workspace, "n.txt"))).toBe(false);
  }
});

test("a goal that cannot pass stops at its attempt budget with the reason and the last check's output, exit 1", async () => {
  const { env, workspace } = fakeHome(fake.url);
  fake.queue(writeN(1), text("tried"), writeN(2), text("tried again"));
  const r = await runBinary(["exec", "--yes", "--max-attempts", "2", "--until", CHECK, "count"], env, workspace);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain("goal: until");
  expect(r.stderr).toContain("at most 2 attempts");
  expect(r.stderr).toContain("goal: attempt 1 of 2: the check failed (exit 1): n is 1");
  expect(r.stderr).toContain("goal stopped (budget) after 2 attempts: all 2 attempts were used; the check still fails");
  expect(r.stderr).toContain("n is 2");
  expect(r.stdout).toBe("tried\ntried again\n");
});

test("the same failure with no file changed stops the goal; a model that says it cannot stops it too", async () => {
  const { env, workspace } = fakeHome(fake.url);
  fake.queue(text("nothing to do"), text("still nothing"), text("again nothing"), text("unused"));
  const r = await runBinary(["exec", "--json", "--yes", "--until", "echo broken; exit 3", "fix it"], env, workspace);
  expect(r.code).toBe(1);
  const ended = events(r.stdout).find((e) => e.method === "goal.ended")!.params;
  expect(ended).toMatchObject({ status: "repeated", attempts: 3, exit_code: 3 });
  expect(ended.output).toContain("broken");

  fake.clear();
  fake.queue(text("I looked.\nGOAL UNREACHABLE: the test needs a network the sandbox does not give"));
  const g = await runBinary(["exec", "--yes", "--until", "exit 1", "fix it"], env, workspace);
  expect(g.code).toBe(1);
  expect(g.stderr).toContain("goal stopped (gave_up) after 1 attempt: the model says the check cannot pass: the test needs a network");
});

test("bad budgets and a check the guard refuses are stopped with the reason", async () => {
  const { env, workspace } = fakeHome(fake.url);
  const zero = await runBinary(["exec", "--until", "true", "--max-attempts", "0", "x"], env, workspace);
  expect(zero.code).toBe(2);
  expect(zero.stderr).toContain("--max-attempts 0: give a whole number of at least 1");
  const alone = await runBinary(["exec", "--max-seconds", "5", "x"], env, workspace);
  expect(alone.code).toBe(2);
  expect(alone.stderr).toContain("only applies with --until");
  fake.queue(text("done"));
  const refused = await runBinary(["exec", "--yes", "--until", "rm -rf ~", "x"], env, workspace);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain("goal stopped (refused)");
});

test("a check that hangs is killed at its timeout and counts as failed; the stop says so", async () => {
  const { env, workspace } = fakeHome(fake.url);
  fake.queue(text("done"));
  const t0 = Date.now();
  const r = await runBinary(["exec", "--yes", "--check-timeout", "1", "--max-attempts", "1", "--until", "sleep 30", "x"], env, workspace);
  expect(r.code).toBe(1);
  expect(Date.now() - t0).toBeLessThan(20_000);
  expect(r.stderr).toContain("goal: attempt 1 of 1: the check timed out and was killed");
  expect(r.stderr).toContain("timeout after 1s (killed)");
  expect(r.stderr).toContain("goal stopped (budget) after 1 attempt: its one attempt was used");
});

test("Ctrl-C while the check runs ends the goal at once and leaves nothing running", async () => {
  const { env, workspace } = fakeHome(fake.url);
  fake.queue(text("done, checking"));
  // The check's own pid may be its PID namespace's (sandboxed): it is found out here by its unique argv.
  const duration = String(3000 + Math.floor(Math.random() * 5000));
  const proc = Bun.spawn([requireBinary(), "exec", "--yes", "--until", `echo $$ > check.pid; exec sleep ${duration}`, "x"], { cwd: workspace, env, stdout: "pipe", stderr: "pipe" });
  const pidFile = join(workspace, "check.pid");
  const deadline = Date.now() + 20_000;
  while (!existsSync(pidFile) || !readFileSync(pidFile, "utf8").trim()) {
    if (Date.now() > deadline) throw new Error("the check never started");
    await Bun.sleep(50);
  }
  const running = await until("the check's sleep", () => (pidsWithArgv(["sleep", duration]).length ? true : undefined));
  expect(running).toBe(true);
  proc.kill("SIGINT");
  const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  expect(code).toBe(130);
  expect(stderr).toContain("goal stopped (cancelled)");
  const left = pidsWithArgv(["sleep", duration]);
  killAll(left);
  expect(left).toEqual([]);
});

describe("compaction keeps the goal", () => {
  let summaries = 0;
  const compacting = fakeModelForEachTest({
    respond: (body) => (JSON.stringify(body).includes("You are compacting a long working session") ? text(`Summary ${++summaries}: work went on.`) : undefined),
  });

  test("a long goal compacted twice still states the person's task and the goal's check in the next request", async () => {
    // A small window: each attempt adds about 1,100 tokens of check output, so the history is compacted every few attempts.
    const { env, workspace } = fakeHome(compacting.url, "context_window = 12000\ncompact_at = 0.8\n");
    for (let i = 0; i < 16; i++) compacting.queue(text(`attempt ${i + 1} done`));
    const check = "printf '%04000d\\n' 0; date +%s%N; exit 1";
    const r = await runBinary(["exec", "--json", "--yes", "--max-attempts", "12", "--until", check, "Make the widget pass its check; keep the public API unchanged."], env, workspace);
    expect(r.code).toBe(1);
    const ev = events(r.stdout);
    const compactions = ev.filter((e) => e.method === "session.compacted");
    expect(compactions.length).toBeGreaterThanOrEqual(2);
    for (const c of compactions) expect(c.params.tokens_after).toBeLessThan(c.params.tokens_before);
    expect(ev.find((e) => e.method === "goal.ended")!.params).toMatchObject({ status: "budget", attempts: 12 });
    const bodies = compacting.requests.map((q) => JSON.stringify(q.body));
    const secondSummary = bodies.findIndex((b, i) => b.includes("You are compacting") && bodies.slice(0, i).some((x) => x.includes("You are compacting")));
    expect(secondSummary).toBeGreaterThan(0);
    const next = bodies.slice(secondSummary + 1).find((b) => !b.includes("You are compacting"))!;
    expect(next).toContain("Summary 2: work went on.");
    expect(next).toContain("Kept by SCV at every compaction");
    expect(next).toContain("Make the widget pass its check; keep the public API unchanged.");
    expect(next).toContain(`Active goal: keep working until the check \`${check.replace(/\\/g, "\\\\")}\` passes`);
  });
});

test("a goal whose SCV was killed goes on when the session is continued, and ends when its check passes", async () => {
  const { hang } = await import("../fake/model-server");
  const { env, workspace } = fakeHome(fake.url);
  fake.queue(hang("thinking "));
  const proc = Bun.spawn([requireBinary(), "exec", "--yes", "--until", "test -f ok.txt", "make ok.txt"], { cwd: workspace, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const reader = proc.stdout.getReader();
  let out = "";
  while (!out.includes("thinking")) {
    const { value, done } = await reader.read();
    if (done) break;
    out += new TextDecoder().decode(value);
  }
  proc.kill("SIGKILL");
  await proc.exited;
  fake.clear();
  fake.queue(toolCalls([{ name: "write", arguments: { path: "ok.txt", content: "ok", mode: "create" } }]), text("made it"));
  const r = await runBinary(["exec", "--continue", "--yes", "go on"], env, workspace);
  expect(r.stderr).toContain("the goal goes on: until `test -f ok.txt` passes (attempt 2 of 10)");
  expect(r.stderr).toContain("goal reached: the check passed on attempt 2");
  expect(r.code).toBe(0);
}, 30_000);
