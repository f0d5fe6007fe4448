// An ACP agent streaming its reply without a newline: peak memory and time of `dist/scv exec` while the
// stand-in agent (test/fake/acp-server.ts, as claude-agent-acp) sends 200 MB of message chunks. Run with
// `bun bench/acp-flood.ts` after `bun run build`. Baseline in the same run: the same call with a 1 MB reply.
// Targets: the 200 MB run peaks under 150 MiB and finishes in under 10 s.
import { mkdirSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { fakeHome, removeFakeHomes, requireBinary } from "../test/fake/binary";
import { ACP_AGENT, ACP_SERVER, script } from "../test/fake/acp-harness";
import { startFakeModel, text, toolCalls } from "../test/fake/model-server";
import { exitWithPeak } from "../test/fake/proc";

const MiB = 1024 * 1024;
const BYTES = Number(process.env.BENCH_FLOOD_BYTES ?? 200 * 1000 * 1000);

const model = await startFakeModel();
try {
  async function run(bytes: number): Promise<{ ms: number; peak: number; code: number }> {
    const { env, workspace } = fakeHome(model.url);
    const bin = join(env.HOME!, ".local", "bin");
    mkdirSync(bin, { recursive: true });
    symlinkSync(ACP_AGENT, join(bin, "claude-agent-acp"));
    model.queue(toolCalls([{ name: "agent", arguments: { agent: "claude", prompt: script([{ flood: { bytes, chunk: 65536 } }, { say: "\ndone" }]) } }]), text("finished"));
    const started = performance.now();
    const proc = Bun.spawn([requireBinary(), "exec", "--yes", "delegate it"], {
      cwd: workspace,
      env: { ...env, FAKE_ACP_SERVER: ACP_SERVER, FAKE_ACP_BUN: process.execPath, PATH: `${dirname(process.execPath)}:/usr/bin:/bin` },
      stdout: "ignore",
      stderr: "ignore",
    });
    const { code, peak } = await exitWithPeak(proc);
    return { ms: performance.now() - started, peak, code };
  }
  const base = await run(MiB);
  const flood = await run(BYTES);
  const mib = (b: number) => (b / MiB).toFixed(1);
  console.log(`baseline (1 MB reply):   peak ${mib(base.peak)} MiB, ${base.ms.toFixed(0)} ms, exit ${base.code}`);
  console.log(`flood (${(BYTES / 1e6).toFixed(0)} MB, no newline): peak ${mib(flood.peak)} MiB, ${flood.ms.toFixed(0)} ms, exit ${flood.code}`);
  console.log(`ratio: peak ${(flood.peak / base.peak).toFixed(2)}x, time ${(flood.ms / base.ms).toFixed(2)}x`);
  console.log(`target: peak < 150 MiB (${flood.peak < 150 * MiB ? "met" : "MISSED"}), time < 10 s (${flood.ms < 10_000 ? "met" : "MISSED"})`);
} finally {
  await model.close();
  removeFakeHomes();
}
