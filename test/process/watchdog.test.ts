// A SIGKILLed SCV's runs stop within 2 seconds without any later SCV start: the death-watch guard reads EOF on
// its pipe and stops the groups still running, and processes that left the group but kept the run's tag.
// Real binary, real processes; nothing else is started after the kill.
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, fakeModelForFile, requireBinary } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";
import { until } from "../fake/until";
import { alive, guardOf, killAll } from "../fake/proc";

const fake = fakeModelForFile();


/** `scv exec --yes` running a bash call that leaves a setsid escapee and then waits; returns once both run. */
async function execWithLongBash() {
  const { env, workspace } = fakeHome(fake.url);
  const command = "setsid sleep 311 & echo $! > escapee.pid; echo $$ > main.pid; sleep 312";
  fake.queue(toolCalls([{ name: "bash", arguments: { command } }]), text("unreached"));
  const scv = Bun.spawn([requireBinary(), "exec", "--yes", "go"], { cwd: workspace, env, stdin: "ignore", stdout: "ignore", stderr: "ignore" });
  const read = (f: string) => (existsSync(join(workspace, f)) ? Number(readFileSync(join(workspace, f), "utf8")) || undefined : undefined);
  const main = await until("the bash call", () => read("main.pid"));
  const escapee = await until("the escapee", () => read("escapee.pid"));
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
    await until("the guard to exit", () => (!alive(guard!) ? true : undefined), 3000);
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
  await until("the guard to exit", () => (!alive(guard!) ? true : undefined), 3000);
}, 30_000);
