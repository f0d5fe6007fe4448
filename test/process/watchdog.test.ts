// A SIGKILLed SCV's runs stop within 2 seconds without any later SCV start: the death-watch guard reads EOF on
// its pipe and stops the groups still running, and processes that left the group but kept the run's tag.
// Real binary, real processes; nothing else is started after the kill.
import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, fakeModelForFile, requireBinary } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";
import { until } from "../fake/until";
import { alive, guardOf, hostPidOf, killAll } from "../fake/proc";

const fake = fakeModelForFile();


/** `scv exec --yes` running a bash call that leaves a setsid escapee and then waits; returns once both run. */
async function execWithLongBash() {
  const { env, workspace } = fakeHome(fake.url);
  const command = "setsid sleep 311 & echo $! > escapee.pid; echo $$ > main.pid; sleep 312";
  fake.queue(toolCalls([{ name: "bash", arguments: { command } }]), text("unreached"));
  const scv = Bun.spawn([requireBinary(), "exec", "--yes", "go"], { cwd: workspace, env, stdin: "ignore", stdout: "ignore", stderr: "ignore" });
  const read = (f: string) => (existsSync(join(workspace, f)) ? Number(readFileSync(join(workspace, f), "utf8")) || undefined : undefined);
  // The pids the sandboxed command wrote are its PID namespace's: mapped to the host's before anything uses them.
  const main = await until("the bash call", () => {
    const p = read("main.pid");
    return p === undefined ? undefined : hostPidOf(p, scv.pid);
  });
  const escapee = await until("the escapee", () => {
    const p = read("escapee.pid");
    return p === undefined ? undefined : hostPidOf(p, scv.pid);
  });
  return { scv, main, escapee };
}

test("SIGKILL: the bash call and its setsid escapee are stopped within 2 s, by the guard alone", async () => {
  const { scv, main, escapee } = await execWithLongBash();
  try {
    expect(alive(main) && alive(escapee)).toBe(true);
    const guard = guardOf(scv.pid);
    expect(guard).toBeGreaterThan(0);
    scv.kill("SIGKILL");
    await scv.exited;
    const killedAt = Date.now();
    await until("the runs to stop", () => (!alive(main) && !alive(escapee) ? true : undefined), 2000);
    expect(Date.now() - killedAt).toBeLessThan(2000);
    await until("the guard to exit", () => (!alive(guard!) ? true : undefined), 25_000);
  } finally {
    killAll([main, escapee]);
  }
}, 30_000);

test("a normal end leaves no guard behind", async () => {
  const { env, workspace } = fakeHome(fake.url);
  // The call runs long enough for the guard to be seen while it holds the group. (A reply the killed run above
  // never asked for is dropped first.)
  fake.clear();
  fake.queue(toolCalls([{ name: "bash", arguments: { command: "sleep 0.6" } }]), text("done"));
  const scv = Bun.spawn([requireBinary(), "exec", "--yes", "go"], { cwd: workspace, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  let guard: number | undefined;
  const watch = setInterval(() => (guard ??= guardOf(scv.pid)), 5);
  expect(await scv.exited).toBe(0);
  clearInterval(watch);
  expect(guard).toBeGreaterThan(0);
  await until("the guard to exit", () => (!alive(guard!) ? true : undefined), 25_000);
}, 30_000);

/** `scv exec` without the sandbox (mode off, --yes), running `command` in bash; returns once main.pid and escapee.pid exist. */
async function unsandboxedRun(command: string) {
  const { env, workspace, home } = fakeHome(fake.url, '[sandbox]\nmode = "off"\n');
  fake.clear();
  fake.queue(toolCalls([{ name: "bash", arguments: { command } }]), text("unreached"));
  const scv = Bun.spawn([requireBinary(), "exec", "--yes", "go"], { cwd: workspace, env, stdin: "ignore", stdout: "ignore", stderr: "ignore" });
  const read = (f: string) => (existsSync(join(workspace, f)) ? Number(readFileSync(join(workspace, f), "utf8")) || undefined : undefined);
  const main = await until("the bash call", () => read("main.pid"), 20_000);
  const escapee = await until("the escapee", () => read("escapee.pid"));
  // The runner's scan of the run's descendants (every 500 ms) finds the escapee, tells the guard, then adds it to
  // the run's record: waited for there (a fixed 1.2 s was too short on a busy machine).
  await until("the escapee in the run's record", () => (recordedMembers(home).includes(escapee) ? true : undefined));
  return { scv, main, escapee, env, workspace, home, read };
}

/** The pids the run records under `home` list as members that left the group (src/process/run-records.ts). */
function recordedMembers(home: string): number[] {
  const dir = join(home, "state", "runs");
  const pids: number[] = [];
  for (const name of existsSync(dir) ? readdirSync(dir) : []) {
    if (!name.endsWith(".json")) continue;
    try {
      const rec = JSON.parse(readFileSync(join(dir, name), "utf8")) as { members?: { pid: number }[] };
      for (const m of rec.members ?? []) pids.push(m.pid);
    } catch {
      // being rewritten (tmp + rename) or half-written: the next probe reads it
    }
  }
  return pids;
}

test("a child started with setsid env -i (no group, session or run tag) still stops within 2 s of SCV's SIGKILL", async () => {
  const { scv, main, escapee } = await unsandboxedRun("setsid env -i sleep 321 & echo $! > escapee.pid; echo $$ > main.pid; sleep 322");
  try {
    expect(alive(escapee)).toBe(true);
    scv.kill("SIGKILL");
    await scv.exited;
    await until("the runs to stop", () => (!alive(main) && !alive(escapee) ? true : undefined), 2000);
  } finally {
    killAll([main, escapee]);
  }
}, 60_000);

test("without the sandbox, a bash that kills the guard first: a new guard takes over, and the escapee still stops", async () => {
  const findAndKill =
    `for p in $(cat /proc/$PPID/task/*/children); do if [ "$(tr '\\0' ' ' < /proc/$p/cmdline 2>/dev/null)" = '/bin/sh -c eval "$W" ' ]; then kill -9 $p && echo $p > killed; fi; done; `;
  const { scv, main, escapee, read } = await unsandboxedRun(`${findAndKill}setsid env -i sleep 323 & echo $! > escapee.pid; echo $$ > main.pid; sleep 324`);
  try {
    const killed = read("killed");
    expect(killed).toBeGreaterThan(0); // the old guard was found and killed (nothing stops that outside the sandbox)
    expect(alive(killed!)).toBe(false);
    const guard = guardOf(scv.pid);
    expect(guard).toBeGreaterThan(0);
    expect(guard).not.toBe(killed);
    scv.kill("SIGKILL");
    await scv.exited;
    await until("the runs to stop", () => (!alive(main) && !alive(escapee) ? true : undefined), 2000);
  } finally {
    killAll([main, escapee]);
  }
}, 60_000);

test("with SCV and its guard both killed, the next start's reconcile stops the setsid env -i escapee by its recorded identity", async () => {
  const { scv, main, escapee, env, workspace } = await unsandboxedRun("setsid env -i sleep 325 & echo $! > escapee.pid; echo $$ > main.pid; sleep 326");
  try {
    const guard = guardOf(scv.pid)!;
    process.kill(guard, "SIGKILL");
    scv.kill("SIGKILL");
    await scv.exited;
    await Bun.sleep(300);
    expect(alive(escapee)).toBe(true); // nobody watched: only the record is left
    process.kill(main, "SIGKILL"); // the group and tag are the reconcile's old business; the escapee is what is new
    fake.queue(text("hello"));
    const next = Bun.spawn([requireBinary(), "exec", "hi"], { cwd: workspace, env, stdin: "ignore", stdout: "ignore", stderr: "ignore" });
    expect(await next.exited).toBe(0);
    await until("the escapee to stop", () => (!alive(escapee) ? true : undefined), 25_000);
  } finally {
    killAll([main, escapee]);
  }
}, 60_000);
