import { afterEach, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  type TrackedRun,
  delegationEnv,
  delegationState,
  delegationsDir,
  newHandle,
  readRecord,
  startDelegated,
} from "../../src/process/delegations";
import { identityOf } from "../../src/process/procfs";
import { killDelegation } from "../../src/process/reconcile";
import type { RunOptions } from "../../src/process/types";
import { type FakeScope, makeScope } from "../fake/scope";
import { alive, exists, fixture, cleanUpRuns, spawnBun, taggedWith, tempHome, waitFor } from "../daemon/fixtures/helpers";

const scopes: FakeScope[] = [];
const runs: TrackedRun[] = [];

function scope(env: Record<string, string | undefined> = {}, depth = 0): FakeScope {
  const s = makeScope({ env: { SCV_HOME: tempHome(), ...env }, delegationDepth: depth });
  scopes.push(s);
  return s;
}

function opts(s: FakeScope, script: string, extra: Partial<RunOptions> = {}): RunOptions {
  return { argv: ["bash", "-c", script], cwd: s.workspace, env: { ...process.env }, stdin: "null", captureBytes: 8192, ...extra };
}

function start(s: FakeScope, script: string, extra: Partial<RunOptions> = {}, agent = "fake"): TrackedRun {
  const run = startDelegated(s, { handle: newHandle(agent), agent, cwd: s.workspace, conversation: `${agent}-1`, turn: 1 }, opts(s, script, extra));
  runs.push(run);
  return run;
}

afterEach(() => cleanUpRuns(runs, scopes));

describe("delegation environment", () => {
  test("SCV_PARENT is <instance>/<session>/<handle> and the depth is the caller's plus one", () => {
    const s = scope({ SCV_PARENT: undefined }, 0);
    expect(delegationEnv(s, "codex-abc123")).toEqual({
      SCV_PARENT: `${s.instanceId}/${s.sessionId}/codex-abc123`,
      SCV_DELEGATION_DEPTH: "1",
      SCV_MAX_DELEGATION_DEPTH: String(s.config.agent.max_delegation_depth),
    });
  });

  test("an inherited chain is extended, not replaced", () => {
    const s = scope({ SCV_PARENT: "outer/s1/scv-1a2b3c" }, 1);
    expect(delegationEnv(s, "codex-abc123")).toEqual({
      SCV_PARENT: `outer/s1/scv-1a2b3c:${s.instanceId}/${s.sessionId}/codex-abc123`,
      SCV_DELEGATION_DEPTH: "2",
      SCV_MAX_DELEGATION_DEPTH: String(s.config.agent.max_delegation_depth),
    });
  });

  test("the chain's delegation limit is the smaller of the session's own and the inherited one", () => {
    const own = scope({ SCV_MAX_DELEGATION_DEPTH: "9" }, 0);
    expect(delegationEnv(own, "codex-abc123").SCV_MAX_DELEGATION_DEPTH).toBe(String(Math.min(9, own.config.agent.max_delegation_depth)));
    const inherited = scope({ SCV_MAX_DELEGATION_DEPTH: "1" }, 0);
    expect(delegationEnv(inherited, "codex-abc123").SCV_MAX_DELEGATION_DEPTH).toBe("1");
  });

  test("handles name the agent and differ", () => {
    const a = newHandle("codex");
    expect(a).toMatch(/^codex-[0-9a-f]{6}$/);
    expect(new Set(Array.from({ length: 50 }, () => newHandle("codex"))).size).toBe(50);
    expect(() => newHandle("bad/name")).toThrow(/handle/);
  });
});

describe("records", () => {
  test("a running delegation has a 0600 record in 0700 dirs with both identities; it goes when the run ends", async () => {
    const s = scope();
    const run = start(s, 'echo "$SCV_PARENT|$SCV_DELEGATION_DEPTH"; sleep 0.4');
    const file = join(delegationsDir(s.scvHome), `${run.handle}.json`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(delegationsDir(s.scvHome)).mode & 0o777).toBe(0o700);
    expect(statSync(join(s.scvHome, "state")).mode & 0o777).toBe(0o700);
    const rec = JSON.parse(readFileSync(file, "utf8"));
    expect(rec).toMatchObject({
      handle: run.handle,
      agent: "fake",
      session: s.sessionId,
      instance: s.instanceId,
      cwd: s.workspace,
      depth: 1,
      conversation: "fake-1",
      turn: 1,
      pid: run.identity.pid,
      start_time: identityOf(run.identity.pid)!.startTime,
      owner_pid: process.pid,
      owner_start_time: identityOf(process.pid)!.startTime,
    });
    expect(rec.idle_since_unix).toBeUndefined();
    const r = await run.result;
    expect(r.stdout.text.trim()).toBe(`${s.instanceId}/${s.sessionId}/${run.handle}|1`);
    expect(readRecord(s.scvHome, run.handle)).toBeUndefined();
    expect(readdirSync(delegationsDir(s.scvHome))).toEqual([]); // no temporary files either
  });

  test("idle, turn and background jobs update the record", async () => {
    const s = scope();
    const run = start(s, "sleep 5");
    expect(delegationState(readRecord(s.scvHome, run.handle)!)).toBe("running");
    run.markIdle(true);
    const idle = readRecord(s.scvHome, run.handle)!;
    expect(idle.idle_since_unix).toBeGreaterThan(Date.now() / 1000 - 5);
    expect(delegationState(idle)).toBe("idle");
    run.setBackgroundJobs(2);
    expect(readRecord(s.scvHome, run.handle)!.background_jobs).toBe(2);
    expect(delegationState(readRecord(s.scvHome, run.handle)!)).toBe("background");
    run.setBackgroundJobs(0);
    expect(readRecord(s.scvHome, run.handle)!.background_jobs).toBeUndefined();
    run.setTurn(2);
    const next = readRecord(s.scvHome, run.handle)!;
    expect(next.turn).toBe(2);
    expect(next.idle_since_unix).toBeUndefined();
    expect(statSync(join(delegationsDir(s.scvHome), `${run.handle}.json`)).mode & 0o777).toBe(0o600);
  });
});

describe("cleanup", () => {
  test("a cancelled run leaves no tagged process, including a setsid descendant", async () => {
    const s = scope();
    const run = start(s, "setsid sleep 30 & sleep 0.1; echo $!; sleep 30");
    await waitFor(() => taggedWith(run.handle).length >= 2, 25_000, "the run and its setsid child");
    run.cancel();
    const r = await run.result;
    expect(r.cancelled).toBe(true);
    expect(taggedWith(run.handle)).toEqual([]);
    expect(readRecord(s.scvHome, run.handle)).toBeUndefined();
  });

  test("a descendant that dropped the runner's tag but kept SCV_PARENT is stopped when the run ends", async () => {
    const s = scope();
    const run = start(s, "env -u SCV_RUN_TAG setsid sleep 30 >/dev/null 2>&1 & echo $!");
    const r = await run.result;
    const escaped = Number(r.stdout.text.trim());
    expect(escaped).toBeGreaterThan(0);
    await waitFor(() => !alive(escaped), 25_000, "the escaped descendant to die");
    expect(taggedWith(run.handle)).toEqual([]);
  });

  test("a tagged descendant that ignores TERM is killed after the 2 s grace", async () => {
    const s = scope();
    // Without the runner's tag only the SCV_PARENT scan of the tracking layer can find it.
    // The run ends once the descendant has set its trap (a fixed `sleep 0.3` let a slow bash get TERM first), and
    // says when (ms since the epoch), so the grace is measured from the leader's end.
    const run = start(s, "env -u SCV_RUN_TAG setsid bash -c 'trap \"\" TERM; : >trapped; sleep 30' >/dev/null 2>&1 & echo $!; while [ ! -e trapped ]; do sleep 0.02; done; date +%s%3N");
    const r = await run.result;
    const took = Date.now() - Number(r.stdout.text.trim().split("\n")[1]);
    const stubborn = Number(r.stdout.text.trim().split("\n")[0]);
    expect(stubborn).toBeGreaterThan(0);
    expect(alive(stubborn)).toBe(false);
    expect(took).toBeGreaterThanOrEqual(1900);
    expect(took).toBeLessThan(20_000); // the grace's KILL, not the 30 s sleep
  });

  test("closing the session abandons the run: it is killed and its record removed", async () => {
    const s = scope();
    const run = start(s, "setsid sleep 30 & sleep 30");
    await waitFor(() => taggedWith(run.handle).length >= 2, 25_000, "processes to start");
    await s.close();
    const r = await run.result;
    expect(r.cancelled).toBe(true);
    expect(taggedWith(run.handle)).toEqual([]);
    expect(readRecord(s.scvHome, run.handle)).toBeUndefined();
  });

  test("a kill from outside the owner makes the owner report cancelled", async () => {
    const s = scope();
    const run = start(s, "sleep 30");
    const outcome = await killDelegation(s.scvHome, run.handle);
    expect(outcome).toMatchObject({ killed: true, orphan: false, recordRemoved: true });
    const r = await run.result;
    expect(r.cancelled).toBe(true);
    expect(exists(run.identity.pid) && alive(run.identity.pid)).toBe(false);
    expect(readdirSync(delegationsDir(s.scvHome))).toEqual([]);
  });
});

describe("SCV exiting", () => {
  test("process.exit stops the owner's runs synchronously and removes their records", async () => {
    const home = tempHome();
    const owner = spawnBun([fixture("delegating-owner.ts")], {
      SCV_HOME: home,
      FIXTURE_ARGV: JSON.stringify(["bash", "-c", "setsid sleep 30 & sleep 30"]),
      FIXTURE_MODE: "exit:400",
    });
    const { handle } = await owner.json();
    expect(readRecord(home, handle)).toBeDefined();
    expect(await owner.proc.exited).toBe(0);
    expect(taggedWith(handle)).toEqual([]);
    expect(readRecord(home, handle)).toBeUndefined();
  });

  test("SIGTERM to the owner stops its runs, then the owner dies of the signal", async () => {
    const home = tempHome();
    const owner = spawnBun([fixture("delegating-owner.ts")], { SCV_HOME: home, FIXTURE_ARGV: JSON.stringify(["bash", "-c", "setsid sleep 30 & sleep 30"]) });
    const { handle } = await owner.json();
    await waitFor(() => taggedWith(handle).length >= 2, 25_000, "processes to start");
    owner.proc.kill("SIGTERM");
    await owner.proc.exited;
    expect(owner.proc.signalCode).toBe("SIGTERM");
    expect(taggedWith(handle)).toEqual([]);
    expect(readRecord(home, handle)).toBeUndefined();
  });
});
