// Fast start of a nested SCV child: spawn → `session.start` answered and spawn → first model request of
// `dist/scv server --stdio` (as the `scv` agent starts it: initialize, session.start at depth 1, turn.start at
// once), and spawn → first model request of `scv exec`, against a bare compiled hello-world run to its exit in
// this same run. Target: the nested child's first model request within 3x of the bare binary.
// Only loopback traffic: the model is the scripted fake endpoint on 127.0.0.1.
// Wall time on a shared machine swings with its load, so each figure is also given as CPU time (every thread of
// the child, from /proc/<pid>/task/*/schedstat, at the moment the request arrives; the bare binary's from its
// resource usage), which load barely moves.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { startFakeModel, text } from "../test/fake/model-server";
import { buildBareHello, median } from "./bare";

const RUNS = Number(process.env.RUNS ?? 20);
// SCV_BIN: another binary to measure (an older build, say); relative paths are taken from the current directory.
const scv = process.env.SCV_BIN ? resolve(process.env.SCV_BIN) : join(import.meta.dir, "..", "dist", "scv");
const { dir, bare } = buildBareHello();
let firstRequestAt = 0;
let measuredPid = 0;
let cpuAtRequest = 0;
/** CPU time (ms) every thread of `pid` has used so far (MAIN_THREAD=1: only its main thread). */
function cpuMs(pid: number): number {
  let ns = 0;
  for (const task of process.env.MAIN_THREAD ? [String(pid)] : readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
    } catch {}
  }
  return ns / 1e6;
}
const fake = await startFakeModel({
  onRequest: () => {
    if (firstRequestAt) return;
    firstRequestAt = performance.now();
    cpuAtRequest = measuredPid ? cpuMs(measuredPid) : 0;
  },
});
const home = join(dir, "scv-home");
const workspace = join(dir, "ws");
mkdirSync(home, { recursive: true });
mkdirSync(workspace, { recursive: true });
writeFileSync(join(home, "config.toml"), `[provider]\nactive = "fake"\n[providers.fake]\nbase_url = "${fake.url}"\nmodel = "fake-model"\napi_key = "k"\nmax_retries = 0\n`);
const env = { PATH: process.env.PATH ?? "", HOME: join(dir, "home"), SCV_HOME: home, SCV_DELEGATION_DEPTH: "1" };

async function nestedChild(): Promise<{ sessionStarted: number; firstRequest: number; cpu: number }> {
  fake.queue(text("hi"));
  firstRequestAt = 0;
  const t0 = performance.now();
  const p = Bun.spawn([scv, "server", "--stdio"], { env, cwd: workspace, stdin: "pipe", stdout: "pipe", stderr: "inherit" });
  measuredPid = p.pid;
  const send = (id: number, method: string, params: unknown) => p.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
  send(1, "initialize", { protocol_version: 3 });
  send(2, "session.start", { cwd: workspace, delegation_depth: 1 });
  p.stdin.flush();
  let sessionStarted = 0;
  let buf = "";
  const decoder = new TextDecoder();
  for await (const chunk of p.stdout) {
    buf += decoder.decode(chunk, { stream: true });
    let nl: number;
    let ended = false;
    while ((nl = buf.indexOf("\n")) !== -1) {
      const msg = JSON.parse(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
      if (msg.id === 2) {
        sessionStarted = performance.now() - t0;
        send(3, "turn.start", { session_id: msg.result.session_id, prompt: "hello" });
        p.stdin.flush();
      }
      if (msg.method === "turn.ended") ended = true;
    }
    if (ended) break;
  }
  const firstRequest = firstRequestAt - t0;
  p.stdin.end();
  await p.exited;
  return { sessionStarted, firstRequest, cpu: cpuAtRequest };
}

async function execRun(): Promise<{ wall: number; cpu: number }> {
  fake.queue(text("hi"));
  firstRequestAt = 0;
  const t0 = performance.now();
  const p = Bun.spawn([scv, "exec", "hello"], { env: { ...env, SCV_DELEGATION_DEPTH: "0" }, cwd: workspace, stdout: "pipe", stderr: "pipe" });
  measuredPid = p.pid;
  await p.exited;
  return { wall: firstRequestAt - t0, cpu: cpuAtRequest };
}

/** The bare binary's wall and CPU time (user + system) to its exit. */
function bareRun(): { wall: number; cpu: number } {
  const t0 = performance.now();
  const r = Bun.spawnSync([bare], { env, stdout: "pipe", stderr: "pipe" });
  const wall = performance.now() - t0;
  const usage = r.resourceUsage!;
  return { wall, cpu: (Number(usage.cpuTime.user) + Number(usage.cpuTime.system)) / 1000 };
}

const bareWall: number[] = [];
const bareCpu: number[] = [];
const started: number[] = [];
const first: number[] = [];
const firstCpu: number[] = [];
const exec: number[] = [];
const execCpu: number[] = [];
try {
  for (let i = 0; i < RUNS; i++) {
    const b = bareRun();
    bareWall.push(b.wall);
    bareCpu.push(b.cpu);
    const n = await nestedChild();
    started.push(n.sessionStarted);
    first.push(n.firstRequest);
    firstCpu.push(n.cpu);
    const e = await execRun();
    exec.push(e.wall);
    execCpu.push(e.cpu);
  }
} finally {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
}
const bw = median(bareWall);
const bc = median(bareCpu);
const line = (label: string, wall: number[], cpu?: number[]) =>
  console.log(
    `${label.padEnd(48)} ${median(wall).toFixed(1).padStart(6)} ms wall, ${(median(wall) / bw).toFixed(2)}x bare` +
      (cpu ? `; ${median(cpu).toFixed(1).padStart(6)} ms CPU, ${(median(cpu) / bc).toFixed(2)}x bare` : ""),
  );
console.log(`runs: ${RUNS} (medians)`);
line("bare compiled hello-world (spawn to exit)", bareWall, bareCpu);
line("nested child: spawn → session.start answered", started);
line("nested child: spawn → first model request", first, firstCpu);
line("scv exec: spawn → first model request", exec, execCpu);
console.log("target: the nested child's first model request within 3x of the bare binary");
