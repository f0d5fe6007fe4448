// The death watch (src/process/watchdog.ts): what a SIGKILLed `scv exec` leaves running 0.5 s, 1 s and 2 s
// later (target: 0 at 2 s), against the same kill with the guard killed first (what SCV did before: everything
// lives on until a next start-up); and what the guard costs: its resident memory (target under 2 MiB), its
// spawn at the first run and a steady run's one write, against a bare Bun.spawn of `true` in the same process.
// Run with `bun bench/watchdog.ts` after `bun run build`; everything stays on loopback and in a temp dir.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deathWatch } from "../src/process/watchdog";
import { startFakeModel, text, toolCalls } from "../test/fake/model-server";
import { alive, guardOf, killAll } from "../test/fake/proc";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const BIN = join(import.meta.dir, "..", "dist", "scv");
if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`bun run build\` first`);

const root = mkdtempSync(join(tmpdir(), "scv-bench-watchdog-"));
const fake = await startFakeModel();
const leftovers: number[] = [];

async function until<T>(probe: () => T | undefined, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error("timed out");
    await Bun.sleep(10);
  }
}

const rssKiB = (pid: number) => Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? NaN);

/** One `scv exec` whose bash call leaves three sleeps (one a setsid escapee); SIGKILL; survivors over time. */
async function trial(n: number, killGuardFirst: boolean) {
  const home = join(root, `h${n}-${killGuardFirst}`);
  const ws = join(root, `w${n}-${killGuardFirst}`);
  mkdirSync(home, { recursive: true });
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(home, "config.toml"), `[provider]\nactive = "f"\n[providers.f]\nbase_url = "${fake.url}"\nmodel = "m"\nmax_retries = 0\n`);
  const command = "(sleep 321 & echo $! > a.pid; wait) & setsid sleep 322 & echo $! > b.pid; echo $$ > c.pid; sleep 323";
  fake.queue(toolCalls([{ name: "bash", arguments: { command } }]), text("x"));
  const scv = Bun.spawn([BIN, "exec", "--yes", "go"], { cwd: ws, env: { PATH: process.env.PATH!, HOME: root, SCV_HOME: home }, stdio: ["ignore", "ignore", "ignore"] });
  const read = (f: string) => (existsSync(join(ws, f)) ? Number(readFileSync(join(ws, f), "utf8")) || undefined : undefined);
  const pids = [await until(() => read("a.pid")), await until(() => read("b.pid")), await until(() => read("c.pid"))];
  leftovers.push(...pids);
  const guard = guardOf(scv.pid)!;
  const guardRss = rssKiB(guard);
  const scvRss = rssKiB(scv.pid);
  if (killGuardFirst) process.kill(guard, "SIGKILL");
  scv.kill("SIGKILL");
  const t0 = performance.now();
  await scv.exited;
  const at: number[] = [];
  for (const ms of [500, 1000, 2000]) {
    await Bun.sleep(Math.max(0, ms - (performance.now() - t0)));
    at.push(pids.filter(alive).length);
  }
  killAll(pids);
  fake.clear();
  return { at, guardRss, scvRss };
}

try {
  const withGuard = [];
  const without = [];
  for (let i = 0; i < ROUNDS; i++) {
    withGuard.push(await trial(i, false));
    without.push(await trial(i, true));
  }
  const sum = (rows: { at: number[] }[], k: number) => rows.reduce((s, r) => s + r.at[k]!, 0);
  const total = ROUNDS * 3;
  console.log(`survivors of ${total} processes (${ROUNDS} SIGKILLed scv exec runs, 3 processes each):`);
  console.log(`  with the guard:        0.5 s ${sum(withGuard, 0)}, 1 s ${sum(withGuard, 1)}, 2 s ${sum(withGuard, 2)}   (target: 0 at 2 s)`);
  console.log(`  guard killed (before): 0.5 s ${sum(without, 0)}, 1 s ${sum(without, 1)}, 2 s ${sum(without, 2)}`);
  const med = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1]!;
  const guardRss = med(withGuard.map((r) => r.guardRss));
  const scvRss = med(withGuard.map((r) => r.scvRss));
  console.log(`guard resident memory: ${(guardRss / 1024).toFixed(2)} MiB (target under 2 MiB); scv exec itself: ${(scvRss / 1024).toFixed(1)} MiB (${(guardRss / scvRss).toFixed(3)}x)`);

  // Costs inside the SCV process. The first run spawns the guard; later runs write one line.
  const identity = { pid: process.pid, startTime: "1" };
  let t = performance.now();
  deathWatch().started(identity, "00000000000000aa");
  const spawnMs = performance.now() - t;
  const writes: number[] = [];
  for (let i = 0; i < 2000; i++) {
    t = performance.now();
    deathWatch().started({ pid: 1_000_000 + i, startTime: "1" }, "00000000000000ab");
    deathWatch().ended({ pid: 1_000_000 + i, startTime: "1" });
    writes.push(performance.now() - t);
  }
  deathWatch().ended(identity);
  const bare: number[] = [];
  for (let i = 0; i < 20; i++) {
    t = performance.now();
    Bun.spawn(["true"], { stdio: ["ignore", "ignore", "ignore"] });
    bare.push(performance.now() - t);
  }
  console.log(`first run (spawns the guard): ${spawnMs.toFixed(2)} ms; a bare Bun.spawn of true: ${med(bare).toFixed(2)} ms (${(spawnMs / med(bare)).toFixed(2)}x)`);
  console.log(`each later run (a start and an end line): ${(med(writes) * 1000).toFixed(1)} µs median`);
  console.log("start-up and the first model request: unchanged (nothing runs before the first process the runner starts)");
} finally {
  killAll(leftovers);
  await fake.close();
  rmSync(root, { recursive: true, force: true });
}
