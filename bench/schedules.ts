// The daemon's schedule timer with 10,000 schedules, idle: the extra memory it holds and the CPU it spends per
// minute (targets: under 5 MiB extra, under 10 ms CPU a minute), against a baseline idle window in this same
// process. The schedules are real store files (a mix of every, cron and at, none due in the window) loaded by
// the real runner on the real clock; the executors would fail the run if anything fired.
// Run with `bun bench/schedules.ts` (SCHEDULES=…, WINDOW_SECONDS=… to change; default 10,000 and 60).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ChannelsConfig, type Config, SchedulesConfig } from "../src/config/schema";
import { buildSchedule } from "../src/schedules/create";
import { ScheduleRunner } from "../src/schedules/runner";
import { ScheduleStore } from "../src/schedules/store";

const COUNT = Number(process.env.SCHEDULES ?? 10_000);
const WINDOW_MS = Number(process.env.WINDOW_SECONDS ?? 60) * 1000;
const MiB = 1024 * 1024;

const dir = mkdtempSync(join(tmpdir(), "scv-bench-sched-"));
const config = { channels: ChannelsConfig.parse({}), schedules: SchedulesConfig.parse({ time_zone: "Europe/Berlin" }) } as Config;

/** Lets the collector finish what earlier phases left (JSC sweeps on helper threads, which cpuUsage counts). */
async function settle() {
  Bun.gc(true);
  await Bun.sleep(3000);
  Bun.gc(true);
}

function memory() {
  Bun.gc(true);
  const m = process.memoryUsage();
  return { rss: m.rss / MiB, heap: m.heapUsed / MiB };
}

/** CPU (user + system) this process spends over `ms` of idle wall time, in ms. */
async function idleCpu(ms: number): Promise<number> {
  const before = process.cpuUsage();
  await Bun.sleep(ms);
  const d = process.cpuUsage(before);
  return (d.user + d.system) / 1000;
}

try {
  // Make the files first (outside both measurements): writing 10,000 files is not what the daemon does idle.
  const store = new ScheduleStore(dir);
  const now = Date.now();
  const kinds = [{ every: "1d" }, { cron: "30 8 * * 1-5" }, { cron: "0 9 1 * *" }, { at: new Date(now + 3 * 86_400_000).toISOString() }, { every: "6h" }];
  for (let i = 0; i < COUNT; i++) {
    const { schedule } = buildSchedule(
      { prompt: `schedule number ${i}: summarise the build and the open reviews`, ...kinds[i % kinds.length]! },
      { config, owner: { kind: "terminal", cwd: dir }, madeBy: "bench", id: `sch-${i.toString(16).padStart(8, "0")}`, now: now + (i % 5) * 3_600_000 },
    );
    store.save(schedule);
  }
  // Warm up what both phases share (Intl formatters, zod), so the baseline holds it too.
  new ScheduleStore(dir).get("sch-00000000");

  await settle();
  const base = memory();
  const baseCpuBefore = await idleCpu(WINDOW_MS);

  let fired = 0;
  let wakes = 0;
  const fail = () => {
    fired++;
    throw new Error("nothing may fire in the bench window");
  };
  const t0 = performance.now();
  const runner = new ScheduleRunner({
    store,
    config,
    log: () => {},
    executors: { chat: fail, chatPending: () => false, terminal: fail, tell: fail },
    clock: { now: Date.now, setTimer: (fn, ms) => setTimeout(() => (wakes++, fn()), ms), clearTimer: (h) => clearTimeout(h as ReturnType<typeof setTimeout>) },
  });
  runner.start();
  const loadMs = performance.now() - t0;
  const loaded = memory();
  await settle();
  const runnerCpu = await idleCpu(WINDOW_MS);
  const after = memory();
  runner.stop();
  await settle();
  // The baseline is the mean of an idle window before the runner and one after it stopped: this machine is shared.
  const baseCpuAfter = await idleCpu(WINDOW_MS);
  const baseCpu = (baseCpuBefore + baseCpuAfter) / 2;

  const perMinute = (cpu: number) => (cpu * 60_000) / WINDOW_MS;
  const extraCpu = perMinute(runnerCpu) - perMinute(baseCpu);
  const extraRss = after.rss - base.rss;
  const extraHeap = after.heap - base.heap;
  console.log(`schedules: ${COUNT} (${runner.nextFires().length} active), loaded in ${loadMs.toFixed(0)} ms (once, at start or a full reload)`);
  console.log(`idle windows: ${WINDOW_MS / 1000} s each (baseline before ${baseCpuBefore.toFixed(2)} ms, after ${baseCpuAfter.toFixed(2)} ms); timer wakes with the runner: ${wakes}; fires: ${fired}`);
  console.log(`CPU per minute idle: baseline ${perMinute(baseCpu).toFixed(2)} ms, with the runner ${perMinute(runnerCpu).toFixed(2)} ms: extra ${extraCpu.toFixed(2)} ms (target < 10), ratio ${(perMinute(runnerCpu) / Math.max(perMinute(baseCpu), 0.01)).toFixed(2)}x`);
  console.log(`memory after GC: baseline RSS ${base.rss.toFixed(1)} MiB, heap ${base.heap.toFixed(2)} MiB; with the runner RSS ${after.rss.toFixed(1)} MiB (+${extraRss.toFixed(2)}), heap ${after.heap.toFixed(2)} MiB (+${extraHeap.toFixed(2)}) (target < 5 MiB extra; heap right after loading +${(loaded.heap - base.heap).toFixed(2)})`);
  if (fired) process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
