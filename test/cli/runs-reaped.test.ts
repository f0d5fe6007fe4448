// Nothing a bash call starts outlives SCV: a SIGKILLed `dist/scv server --stdio` leaves run records, and the
// next server's start-up reconcile stops every process they name; double forks racing the leader's exit are
// still found. Real binary, real processes; the fake model endpoint makes the model call bash.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, removeFakeHomes, requireBinary } from "../fake/binary";
import { type FakeModel, startFakeModel, text, toolCalls } from "../fake/model-server";
import { guardOf, killAll, pidsWithArgv } from "../fake/proc";
import { needs } from "../fake/needs";
import { type StdioServer, startStdioServer } from "../fake/stdio-client";

let fake: FakeModel;
const servers: StdioServer[] = [];
const sleeps: string[][] = [];
beforeAll(async () => {
  fake = await startFakeModel();
});
afterEach(async () => {
  for (const s of servers.splice(0)) await s.kill();
  for (const argv of sleeps.splice(0)) killAll(pidsWithArgv(argv));
  fake.clear();
});
afterAll(async () => {
  await fake.close();
  removeFakeHomes();
});

/**
 * The sandbox off: a sandboxed command's processes die with SCV by themselves (its PID 1 is SCV's child with a
 * parent-death signal, src/sandbox/direct.ts; the last test here), so what the reconcile must find is an
 * unsandboxed command's.
 */
function home(sandboxed = false) {
  return fakeHome(fake.url, `[tools]\nmax_steps = 200\n${sandboxed ? "" : '[sandbox]\nmode = "off"\n'}`);
}

/** A `sleep` whose argument no other process uses, so the test finds exactly its own. */
function uniqueSleep(seconds: number): { arg: string; argv: string[] } {
  const arg = `${seconds}.${Math.floor(Math.random() * 1e9)}`;
  const argv = ["sleep", arg];
  sleeps.push(argv);
  return { arg, argv };
}

/** Kills SCV's death-watch guard first: what is left must then be found by the next start-up's reconcile. */
function killGuard(scvPid: number): void {
  const guard = guardOf(scvPid);
  expect(guard).toBeGreaterThan(0);
  process.kill(guard!, "SIGKILL");
}

async function until(what: string, probe: () => boolean, ms = 25_000): Promise<void> {
  const end = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(25);
  }
}

async function session(server: StdioServer, workspace: string): Promise<string> {
  expect((await server.request(1, "initialize", { protocol_version: 3 })).result).toBeDefined();
  const started = await server.request(2, "session.start", { cwd: workspace, auto_approve: true });
  return started.result.session_id;
}

/**
 * `scv exec` runs a bash call that leaves three sleeps (a background one, one started by `setsid`, and its own),
 * then its death watch and it are SIGKILLed; returns the sleeps' argv.
 */
async function killExecMidBash(env: Record<string, string>, workspace: string, setsid = "setsid -f"): Promise<{ arg: string; argv: string[] }> {
  const s = uniqueSleep(300);
  const command = `(sleep ${s.arg}) & ${setsid} bash -c 'sleep ${s.arg}' >/dev/null 2>&1; sleep ${s.arg}`;
  fake.queue(toolCalls([{ name: "bash", arguments: { command } }]));
  const exec = Bun.spawn([requireBinary(), "exec", "--yes", "sleep"], { cwd: workspace, env, stdin: "ignore", stdout: "ignore", stderr: "ignore" });
  try {
    await until("the three sleeps", () => pidsWithArgv(s.argv).length === 3);
    killGuard(exec.pid);
  } finally {
    exec.kill("SIGKILL");
    await exec.exited;
  }
  return s;
}

const runRecords = (scvHome: string) => {
  const dir = join(scvHome, "state", "runs");
  return existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith(".json")) : [];
};

test("SIGKILL mid-bash with the guard killed too: all three sleeps live on, and the next server's start-up reconcile stops them", async () => {
  const { env, workspace, home: scvHome } = home();
  const s = uniqueSleep(300);
  const command = `(sleep ${s.arg}) & setsid -f bash -c 'sleep ${s.arg}' >/dev/null 2>&1; sleep ${s.arg}`;
  fake.queue(toolCalls([{ name: "bash", arguments: { command } }]), text("unreached"));
  const first = startStdioServer(env, workspace);
  servers.push(first);
  const sid = await session(first, workspace);
  first.send({ jsonrpc: "2.0", id: 3, method: "turn.start", params: { session_id: sid, prompt: "sleep" } });
  await until("the three sleeps", () => pidsWithArgv(s.argv).length === 3);
  expect(runRecords(scvHome).length).toBe(1); // recorded while running

  killGuard(first.proc.pid);
  await first.kill();
  await Bun.sleep(200);
  const left = pidsWithArgv(s.argv);
  expect(left.length).toBe(3); // without its guard, a SIGKILL cleans up nothing by itself

  const next = startStdioServer(env, workspace);
  servers.push(next);
  expect((await next.request(1, "initialize", { protocol_version: 3 })).result).toBeDefined();
  await until("the orphaned sleeps to be stopped", () => pidsWithArgv(s.argv).length === 0);
  await until("the run record to go", () => runRecords(scvHome).length === 0);
  // The second server keeps serving.
  fake.clear();
  fake.queue(text("still here"));
  const sid2 = (await next.request(2, "session.start", { cwd: workspace, auto_approve: true })).result.session_id;
  next.send({ jsonrpc: "2.0", id: 3, method: "turn.start", params: { session_id: sid2, prompt: "hi" } });
  const ended = await next.waitFor((m) => m.method === "turn.ended");
  expect(ended.params.reply).toBe("still here");
}, 30_000);

test("SIGKILLed scv exec mid-bash, guard killed too: the next scv exec's start-up reconcile stops what it left", async () => {
  const { env, workspace, home: scvHome } = home();
  const s = await killExecMidBash(env, workspace);
  await Bun.sleep(200);
  expect(pidsWithArgv(s.argv).length).toBe(3);
  expect(runRecords(scvHome).length).toBe(1);

  fake.clear();
  fake.queue(text("done"));
  const next = Bun.spawn([requireBinary(), "exec", "hello"], { cwd: workspace, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => next.kill("SIGKILL"), 20_000);
  expect(await new Response(next.stdout).text()).toContain("done");
  await next.exited;
  clearTimeout(timer);
  // exec does not await its start-up reconcile, but TERM goes out before the turn starts.
  await until("the orphaned sleeps to be stopped", () => pidsWithArgv(s.argv).length === 0);
}, 60_000);

test("100 double forks racing the leader's exit leave no survivor", async () => {
  const { env, workspace, home: scvHome } = home();
  const s = uniqueSleep(600);
  const calls = 100;
  for (let i = 0; i < calls; i++) {
    fake.queue(toolCalls([{ name: "bash", arguments: { command: `( ( sleep ${s.arg} ) & ) & echo started` } }]));
  }
  fake.queue(text("done"));
  const server = startStdioServer(env, workspace);
  servers.push(server);
  const sid = await session(server, workspace);
  server.send({ jsonrpc: "2.0", id: 3, method: "turn.start", params: { session_id: sid, prompt: "fork" } });
  const ended = await server.waitFor((m) => m.method === "turn.ended", 120_000);
  expect(ended.params.error).toBeUndefined();
  expect(ended.params.status).toBe("completed");
  const outputs = server.messages.filter((m) => m.method === "tool.completed").map((m) => m.params.output as string);
  expect(outputs.length).toBe(calls);
  expect(outputs.filter((o) => o.includes("kept the output open"))).toEqual([]);
  expect(pidsWithArgv(s.argv)).toEqual([]);
  expect(runRecords(scvHome)).toEqual([]);
}, 180_000);

test("SIGKILL during a big write: the temporary file is removed by the next server's start-up sweep", async () => {
  const { env, workspace } = home();
  const temps = () => readdirSync(workspace).filter((n) => n.endsWith(".scv-tmp"));
  const content = "x".repeat(24 * 1024 * 1024); // below the 32 MiB SSE line bound
  let left: string[] = [];
  for (let attempt = 0; attempt < 5 && !left.length; attempt++) {
    fake.clear();
    fake.queue(toolCalls([{ name: "write", arguments: { path: "big.txt", content, mode: "create" }, chunk: 1 << 20 }]), text("unreached"));
    const server = startStdioServer(env, workspace);
    servers.push(server);
    const sid = await session(server, workspace);
    server.send({ jsonrpc: "2.0", id: 3, method: "turn.start", params: { session_id: sid, prompt: "write" } });
    const end = Date.now() + 20_000;
    const ended = () => server.messages.some((m) => m.method === "turn.ended");
    while (!temps().length && !existsSync(join(workspace, "big.txt")) && !ended() && Date.now() < end) await Bun.sleep(1);
    expect(server.messages.find((m) => m.method === "turn.ended")?.params).toBeUndefined();
    await server.kill();
    left = temps(); // empty when the write finished before the kill landed: try again
  }
  expect(left.length).toBe(1);

  const next = startStdioServer(env, workspace);
  servers.push(next);
  expect((await next.request(1, "initialize", { protocol_version: 3 })).result).toBeDefined();
  await until("the temporary file to be removed", () => temps().length === 0);
}, 120_000);

test.skipIf(!needs("root") || !needs("x86_64"))("sandboxed, a SIGKILL of SCV with its guard killed too still leaves nothing: the command's PID namespace dies with SCV", async () => {
  const { env, workspace } = home(true);
  // env -i too: the escapee carries no run tag, so only the PID namespace can end it.
  const s = await killExecMidBash(env, workspace, "setsid -f env -i");
  await until("the sleeps to end with SCV", () => pidsWithArgv(s.argv).length === 0, 2_000);
}, 30_000);
