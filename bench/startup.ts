// Cold-start benchmark: dist/scv --version and `server --stdio` answering initialize, against a bare compiled
// hello-world built in this same run (machines are noisy, so only same-run ratios mean anything).
// Targets: --version within 2.5x of the bare binary; initialize answered within 40 ms of spawn.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { buildBareHello, median, timeRun as timeRunIn } from "./bare";

const RUNS = Number(process.env.RUNS ?? 30);
const scv = join(import.meta.dir, "..", "dist", "scv");
const { dir, bare } = buildBareHello();
const env = { PATH: process.env.PATH ?? "", HOME: dir, SCV_HOME: join(dir, "scv-home") };
const timeRun = (argv: string[]) => timeRunIn(argv, env);

async function timeInitialize(): Promise<number> {
  const t0 = performance.now();
  const p = Bun.spawn([scv, "server", "--stdio"], { env, cwd: dir, stdin: "pipe", stdout: "pipe", stderr: "ignore" });
  p.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocol_version: 3 } })}\n`);
  p.stdin.flush();
  const reader = p.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  const elapsed = performance.now() - t0;
  if (!text.includes('"protocol_version":3')) throw new Error(`unexpected reply: ${text}`);
  p.stdin.end();
  await p.exited;
  return elapsed;
}

const bareTimes: number[] = [];
const versionTimes: number[] = [];
const initTimes: number[] = [];
for (let i = 0; i < RUNS; i++) {
  // Interleave so drift on a noisy machine hits all three alike.
  bareTimes.push(timeRun([bare]));
  versionTimes.push(timeRun([scv, "--version"]));
  initTimes.push(await timeInitialize());
}
const b = median(bareTimes);
const v = median(versionTimes);
const init = median(initTimes);
console.log(`runs: ${RUNS}`);
console.log(`bare compiled hello-world: ${b.toFixed(1)} ms (median)`);
console.log(`scv --version:             ${v.toFixed(1)} ms (median), ratio ${(v / b).toFixed(2)}x (target <= 2.5x)`);
console.log(`scv server --stdio initialize answered: ${init.toFixed(1)} ms after spawn (median; target <= 40 ms), ratio ${(init / b).toFixed(2)}x bare`);
rmSync(dir, { recursive: true, force: true });
