// The daemon as a real subprocess with work of its own (test/daemon/fixtures/daemon.ts): subreaper reaping,
// planned and forced stops around a running delegation, and the periodic orphan reconcile.
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stopDaemon } from "../../src/daemon/control";
import { daemonFetch } from "../../src/daemon/client";
import { StatusResponse } from "../../src/daemon/wire";
import { readRecord } from "../../src/process/delegation-records";
import { alive, exists, fixture, killStarted, spawnBun, taggedWith, tempHome, waitFor } from "./fixtures/helpers";

afterEach(killStarted);

function ppidOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
}

describe("subreaper", () => {
  test("an orphaned descendant reparents to the daemon and is reaped when it exits", async () => {
    const home = tempHome();
    // The orphan runs until the test releases it (a fixed sleep could end before its parent was read, under load).
    const release = join(home, "..", "release-orphan");
    const d = spawnBun([fixture("daemon.ts")], { SCV_HOME: home, FIXTURE_WORK: "orphan", FIXTURE_RELEASE: release, FIXTURE_REAP_MS: "100" });
    const { orphan } = await d.json();
    expect(orphan).toBeGreaterThan(0);
    // Its parent bash has exited; as a subreaper the daemon, not init, is its parent now.
    expect(ppidOf(orphan)).toBe(d.pid);
    writeFileSync(release, "");
    // Once it exits it must not linger as a zombie: the daemon collects it (waitpid on that pid only).
    await waitFor(() => !exists(orphan), 25_000, "the orphan to be reaped");
    expect(alive(d.pid)).toBe(true);
  });
});

describe("stopping with a running delegation", () => {
  test("a planned stop waits for the delegation to finish, then exits", async () => {
    const home = tempHome();
    // The delegation runs until the test releases it, 300 ms after the daemon said it waits for it (a `sleep 1.2`
    // could end before the stop was asked for, on a busy machine).
    const release = join(home, "..", "release-delegation");
    const argv = ["bash", "-c", 'while [ ! -e "$0" ]; do sleep 0.05; done', release];
    const d = spawnBun([fixture("daemon.ts")], { SCV_HOME: home, FIXTURE_WORK: "delegation", FIXTURE_ARGV: JSON.stringify(argv) });
    const { handle, pid } = await d.json();
    let waiting = 0;
    let releasedAt = 0;
    const outcome = await stopDaemon({
      scvHome: home,
      onWaiting: (n) => {
        waiting = n;
        setTimeout(() => {
          releasedAt = Date.now();
          writeFileSync(release, "");
        }, 300);
      },
    });
    expect(outcome).toMatchObject({ stopped: true, pid: d.pid });
    expect(waiting).toBe(1);
    expect(releasedAt).toBeGreaterThan(0); // the daemon lived on until its delegation ended by itself
    expect(await d.proc.exited).toBe(0);
    expect(alive(pid)).toBe(false);
    expect(readRecord(home, handle)).toBeUndefined();
  });

  test("--force kills the delegation the tracked way without waiting", async () => {
    const home = tempHome();
    const d = spawnBun([fixture("daemon.ts")], {
      SCV_HOME: home,
      FIXTURE_WORK: "delegation",
      FIXTURE_ARGV: JSON.stringify(["bash", "-c", "setsid sleep 30 & sleep 30"]),
    });
    const { handle } = await d.json();
    await waitFor(() => taggedWith(handle).length >= 2, 25_000, "the delegation to start");
    const began = Date.now();
    expect(await stopDaemon({ scvHome: home, force: true })).toMatchObject({ stopped: true });
    expect(Date.now() - began).toBeLessThan(20_000); // the kill's grace at most, not the 30 s sleeps
    expect(taggedWith(handle)).toEqual([]);
    expect(readRecord(home, handle)).toBeUndefined();
  });

  test("a planned stop is bounded: past the bound the delegation is killed", async () => {
    const home = tempHome();
    const d = spawnBun([fixture("daemon.ts")], { SCV_HOME: home, FIXTURE_WORK: "delegation", FIXTURE_ARGV: '["sleep","30"]' });
    const { handle, pid } = await d.json();
    const began = Date.now();
    expect(await stopDaemon({ scvHome: home, timeoutSeconds: 0.3 })).toMatchObject({ stopped: true });
    const took = Date.now() - began;
    expect(took).toBeGreaterThanOrEqual(250);
    expect(took).toBeLessThan(20_000); // the 0.3 s bound and the kill, not the 30 s sleep
    expect(alive(pid)).toBe(false);
    expect(readRecord(home, handle)).toBeUndefined();
  });
});

describe("periodic reconcile", () => {
  test("an orphan that appears while the daemon runs is stopped by the next pass and counted", async () => {
    const home = tempHome();
    const d = spawnBun([fixture("daemon.ts")], { SCV_HOME: home, FIXTURE_RECONCILE_MS: "150" });
    await d.json(); // ready
    const owner = spawnBun([fixture("delegating-owner.ts")], { SCV_HOME: home, FIXTURE_ARGV: '["sleep","30"]' });
    const { handle, pid } = await owner.json();
    owner.proc.kill("SIGKILL");
    await owner.proc.exited;
    await waitFor(() => !readRecord(home, handle), 25_000, "the daemon to reconcile the orphan");
    expect(alive(pid)).toBe(false);
    const status = StatusResponse.parse(await (await daemonFetch(home, "/status")).json());
    expect(status.orphans_stopped).toBe(1);
    expect(status.orphans_stopped_total).toBe(1);
    expect(status.orphans_awaiting).toBe(0);
  });

  test("/status counts the daemon's own running and idle delegations", async () => {
    const home = tempHome();
    const d = spawnBun([fixture("daemon.ts")], { SCV_HOME: home, FIXTURE_WORK: "delegation", FIXTURE_ARGV: '["sleep","30"]' });
    await d.json();
    const status = StatusResponse.parse(await (await daemonFetch(home, "/status")).json());
    expect(status.delegations).toEqual({ running: 1, idle: 0 });
  });
});
