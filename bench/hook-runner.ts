// SCV's own share of one hook (issue 57): the no-op PreToolUse hook (`/bin/sh -c 'cat >/dev/null'`, its JSON
// input written to it) run through this tree's process runner and through a baseline tree's (BASELINE_ROOT,
// default /work/wt-57b-base), both as a subreaper with run records and a long-lived Bun child beside them (as the
// daemon's death watch and MCP servers are), against the same command spawned bare on Bun's pipes with its output
// read to the end, and spawned bare in its own session (setsid, as the runner must). Alternating in one process; medians of wall and CPU time. The share is runner less bare: what
// SCV adds to the hook's own process, which dominates on a loaded machine (bench/command-costs.ts has the
// whole tool call).
//   bun bench/hook-runner.ts   (N=80, BASELINE_ROOT)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median } from "./bare";

const N = Number(process.env.N ?? 80);
const roots = { base: process.env.BASELINE_ROOT ?? "/work/wt-57b-base", now: join(import.meta.dir, "..") };
const homes: string[] = [];
type Runner = { start(o: Record<string, unknown>): { stdin?: { write(d: string): Promise<void>; end(): Promise<void> }; result: Promise<unknown> } };
const runners: Record<string, Runner> = {};
for (const [k, r] of Object.entries(roots)) {
  const { createProcessRunner } = await import(join(r, "src", "process", "runner.ts"));
  const { requestSubreaper } = await import(join(r, "src", "process", "subreaper.ts"));
  requestSubreaper();
  homes.push(mkdtempSync(join(tmpdir(), "scv-bench-hook-")));
  runners[k] = createProcessRunner({ scvHome: homes.at(-1)! });
}
const beside = Bun.spawn(["sleep", "600"], { stdin: "ignore", stdout: "ignore" });
const input = JSON.stringify({ session_id: "s", cwd: tmpdir(), hook_event_name: "PreToolUse", tool_name: "Read", tool_input: { file_path: join(tmpdir(), "notes.txt") }, tool_use_id: "call_1" });
const argv = ["/bin/sh", "-c", "cat >/dev/null"];
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: tmpdir() };
const opts = { argv, cwd: tmpdir(), env, stdin: "pipe", timeoutMs: 60_000, captureBytes: 64 * 1024 };
const kinds: Record<string, () => Promise<unknown>> = {
  // The baseline's hooks wrote the input after start() returned (it has no `input` option).
  base: () => {
    const p = runners.base!.start(opts);
    void p.stdin?.write(input).then(() => p.stdin?.end()).catch(() => {});
    return p.result;
  },
  now: () => runners.now!.start({ ...opts, input }).result,
  bare: async () => {
    const p = Bun.spawn(argv, { cwd: tmpdir(), env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    p.stdin.write(input);
    await p.stdin.end();
    await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  },
  // The same in its own session and group (setsid), as the runner starts every child so that it can stop all of it.
  "bare-setsid": async () => {
    const p = Bun.spawn(argv, { cwd: tmpdir(), env, stdin: "pipe", stdout: "pipe", stderr: "pipe", detached: true });
    p.stdin.write(input);
    await p.stdin.end();
    await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  },
};
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const wall: Record<string, number[]> = {};
const cpus: Record<string, number[]> = {};
try {
  for (let i = 0; i < 5; i++) for (const f of Object.values(kinds)) await f();
  for (let i = 0; i < N; i++) {
    for (const [k, f] of Object.entries(kinds)) {
      const t = performance.now();
      const c = cpu();
      await f();
      (wall[k] ??= []).push(performance.now() - t);
      (cpus[k] ??= []).push(cpu() - c);
    }
  }
} finally {
  beside.kill();
  await beside.exited;
  for (const h of homes) rmSync(h, { recursive: true, force: true });
}
const load = (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ");
console.log(`${N} hook runs each, alternating; load average ${load}; baseline ${roots.base}`);
for (const k of Object.keys(kinds)) {
  const share = k.startsWith("bare") ? "" : `   SCV's share: wall ${(median(wall[k]!) - median(wall.bare!)).toFixed(2)} ms, CPU ${(median(cpus[k]!) - median(cpus.bare!)).toFixed(2)} ms (target <= 3 ms)`;
  console.log(`  ${k.padEnd(11)} wall ${median(wall[k]!).toFixed(2)} ms, CPU ${median(cpus[k]!).toFixed(2)} ms${share}`);
}
