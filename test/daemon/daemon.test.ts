// The daemon as a real subprocess (`bun src/cli/main.ts daemon run`): single instance, socket mode,
// stale-socket recovery, the HTTP surface, and start/stop/status through the CLI.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, lstatSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { daemonFetch, probeDaemon } from "../../src/daemon/client";
import { daemonPaths } from "../../src/daemon/paths";
import { HealthResponse, StatusResponse } from "../../src/daemon/wire";
import { type Child, MAIN, alive, cli, killQuietly, killStarted, spawnBun, tempHome, waitFor } from "./fixtures/helpers";

const pids: number[] = [];
afterEach(async () => {
  for (const pid of pids.splice(0)) killQuietly(pid);
  await killStarted();
});

async function runDaemon(home: string): Promise<Child> {
  const d = spawnBun([MAIN, "daemon", "run"], { SCV_HOME: home });
  await waitFor(async () => (await probeDaemon(home)).state === "running", 25_000, "the daemon to answer");
  return d;
}

describe("single instance", () => {
  test("the socket is 0600 in a 0700 run dir and /health names the daemon", async () => {
    const home = tempHome();
    const d = await runDaemon(home);
    const { socket, runDir } = daemonPaths(home);
    expect(lstatSync(socket).isSocket()).toBe(true);
    expect(statSync(socket).mode & 0o777).toBe(0o600);
    expect(statSync(runDir).mode & 0o777).toBe(0o700);
    const health = HealthResponse.parse(await (await daemonFetch(home, "/health")).json());
    expect(health.pid).toBe(d.pid);
    const status = StatusResponse.parse(await (await daemonFetch(home, "/status")).json());
    expect(status).toMatchObject({ pid: d.pid, delegations: { running: 0, idle: 0 }, orphans_stopped: 0, stopping: false });
  });

  test("a second daemon for the same home refuses and the first keeps serving", async () => {
    const home = tempHome();
    const first = await runDaemon(home);
    const second = await cli(["daemon", "run"], { SCV_HOME: home });
    expect(second.code).not.toBe(0);
    expect(second.stderr).toContain(`already running for ${home} (pid ${first.pid})`);
    const probe = await probeDaemon(home);
    expect(probe.state === "running" && probe.health.pid).toBe(first.pid);
  });

  test("a socket left by a crashed daemon is detected as stale and replaced", async () => {
    const home = tempHome();
    const first = await runDaemon(home);
    first.proc.kill("SIGKILL");
    await first.proc.exited;
    expect(lstatSync(daemonPaths(home).socket).isSocket()).toBe(true); // the crash left it
    expect((await probeDaemon(home)).state).toBe("stale");
    const second = await runDaemon(home);
    const probe = await probeDaemon(home);
    expect(probe.state === "running" && probe.health.pid).toBe(second.pid);
    expect(statSync(daemonPaths(home).socket).mode & 0o777).toBe(0o600);
  });

  test("a file that is not a socket is never replaced", async () => {
    const home = tempHome();
    mkdirSync(daemonPaths(home).runDir, { recursive: true, mode: 0o700 });
    writeFileSync(daemonPaths(home).socket, "mine");
    const r = await cli(["daemon", "run"], { SCV_HOME: home });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("is not a socket");
    expect(lstatSync(daemonPaths(home).socket).isFile()).toBe(true);
  });
});

describe("HTTP surface", () => {
  test("bad shutdown bodies get 400 and unknown routes 404, and the daemon keeps running", async () => {
    const home = tempHome();
    const d = await runDaemon(home);
    const bad = await daemonFetch(home, "/shutdown", { method: "POST", body: '{"force":"yes"}' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toContain("force");
    const junk = await daemonFetch(home, "/shutdown", { method: "POST", body: "{" });
    expect(junk.status).toBe(400);
    expect((await daemonFetch(home, "/nope")).status).toBe(404);
    expect(alive(d.pid)).toBe(true);
  });

  test("POST /shutdown stops an idle daemon and removes the socket", async () => {
    const home = tempHome();
    const d = await runDaemon(home);
    const res = await daemonFetch(home, "/shutdown", { method: "POST", body: "{}" });
    expect(res.status).toBe(202);
    expect(await res.json()).toMatchObject({ stopping: true, force: false, waiting_for: 0 });
    expect(await d.proc.exited).toBe(0);
    expect(existsSync(daemonPaths(home).socket)).toBe(false);
  });

  test("SIGTERM is a planned stop", async () => {
    const home = tempHome();
    const d = await runDaemon(home);
    d.proc.kill("SIGTERM");
    expect(await d.proc.exited).toBe(0);
    expect(existsSync(daemonPaths(home).socket)).toBe(false);
  });
});

describe("CLI", () => {
  test("start, status, stop", async () => {
    const home = tempHome();
    const started = await cli(["daemon", "start"], { SCV_HOME: home });
    expect(started.code).toBe(0);
    const pid = Number(/pid (\d+)/.exec(started.stdout)?.[1]);
    pids.push(pid);
    expect(alive(pid)).toBe(true);
    expect(statSync(daemonPaths(home).log).mode & 0o777).toBe(0o600);

    const again = await cli(["daemon", "start"], { SCV_HOME: home });
    expect(again.stdout).toContain(`already running (pid ${pid})`);

    const ds = await cli(["daemon", "status", "--json"], { SCV_HOME: home });
    expect(JSON.parse(ds.stdout)).toMatchObject({ running: true, pid });
    expect(ds.code).toBe(0);
    const st = await cli(["status", "--json"], { SCV_HOME: home });
    expect(JSON.parse(st.stdout)).toMatchObject({ source: "daemon", daemon: { running: true, pid }, delegations: { running: 0, idle: 0 } });
    const text = await cli(["status"], { SCV_HOME: home });
    expect(text.stdout).toContain(`daemon: running (pid ${pid}`);

    const stopped = await cli(["daemon", "stop"], { SCV_HOME: home });
    expect(stopped.stdout).toContain(`stopped (pid ${pid})`);
    expect(alive(pid)).toBe(false);
    const after = JSON.parse((await cli(["status", "--json"], { SCV_HOME: home })).stdout);
    expect(after).toMatchObject({ source: "state", daemon: { running: false } });
    const down = await cli(["daemon", "status"], { SCV_HOME: home });
    expect(down.code).toBe(3);
    expect(down.stdout).toStartWith("not running");
    expect((await cli(["daemon", "stop"], { SCV_HOME: home })).stdout).toContain("not running");
    // Ten CLI runs from source: 3-4 s each at load 20 on 2 cores (bun's scheduling, not SCV's work).
  }, 120_000);

  test("restart stops the old daemon and starts a new one", async () => {
    const home = tempHome();
    const started = await cli(["daemon", "start"], { SCV_HOME: home });
    const oldPid = Number(/pid (\d+)/.exec(started.stdout)?.[1]);
    pids.push(oldPid);
    const restarted = await cli(["daemon", "restart"], { SCV_HOME: home });
    expect(restarted.code).toBe(0);
    const newPid = Number(/started \(pid (\d+)/.exec(restarted.stdout)?.[1]);
    pids.push(newPid);
    expect(newPid).not.toBe(oldPid);
    expect(alive(oldPid)).toBe(false);
    const probe = await probeDaemon(home);
    expect(probe.state === "running" && probe.health.pid).toBe(newPid);
    await cli(["daemon", "stop"], { SCV_HOME: home });
  }, 120_000);
});
