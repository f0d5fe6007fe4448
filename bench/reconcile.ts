// Reconcile scan of /proc with 1,000 extra processes running (target: under 20 ms).
// Baseline in the same run: a bare readdir of /proc. Run with `bun bench/reconcile.ts`.
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { type DelegationRecord, bootId, currentBtime, writeRecord } from "../src/process/delegation-records";
import { scanTagged } from "../src/process/delegation-stop";
import { reconcile } from "../src/process/reconcile";
import { medianTime } from "./bare";

const EXTRA = Number(process.env.BENCH_EXTRA ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);

const time = (fn: () => unknown, rounds = ROUNDS) => medianTime(fn, rounds);

const ticksNow = () => String(Math.floor(Number(readFileSync("/proc/uptime", "utf8").split(" ")[0]) * 100));

/** An orphan whose agent started now (after the extra processes) and has exited: a pure scanning pass. */
function orphan(n: number): DelegationRecord {
  return {
    handle: `bench-${n.toString(16).padStart(6, "0")}`,
    agent: "bench",
    instance: "gone",
    session: "s",
    cwd: "/",
    depth: 1,
    scv_parent: `gone/s/bench-${n}`,
    run_tag: `bench-tag-${n}`,
    pid: 999_999_999, // gone: nothing of it is left, so the pass is pure scanning
    start_time: ticksNow(),
    btime: currentBtime(),
    owner_pid: 999_999_999,
    owner_start_time: "1",
    boot_id: bootId(),
    started_unix: Math.floor(Date.now() / 1000),
  };
}

// One bash in its own group starts the sleeps, so cleanup is a single group kill.
const spawner = Bun.spawn(["bash", "-c", `for i in $(seq ${EXTRA}); do sleep 120 & done; wait`], {
  detached: true,
  stdin: "ignore",
  stdout: "ignore",
  stderr: "inherit",
});
// Whatever ends this benchmark (Ctrl-C, timeout), the sleeps go with it.
const killSleeps = () => {
  try {
    process.kill(-spawner.pid, "SIGKILL");
  } catch {}
};
process.on("exit", killSleeps);
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(sig, () => process.exit(130));
const before = readdirSync("/proc").filter((n) => /^\d+$/.test(n)).length;
const deadline = Date.now() + 30_000;
while (readdirSync("/proc").filter((n) => /^\d+$/.test(n)).length < before + EXTRA && Date.now() < deadline) await Bun.sleep(50);
await Bun.sleep(500); // let the spawning settle before measuring
const pids = readdirSync("/proc").filter((n) => /^\d+$/.test(n)).length;

try {
  const home = join(mkdtempSync(join(tmpdir(), "scv-bench-")), "home");
  const bare = await time(() => readdirSync("/proc"));
  const scan = await time(() => scanTagged([orphan(0)]));
  const every = await time(() => scanTagged([orphan(0)], { everyProcess: true }));
  let n = 1;
  const pass = await time(async () => {
    writeRecord(home, orphan(n++));
    const r = await reconcile(home);
    if (r.stopped.length !== 1) throw new Error("the orphan was not reconciled");
  });
  const idle = await time(() => reconcile(home));
  const ratio = (x: number) => `${(x / bare).toFixed(1)}x`;
  console.log(`processes in /proc: ${pids} (${before} before the ${EXTRA} extra sleeps)`);
  console.log(`bare /proc readdir                        median ${bare.toFixed(3)} ms   (baseline)`);
  console.log(`tag scan of /proc (born-after filter)     median ${scan.toFixed(3)} ms   ${ratio(scan)}`);
  console.log(`tag scan of /proc (environ of every pid)  median ${every.toFixed(3)} ms   ${ratio(every)}   (worst case: clock stepped or start unknown)`);
  console.log(`reconcile pass with one orphan record     median ${pass.toFixed(3)} ms   ${ratio(pass)}   target < 20 ms: ${pass < 20 ? "met" : "MISSED"}`);
  console.log(`reconcile pass with nothing to do         median ${idle.toFixed(3)} ms   ${ratio(idle)}`);
} finally {
  killSleeps();
  await spawner.exited;
}
