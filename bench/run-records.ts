// Cost of recording every run ($SCV_HOME/state/runs) per bash call (target: under 1 ms).
// Baseline in the same run: the same runner running the same command without records. Also reported: the
// record cycle alone (write before the spawn, rewrite with the group after it, unlink when cleaned up).
// Run with `bun bench/run-records.ts` (ROUNDS=… to change the sample size).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createProcessRunner, newTag } from "../src/process/index";
import { RunRecorder, runsDir } from "../src/process/run-records";
import { median } from "./bare";

const ROUNDS = Number(process.env.ROUNDS ?? 200);
const root = mkdtempSync(join(tmpdir(), "scv-bench-runs-"));


try {
  const cycle: number[] = [];
  const recorder = new RunRecorder(runsDir(join(root, "cycle")));
  for (let i = 0; i < ROUNDS; i++) {
    const t = performance.now();
    const rec = recorder.begin(newTag(), "/bin/bash");
    recorder.started(rec, { pid: process.pid, startTime: "12345" });
    recorder.finish(rec);
    cycle.push(performance.now() - t);
  }

  const plain = createProcessRunner();
  const recorded = createProcessRunner({ scvHome: join(root, "home") });
  const opts = { argv: ["/bin/bash", "-c", "true"], cwd: root, env: { PATH: process.env.PATH }, stdin: "null" as const, captureBytes: 4096, combined: true };
  const base: number[] = [];
  const withRecords: number[] = [];
  // Interleaved, so load on the machine hits both alike.
  for (let i = 0; i < ROUNDS / 4; i++) {
    let t = performance.now();
    await plain.run(opts);
    base.push(performance.now() - t);
    t = performance.now();
    await recorded.run(opts);
    withRecords.push(performance.now() - t);
  }
  const b = median(base);
  const r = median(withRecords);
  const c = median(cycle);
  console.log(`bash -c true, runner without records   median ${b.toFixed(3)} ms   (baseline)`);
  console.log(`bash -c true, runner with records      median ${r.toFixed(3)} ms   ${(r / b).toFixed(3)}x   (difference ${(r - b).toFixed(3)} ms, noisy)`);
  console.log(`record cycle alone (write, rewrite, unlink) median ${c.toFixed(3)} ms   ${((c / b) * 100).toFixed(2)}% of a call   target < 1 ms: ${c < 1 ? "met" : "MISSED"}`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
