// `scv agents ps|kill|gc` run as a second SCV process (`bun src/cli/main.ts agents …`) against runs owned by
// this test process or by a fixture owner.
import { afterEach, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { type TrackedRun, delegationsDir, newHandle, readRecord, startDelegated } from "../../src/process/delegations";
import { type FakeScope, makeScope } from "../fake/scope";
import { alive, cli, fixture, cleanUpRuns, spawnBun, taggedWith, tempHome, waitFor } from "../daemon/fixtures/helpers";

const scopes: FakeScope[] = [];
const runs: TrackedRun[] = [];
afterEach(() => cleanUpRuns(runs, scopes));

function delegate(script: string): { scope: FakeScope; run: TrackedRun } {
  const scope = makeScope({ env: { SCV_HOME: tempHome() } });
  scopes.push(scope);
  const run = startDelegated(
    scope,
    { handle: newHandle("codex"), agent: "codex", cwd: scope.workspace, conversation: "codex-2", turn: 3 },
    { argv: ["bash", "-c", script], cwd: scope.workspace, env: { ...process.env }, stdin: "null", captureBytes: 1024 },
  );
  runs.push(run);
  return { scope, run };
}

async function orphanIn(home: string): Promise<{ handle: string; pid: number }> {
  const owner = spawnBun([fixture("delegating-owner.ts")], { SCV_HOME: home, FIXTURE_ARGV: '["sleep","30"]' });
  const info = await owner.json();
  owner.proc.kill("SIGKILL");
  await owner.proc.exited;
  return info;
}

describe("scv agents ps", () => {
  test("another SCV process lists the run with its session, conversation, turn and state", async () => {
    const { scope, run } = delegate("sleep 30");
    const env = { SCV_HOME: scope.scvHome };
    const json = await cli(["agents", "ps", "--json"], env);
    expect(json.code).toBe(0);
    const [row] = JSON.parse(json.stdout).delegations;
    expect(row).toMatchObject({
      handle: run.handle,
      agent: "codex",
      session: scope.sessionId,
      conversation: "codex-2",
      turn: 3,
      state: "running",
      cwd: scope.workspace,
      pid: run.identity.pid,
      owner_pid: process.pid,
    });
    expect(row.age_seconds).toBeGreaterThanOrEqual(0);

    run.markIdle(true);
    const text = await cli(["agents", "ps"], env);
    expect(text.stdout).toMatch(new RegExp(`${run.handle}\\s+codex\\s+${scope.sessionId}\\s+codex-2\\s+3\\s+idle`));
  });

  test("orphans appear only with --all", async () => {
    const home = tempHome();
    const { handle } = await orphanIn(home);
    expect(JSON.parse((await cli(["agents", "ps", "--json"], { SCV_HOME: home })).stdout).delegations).toEqual([]);
    const all = JSON.parse((await cli(["agents", "ps", "--all", "--json"], { SCV_HOME: home })).stdout).delegations;
    expect(all.map((r: { handle: string; state: string }) => [r.handle, r.state])).toEqual([[handle, "orphan"]]);
  });
});

describe("scv agents kill", () => {
  test("killing a handle from another process ends the run with `cancelled` for its caller", async () => {
    const { scope, run } = delegate("setsid sleep 30 & sleep 30");
    await waitFor(() => taggedWith(run.handle).length >= 2, 25_000, "the run to start");
    const r = await cli(["agents", "kill", run.handle], { SCV_HOME: scope.scvHome });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`killed ${run.handle}`);
    const result = await run.result;
    expect(result.cancelled).toBe(true);
    expect(taggedWith(run.handle)).toEqual([]);
    expect(readdirSync(delegationsDir(scope.scvHome))).toEqual([]);
  });

  test("--orphans stops every orphan; an unknown handle is an error", async () => {
    const home = tempHome();
    const { handle, pid } = await orphanIn(home);
    expect(alive(pid)).toBe(true);
    const r = await cli(["agents", "kill", "--orphans", "--json"], { SCV_HOME: home });
    expect(JSON.parse(r.stdout)).toEqual({ stopped: [handle] });
    expect(alive(pid)).toBe(false);
    expect(readRecord(home, handle)).toBeUndefined();
    const status = JSON.parse((await cli(["status", "--json"], { SCV_HOME: home })).stdout);
    expect(status).toMatchObject({ source: "state", orphans_stopped_total: 1, orphans_awaiting: 0 });

    const unknown = await cli(["agents", "kill", "codex-ffffff"], { SCV_HOME: home });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no running delegation named "codex-ffffff"');
    const neither = await cli(["agents", "kill"], { SCV_HOME: home });
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain("either a handle");
  });
});

describe("scv agents gc", () => {
  test("delegates to the transcript collector and reports bad ages clearly", async () => {
    const home = tempHome();
    const dry = await cli(["agents", "gc", "--dry-run", "--json"], { SCV_HOME: home });
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ dryRun: true, olderThanSeconds: 30 * 86400 });
    const bad = await cli(["agents", "gc", "--older-than", "5m"], { SCV_HOME: home });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("under an hour");
  });
});
