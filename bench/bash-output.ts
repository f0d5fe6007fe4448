// 1 GiB of output through the process runner (real pipe, head+tail capture, line counting, a streaming
// callback) against `cat` of the same bytes to /dev/null, measured in the same run.
// Targets: >= 200 MB/s through the runner, peak RSS under 80 MiB. Run: bun bench/bash-output.ts
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { runProcess } from "../src/process";

const TOTAL = 2 ** 30;
// Text lines of a typical length, so the newline count does real work.
const PRODUCER = `yes 'lorem ipsum dolor sit amet, consectetur adipiscing elit 0123456789' | head -c ${TOTAL}`;
const MB = 1e6;
const MIB = 2 ** 20;

function peakRss(): number {
  const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync("/proc/self/status", "utf8"));
  return m ? Number(m[1]) * 1024 : process.memoryUsage().rss;
}

async function throughRunner(): Promise<{ mbps: number; sampledPeak: number; lines: number }> {
  let sampledPeak = 0;
  const sampler = setInterval(() => (sampledPeak = Math.max(sampledPeak, process.memoryUsage().rss)), 10);
  let chunks = 0;
  const began = performance.now();
  const r = await runProcess({
    argv: ["/bin/bash", "-c", PRODUCER],
    cwd: tmpdir(),
    env: { ...process.env },
    stdin: "null",
    combined: true,
    captureBytes: 65536,
    onStdout: () => void chunks++,
  });
  const seconds = (performance.now() - began) / 1000;
  clearInterval(sampler);
  if (r.combined!.totalBytes !== TOTAL) throw new Error(`runner saw ${r.combined!.totalBytes} bytes, expected ${TOTAL}`);
  return { mbps: TOTAL / seconds / MB, sampledPeak, lines: r.combined!.totalLines };
}

async function throughCat(): Promise<number> {
  const began = performance.now();
  const p = Bun.spawn(["/bin/bash", "-c", `${PRODUCER} | cat > /dev/null`], { stdin: "ignore", stdout: "ignore", stderr: "inherit" });
  if ((await p.exited) !== 0) throw new Error("baseline pipeline failed");
  return TOTAL / ((performance.now() - began) / 1000) / MB;
}

const startRss = process.memoryUsage().rss;
const runs = 3;
const runner: number[] = [];
const cat: number[] = [];
let sampled = 0;
let lines = 0;
for (let i = 0; i < runs; i++) {
  const r = await throughRunner();
  runner.push(r.mbps);
  sampled = Math.max(sampled, r.sampledPeak);
  lines = r.lines;
  cat.push(await throughCat());
}
const best = (xs: number[]) => Math.max(...xs);
const hwm = peakRss();
const runnerBest = best(runner);
const catBest = best(cat);

console.log(`1 GiB (${lines} lines), ${runs} runs each, best of runs:`);
console.log(`  runner  ${runnerBest.toFixed(0)} MB/s  (runs: ${runner.map((x) => x.toFixed(0)).join(", ")})`);
console.log(`  cat     ${catBest.toFixed(0)} MB/s  (runs: ${cat.map((x) => x.toFixed(0)).join(", ")})`);
console.log(`  ratio runner/cat: ${(runnerBest / catBest).toFixed(2)}`);
console.log(`  RSS: start ${(startRss / MIB).toFixed(1)} MiB, peak ${(hwm / MIB).toFixed(1)} MiB (VmHWM), sampled peak ${(sampled / MIB).toFixed(1)} MiB`);
console.log(`  targets: throughput >= 200 MB/s ${runnerBest >= 200 ? "met" : "MISSED"}; peak RSS < 80 MiB ${hwm < 80 * MIB ? "met" : "MISSED"}`);
