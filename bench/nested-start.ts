// Fast start of a nested SCV child: spawn → `session.start` answered and spawn → first model request of
// `dist/scv server --stdio` (as the `scv` agent starts it: initialize, session.start at depth 1, turn.start at
// once), and spawn → first model request of `scv exec`, against a bare compiled hello-world run to its exit in
// this same run. Target: the nested child's first model request within 3x of the bare binary.
// Only loopback traffic: the model is the scripted fake endpoint on 127.0.0.1.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeModel, text } from "../test/fake/model-server";
import { buildBareHello, median, timeRun } from "./bare";

const RUNS = Number(process.env.RUNS ?? 20);
const scv = process.env.SCV_BIN ?? join(import.meta.dir, "..", "dist", "scv");
const { dir, bare } = buildBareHello();
let firstRequestAt = 0;
const fake = await startFakeModel({ onRequest: () => (firstRequestAt ||= performance.now()) });
const home = join(dir, "scv-home");
const workspace = join(dir, "ws");
mkdirSync(home, { recursive: true });
mkdirSync(workspace, { recursive: true });
writeFileSync(join(home, "config.toml"), `[provider]\nactive = "fake"\n[providers.fake]\nbase_url = "${fake.url}"\nmodel = "fake-model"\napi_key = "k"\nmax_retries = 0\n`);
const env = { PATH: process.env.PATH ?? "", HOME: join(dir, "home"), SCV_HOME: home, SCV_DELEGATION_DEPTH: "1" };

async function nestedChild(): Promise<{ sessionStarted: number; firstRequest: number }> {
  fake.queue(text("hi"));
  firstRequestAt = 0;
  const t0 = performance.now();
  const p = Bun.spawn([scv, "server", "--stdio"], { env, cwd: workspace, stdin: "pipe", stdout: "pipe", stderr: "inherit" });
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
  return { sessionStarted, firstRequest };
}

async function execRun(): Promise<number> {
  fake.queue(text("hi"));
  firstRequestAt = 0;
  const t0 = performance.now();
  const p = Bun.spawn([scv, "exec", "hello"], { env: { ...env, SCV_DELEGATION_DEPTH: "0" }, cwd: workspace, stdout: "pipe", stderr: "pipe" });
  await p.exited;
  return firstRequestAt - t0;
}

const bareTimes: number[] = [];
const started: number[] = [];
const first: number[] = [];
const exec: number[] = [];
for (let i = 0; i < RUNS; i++) {
  bareTimes.push(timeRun([bare], env));
  const n = await nestedChild();
  started.push(n.sessionStarted);
  first.push(n.firstRequest);
  exec.push(await execRun());
}
await fake.close();
rmSync(dir, { recursive: true, force: true });
const b = median(bareTimes);
const ratio = (x: number) => `${(x / b).toFixed(2)}x`;
console.log(`runs: ${RUNS}`);
console.log(`bare compiled hello-world (spawn to exit):        ${b.toFixed(1)} ms (median)`);
console.log(`nested child: spawn → session.start answered:     ${median(started).toFixed(1)} ms, ${ratio(median(started))} bare`);
console.log(`nested child: spawn → first model request:        ${median(first).toFixed(1)} ms, ${ratio(median(first))} bare (target <= 3x)`);
console.log(`scv exec:     spawn → first model request:        ${median(exec).toFixed(1)} ms, ${ratio(median(exec))} bare`);
