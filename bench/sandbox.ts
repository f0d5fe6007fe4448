// The sandbox's cost, through the compiled binary in the same run:
// 1. `true` through the bash tool sandboxed (workspace-write, the default) against `[sandbox] mode = "off"`:
//    `scv exec` sessions of each kind alternate, a scripted model on loopback asking for BENCH_CALLS bash calls;
//    the figure is the mean of the middle half of the runner's own duration_ms per call (spawn to exit and cleanup).
//    Target: under 1.3x and under 10 ms added.
// 2. What the sandbox adds to a call (1's difference: SCV starts the command itself, src/sandbox/direct.ts) against
//    what `bwrap --unshare-all … /bin/true` adds over `/bin/true` (target: at most 3 ms more); and the launcher's own
//    start (`scv __sandbox <policy> /bin/true`, used where the direct start is not: start, namespaces, Landlock,
//    execve) against a bare compiled Bun hello world (bench/bare.ts) and /bin/true itself.
// Run: bun run build && bun bench/sandbox.ts (BENCH_CALLS, BENCH_ROUNDS to change the size; BENCH_BASE=<an older
// dist/scv> times that build's launcher beside this one). As root,
// BENCH_UID=47012 runs both parts as that ordinary user (setpriv, no_new_privs): the sandbox then comes inside a
// user namespace; where `bwrap` is installed, part 2 also times `bwrap --unshare-all … /bin/true` beside it.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, removeFakeHomes, requireBinary } from "../test/fake/binary";
import { startFakeModel, text, toolCalls } from "../test/fake/model-server";
import { buildBareHello, median } from "./bare";

const CALLS = Number(process.env.BENCH_CALLS ?? 25);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const scv = requireBinary();
const UID = process.env.BENCH_UID ? Number(process.env.BENCH_UID) : undefined;
const asUser = (argv: string[]) => (UID === undefined ? argv : ["setpriv", `--reuid=${UID}`, `--regid=${UID}`, "--clear-groups", "--no-new-privs", ...argv]);
const LAUNCHER_ENV = { BUN_JSC_useConcurrentJIT: "0", BUN_JSC_useWarmUpMarkedBlocks: "0", MIMALLOC_SCAVENGER: "0" };
const fake = await startFakeModel();

// The login snapshot's folder outside /tmp, as a user's ~/.cache is: the fake home is under /tmp, which the sandbox
// replaces with the command's own, and a snapshot there sends sandboxed calls to a login shell (src/tools/bash.ts).
const cacheRoot = mkdtempSync(join("/var/tmp", "scv-bench-sandbox-cache-"));
if (UID !== undefined) Bun.spawnSync(["chown", "-R", `${UID}:${UID}`, cacheRoot]);

async function session(sandboxed: boolean): Promise<number[]> {
  const { env: homeEnv, workspace, home } = fakeHome(fake.url, `[tools]\nmax_steps = ${CALLS + 5}\n${sandboxed ? "" : '[sandbox]\nmode = "off"\n'}`);
  const env = { ...homeEnv, XDG_CACHE_HOME: cacheRoot };
  if (UID !== undefined) Bun.spawnSync(["chown", "-R", `${UID}:${UID}`, join(home, "..")]);
  for (let i = 0; i < CALLS; i++) fake.queue(toolCalls([{ name: "bash", arguments: { command: "true" } }]));
  fake.queue(text("done"));
  const p = Bun.spawn(asUser([scv, "exec", "--json", "--yes", "go"]), { cwd: workspace, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, code] = await Promise.all([new Response(p.stdout).text(), p.exited]);
  if (code !== 0) throw new Error(`scv exec failed (${code}): ${await new Response(p.stderr).text()}`);
  const done = out.trim().split("\n").map((l) => JSON.parse(l)).filter((e) => e.method === "tool.completed");
  const want = sandboxed ? "workspace-write" : "none";
  if (done.length !== CALLS || done.some((e) => !e.params.ok || e.params.sandbox !== want)) throw new Error(`expected ${CALLS} ok calls (sandbox ${want}), got ${JSON.stringify(done.map((e) => [e.params.ok, e.params.sandbox]))}`);
  return done.map((e) => e.params.duration_ms as number);
}

const off: number[] = [];
const on: number[] = [];
try {
  await session(true); // warm-up: the probe's answer is kept, caches filled
  for (let r = 0; r < ROUNDS; r++) {
    off.push(...(await session(false)));
    on.push(...(await session(true)));
  }
} finally {
  await fake.close();
  removeFakeHomes();
  rmSync(cacheRoot, { recursive: true, force: true });
}
// duration_ms is whole milliseconds, so a median moves in steps of 1 ms: the mean of the middle half (the fastest
// and slowest quarters left out) keeps the resolution the rounding averages out.
const middleMean = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.slice(Math.floor(sorted.length / 4), Math.ceil((sorted.length * 3) / 4));
  return mid.reduce((a, b) => a + b, 0) / mid.length;
};
const mOff = middleMean(off);
const mOn = middleMean(on);
console.log(`${UID === undefined ? "as root" : `as uid ${UID}`}: bash \`true\`, ${CALLS} calls x ${ROUNDS} sessions of each kind, alternating (runner's duration_ms per call, mean of the middle half; medians ${median(off)} and ${median(on)} ms):`);
console.log(`  unsandboxed ${mOff.toFixed(1)} ms, sandboxed ${mOn.toFixed(1)} ms: ratio ${(mOn / mOff).toFixed(2)}x (target < 1.3x ${mOn / mOff < 1.3 ? "met" : "MISSED"}), added ${(mOn - mOff).toFixed(1)} ms (target < 10 ms ${mOn - mOff < 10 ? "met" : "MISSED"})`);

// 2. The launcher's start against a bare compiled binary.
const { dir, bare } = buildBareHello();
const root = mkdtempSync(join("/var/tmp", "scv-bench-sandbox-"));
try {
  const ws = join(root, "ws");
  const tmp = join(root, "tmp");
  mkdirSync(ws);
  mkdirSync(tmp);
  if (UID !== undefined) Bun.spawnSync(["chown", "-R", `${UID}:${UID}`, root]);
  const policy = JSON.stringify({ mode: "workspace-write", cwd: ws, workspace: ws, protect: [], sealed: [], writableRoots: [], hidden: [], network: false, tmpdir: tmp, expect: { namespaces: true, landlock: true, ...(UID !== undefined ? { userns: true } : {}), ...(process.arch === "x64" ? { pidns: true } : {}) } });
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", ...LAUNCHER_ENV };
  const time = (argv: string[]) => {
    const t = performance.now();
    const r = Bun.spawnSync(asUser(argv), { cwd: "/", env, stdout: "ignore", stderr: "pipe" });
    if (!r.success) throw new Error(`${argv[0]} failed: ${r.stderr}`);
    return performance.now() - t;
  };
  const launcher: number[] = [];
  const hello: number[] = [];
  const plain: number[] = [];
  const bwrap: number[] = [];
  const hasBwrap = !!Bun.which("bwrap");
  const base = process.env.BENCH_BASE; // an older build's binary, timed beside this one (its policy ignores pidns)
  const baseLauncher: number[] = [];
  for (let i = 0; i < 40; i++) {
    launcher.push(time([scv, "__sandbox", policy, "/bin/true"]));
    if (base) baseLauncher.push(time([base, "__sandbox", policy, "/bin/true"]));
    hello.push(time([bare]));
    plain.push(time(["/bin/true"]));
    if (hasBwrap) bwrap.push(time(["bwrap", "--unshare-all", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "/bin/true"]));
  }
  const [l, h, t] = [median(launcher), median(hello), median(plain)];
  console.log(`launcher start (scv __sandbox <policy> /bin/true, 40 runs, interleaved): ${l.toFixed(1)} ms; bare compiled Bun hello ${h.toFixed(1)} ms (ratio ${(l / h).toFixed(2)}x); /bin/true alone ${t.toFixed(1)} ms`);
  if (base) console.log(`the launcher of ${base}: ${median(baseLauncher).toFixed(1)} ms (this build ${(l / median(baseLauncher)).toFixed(2)}x it)`);
  if (hasBwrap) {
    const b = median(bwrap);
    console.log(`bwrap --unshare-all … /bin/true: ${b.toFixed(1)} ms, adding ${(b - t).toFixed(1)} ms over /bin/true; the sandbox adds ${(mOn - mOff).toFixed(1)} ms to a bash call (difference ${(mOn - mOff - (b - t)).toFixed(1)} ms, target at most 3 ms ${mOn - mOff - (b - t) <= 3 ? "met" : "MISSED"}); the launcher adds ${(l - t).toFixed(1)} ms`);
  }
} finally {
  rmSync(root, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
}
