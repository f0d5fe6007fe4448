import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type DelegationRecord,
  bootId,
  currentBtime,
  delegationsDir,
  readRecord,
  requestCancel,
  writeRecord,
} from "../../src/process/delegation-records";
import { scanTagged } from "../../src/process/delegation-stop";
import { identityOf, readEnvVar } from "../../src/process/procfs";
import { reconcileAll, reconcileAtStartup } from "../../src/agents/reconcile";
import { findOrphans, readReconcileStats, reconcile } from "../../src/process/reconcile";
import { alive, fixture, killStarted, spawnBun, taggedWith, tempHome, waitFor } from "../daemon/fixtures/helpers";

const extra: Bun.Subprocess[] = [];
afterEach(async () => {
  for (const p of extra.splice(0)) {
    p.kill("SIGKILL");
    await p.exited;
  }
  await killStarted();
});

function sleeper(): Bun.Subprocess {
  const p = Bun.spawn(["sleep", "30"], { detached: true, stdin: "ignore", stdout: "ignore", stderr: "ignore" });
  extra.push(p);
  return p;
}

function record(over: Partial<DelegationRecord>): DelegationRecord {
  return {
    handle: `fake-${Math.random().toString(16).slice(2, 8)}`,
    agent: "fake",
    instance: "elsewhere",
    session: "s",
    cwd: "/",
    depth: 1,
    scv_parent: `elsewhere/s/${Math.random().toString(16).slice(2)}`,
    run_tag: Math.random().toString(16).slice(2),
    pid: 999_999_999,
    start_time: "1",
    owner_pid: 999_999_999,
    owner_start_time: "1",
    boot_id: bootId(),
    started_unix: Math.floor(Date.now() / 1000),
    ...over,
  };
}

describe("orphans", () => {
  test("a SIGKILLed owner's run is found and stopped by the next reconcile, setsid descendant included", async () => {
    const home = tempHome();
    const owner = spawnBun([fixture("delegating-owner.ts")], {
      SCV_HOME: home,
      FIXTURE_ARGV: JSON.stringify(["bash", "-c", "setsid sleep 30 & sleep 30"]),
    });
    const { handle, pid } = await owner.json();
    await waitFor(() => taggedWith(handle).length >= 2, 25_000, "the run and its setsid child");
    expect(findOrphans(home)).toEqual([]); // owner alive: not an orphan
    owner.proc.kill("SIGKILL");
    await owner.proc.exited;
    expect(alive(pid)).toBe(true); // the kill left the delegated run behind
    expect(findOrphans(home).map((r) => r.handle)).toEqual([handle]);

    const result = await reconcile(home);
    expect(result.stopped).toEqual([handle]);
    expect(taggedWith(handle)).toEqual([]);
    expect(readRecord(home, handle)).toBeUndefined();
    expect(readReconcileStats(home).orphans_stopped_total).toBe(1);
    expect((await reconcile(home)).stopped).toEqual([]); // nothing left for a second pass
  });

  test("a reused PID with another start time is neither the owner nor the agent", async () => {
    const home = tempHome();
    const impostorOwner = sleeper();
    const impostorAgent = sleeper(); // leads its own group, like a real agent would
    await waitFor(() => !!identityOf(impostorAgent.pid), 25_000, "the sleeper");
    const orphan = record({ owner_pid: impostorOwner.pid, owner_start_time: "1", pid: impostorAgent.pid, start_time: "1" });
    writeRecord(home, orphan);
    expect(findOrphans(home).map((r) => r.handle)).toEqual([orphan.handle]);
    const result = await reconcile(home, { graceMs: 200 });
    expect(result.stopped).toEqual([orphan.handle]);
    // Neither process is ours: no signal reached them.
    expect(alive(impostorOwner.pid)).toBe(true);
    expect(alive(impostorAgent.pid)).toBe(true);
  });

  test("a record whose owner runs (same PID and start time) is left alone", async () => {
    const home = tempHome();
    const me = identityOf(process.pid)!;
    const agent = sleeper();
    await waitFor(() => !!identityOf(agent.pid), 25_000, "the sleeper");
    const live = record({ owner_pid: me.pid, owner_start_time: me.startTime, pid: agent.pid, start_time: identityOf(agent.pid)!.startTime });
    writeRecord(home, live);
    expect(findOrphans(home)).toEqual([]);
    expect((await reconcile(home)).stopped).toEqual([]);
    expect(readRecord(home, live.handle)).toBeDefined();
    expect(alive(agent.pid)).toBe(true);
  });

  test("a record from another boot is an orphan even if the owner PID and start time match", async () => {
    const home = tempHome();
    const me = identityOf(process.pid)!;
    writeRecord(home, record({ owner_pid: me.pid, owner_start_time: me.startTime, boot_id: "another-boot" }));
    expect(findOrphans(home)).toHaveLength(1);
  });
});

describe("tag scan", () => {
  const ticksNow = () => Math.floor(Number(readFileSync("/proc/uptime", "utf8").split(" ")[0]) * 100);

  test("finds tagged processes born after the agent and skips only older ones", async () => {
    const tag = `scan-${Math.random().toString(16).slice(2)}`;
    const tagged = Bun.spawn(["sleep", "30"], { env: { ...process.env, SCV_RUN_TAG: tag }, stdin: "ignore" });
    extra.push(tagged);
    // Until exec the child's environ is still its parent's.
    await waitFor(() => readEnvVar(tagged.pid, "SCV_RUN_TAG") === tag, 25_000, "the tagged sleeper");
    const bornBefore = record({ run_tag: tag, start_time: String(ticksNow() - 500), btime: currentBtime() });
    expect(scanTagged([bornBefore]).get(bornBefore.handle)?.map((p) => p.pid)).toEqual([tagged.pid]);
    // An agent that (per its record) started 5 s after this process cannot have it as a descendant.
    const bornLater = record({ run_tag: tag, start_time: String(ticksNow() + 500), btime: currentBtime() });
    expect(scanTagged([bornLater]).get(bornLater.handle)).toBeUndefined();
    expect(scanTagged([bornLater], { everyProcess: true }).get(bornLater.handle)?.map((p) => p.pid)).toEqual([tagged.pid]);
    // A stepped clock (btime moved) turns the time filter off.
    const stepped = { ...bornLater, btime: (currentBtime() ?? 0) - 3600 };
    expect(scanTagged([stepped]).get(stepped.handle)?.map((p) => p.pid)).toEqual([tagged.pid]);
  });

  test("a nested run's descendants match their outer run by tag or chain prefix", async () => {
    const outer = record({});
    const byTag = Bun.spawn(["sleep", "30"], { env: { ...process.env, SCV_RUN_TAG: `${outer.run_tag}/inner` }, stdin: "ignore" });
    const byChain = Bun.spawn(["sleep", "30"], { env: { ...process.env, SCV_PARENT: `${outer.scv_parent}:nested/s/codex-1` }, stdin: "ignore" });
    const neither = Bun.spawn(["sleep", "30"], { env: { ...process.env, SCV_PARENT: `${outer.scv_parent}x` }, stdin: "ignore" });
    extra.push(byTag, byChain, neither);
    const execd = (p: Bun.Subprocess) => readFileSync(`/proc/${p.pid}/cmdline`, "utf8").startsWith("sleep");
    await waitFor(() => [byTag, byChain, neither].every(execd), 25_000, "the sleepers");
    const found = scanTagged([outer]).get(outer.handle)?.map((p) => p.pid).sort();
    expect(found).toEqual([byTag.pid, byChain.pid].sort());
  });
});

describe("markers and leftovers", () => {
  test("conversation markers of exited owners go, live owners' stay", async () => {
    const home = tempHome();
    const dir = join(home, "state", "conversations");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const gone = Bun.spawn(["sleep", "0.01"]);
    const goneId = identityOf(gone.pid) ?? { pid: gone.pid, startTime: "1" };
    await gone.exited;
    const me = identityOf(process.pid)!;
    const marker = (id: string, owner: { pid: number; startTime: string }) => ({
      cli_session_id: id,
      agent: "codex",
      handle: "codex-1",
      scv_session: "s",
      owner: { pid: owner.pid, start_time: owner.startTime },
      created_unix: 1,
    });
    writeFileSync(join(dir, "dead.json"), JSON.stringify(marker("dead", goneId)));
    writeFileSync(join(dir, "live.json"), JSON.stringify(marker("live", me)));
    const result = await reconcileAll(home);
    expect(result.markersRemoved).toBe(1);
    expect(readdirSync(dir)).toEqual(["live.json"]);
  });

  test("a cancel marker without a record is removed; unreadable records never break a pass", async () => {
    const home = tempHome();
    requestCancel(home, "fake-000000");
    writeFileSync(join(delegationsDir(home), "garbage.json"), "{not json");
    const result = await reconcileAtStartup(home);
    expect(result.stopped).toEqual([]);
    expect(existsSync(join(delegationsDir(home), "fake-000000.cancel-requested"))).toBe(false);
    expect(existsSync(join(delegationsDir(home), "garbage.json"))).toBe(true);
  });

  test("an SCV home without state is fine", async () => {
    expect(await reconcileAll(tempHome())).toEqual({ stopped: [], markersRemoved: 0, runsStopped: [], tempFilesRemoved: 0 });
  });
});

