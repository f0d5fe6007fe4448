// Whole `scv exec` runs, spawn to exit, of this tree's dist/scv against a build of a baseline commit, in the same
// run, alternating, against the scripted model on loopback (test/fake/model-server.ts): a reply with no tool
// call (also with 2000 stored sessions in SCV_HOME), one `read` of a 60 KB file, one `write` of 5 MB and of
// 20 MB (--yes). Prints each row's medians and
// ratio, and the per-MB cost of a tool payload ((20 MB run - 5 MB run) / 15), in wall time and in the CPU time
// the scv process spent (steadier when other work shares the machine).
// Targets (issue 45): every ratio <= 1.0x; per-MB cost <= the baseline's.
//
// The baseline is built in a git worktree outside the repo tree (default /work/wt/baseline-<commit>; BASELINE_DIR
// to change it), created here when missing: `git worktree add --detach`, `bun install --frozen-lockfile`,
// `bun run build`. Run `bun run build` here first.
//   bun bench/exec-run.ts    (BASELINE=c0ade83 RUNS=6 BIG_RUNS=3; FIFTY=N adds N runs of a 50 MB write over
//   the Chat API; ONLY=5,read picks rows)
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeReply, startFakeModel, text, toolCalls } from "../test/fake/model-server";
import { median } from "./bare";

const BASELINE = process.env.BASELINE ?? "c0ade83";
const RUNS = Number(process.env.RUNS ?? 6);
const BIG_RUNS = Number(process.env.BIG_RUNS ?? 3);
const repo = join(import.meta.dir, "..");
const current = join(repo, "dist", "scv");

function git(args: string[], cwd = repo): string {
  const r = Bun.spawnSync(["git", ...args], { cwd, stdout: "pipe", stderr: "pipe" });
  if (!r.success) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout.toString().trim();
}

/** The baseline's binary, built in its own worktree when it is not there yet. */
function baselineBinary(): { binary: string; commit: string } {
  const commit = git(["rev-parse", "--verify", `${BASELINE}^{commit}`]);
  const dir = process.env.BASELINE_DIR ?? join("/work/wt", `baseline-${BASELINE}`);
  const binary = join(dir, "dist", "scv");
  if (!existsSync(join(dir, ".git"))) git(["worktree", "add", "--detach", dir, commit]);
  const at = git(["rev-parse", "HEAD"], dir);
  if (at !== commit) throw new Error(`${dir} is at ${at}, not ${commit}: remove it (git worktree remove ${dir}) or set BASELINE_DIR`);
  if (!existsSync(binary)) {
    for (const cmd of [["bun", "install", "--frozen-lockfile"], ["bun", "run", "build"]]) {
      const r = Bun.spawnSync(cmd, { cwd: dir, stdout: "pipe", stderr: "pipe" });
      if (!r.success) throw new Error(`${cmd.join(" ")} in ${dir}: ${r.stderr}`);
    }
  }
  return { binary, commit };
}

if (!existsSync(current)) throw new Error(`${current} is missing: run \`bun run build\` first`);
const base = baselineBinary();
/** The reply to the first request of each run: a run's later requests (after its tool call) get a short text. */
let first: FakeReply = text("hi");
let requests = 0;
const fake = await startFakeModel({ respond: () => (requests++ === 0 ? first : text("done")) });
const root = mkdtempSync(join(tmpdir(), "scv-bench-exec-"));

/** A file of `bytes` of plain text lines. */
function textOf(bytes: number): string {
  const line = "the quick brown fox jumps over the lazy dog 0123456789 ABCDEFGHIJKLMNOPQRSTUVWXYZ\n";
  return line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes);
}

interface Row {
  name: string;
  runs: number;
  /** The model's first reply (every later request of the run, compaction's included, gets a short text). */
  first: FakeReply;
  prepare?: (workspace: string) => void;
  /** Did the run do what it should? (a failed run would time nothing useful) */
  check?: (workspace: string) => boolean;
  /** The wire API (a 50 MB call does not fit in one Responses stream line, which carries the whole item). */
  wire?: "chat";
  /** Sessions stored in SCV_HOME before the row runs (a home of its own, kept across the row's runs). */
  sessions?: number;
}

const sixty = textOf(60 * 1024);
const writeRow = (mb: number, runs: number, wire?: "chat"): Row => {
  const content = textOf(mb * 1024 * 1024);
  return {
    name: `write ${mb} MB (--yes)${wire ? ` (${wire})` : ""}`,
    runs,
    ...(wire ? { wire } : {}),
    first: toolCalls([{ name: "write", arguments: { path: "big.txt", content, mode: "create" }, chunk: 64 * 1024 }]),
    check: (ws) => Bun.file(join(ws, "big.txt")).size === content.length,
  };
};
const rows: Row[] = [
  { name: "no tool call", runs: RUNS, first: text("hi there") },
  { name: "no tool, 2000 sessions", runs: RUNS, first: text("hi there"), sessions: 2000 },
  {
    name: "one read of a 60 KB file",
    runs: RUNS,
    prepare: (ws) => writeFileSync(join(ws, "notes.txt"), sixty),
    first: toolCalls([{ name: "read", arguments: { path: "notes.txt" } }]),
  },
  writeRow(5, BIG_RUNS),
  writeRow(20, Math.max(1, BIG_RUNS - 1)),
];
if (process.env.FIFTY) rows.push(writeRow(50, Number(process.env.FIFTY) || 1, "chat"));
/** ONLY=5,read: just the rows whose names contain one of these (the per-MB line needs both writes). */
const only = process.env.ONLY?.split(",");
const chosen = only ? rows.filter((r) => only.some((o) => r.name.includes(o))) : rows;

let n = 0;
/**
 * Each binary has its own SCV_HOME for the whole bench, as a person's home is kept between runs (its caches of
 * the configuration check and the sandbox probe, its stored sessions); each run gets a new workspace.
 */
const homes = new Map<string, string>();
function homeFor(binary: string, wire: string, sessions = 0): string {
  const key = `${binary} ${wire} ${sessions}`;
  let home = homes.get(key);
  if (!home) {
    home = join(root, `home-${homes.size}`);
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, "config.toml"), `[provider]\nactive = "fake"\n[providers.fake]\nbase_url = "${fake.url}"\nwire_api = "${wire}"\nmodel = "fake-model"\nmax_retries = 0\n`);
    if (sessions) storeSessions(join(home, "state", "sessions"), sessions);
    homes.set(key, home);
  }
  return home;
}
/** `count` finished one-turn sessions, in the records both builds read (a header, the turn, its items, its end). */
function storeSessions(dir: string, count: number): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const at = Date.now() - count * 60_000;
  for (let i = 0; i < count; i++) {
    const id = `s-${(0x10000000 + i).toString(16)}`;
    const t = at + i * 60_000;
    const records = [
      { type: "session", at: t, v: 1, id, workspace: "/nonexistent/ws", provider: "fake", model: "fake-model", tools: true },
      { type: "turn", at: t, turn: "t1", prompt: `question ${i}`, origin: { kind: "user" } },
      { type: "item", at: t, turn: "t1", item: { role: "user", content: `question ${i}` } },
      { type: "item", at: t + 1, turn: "t1", item: { role: "assistant", content: `answer ${i}` } },
      { type: "turn_ended", at: t + 1, turn: "t1", status: "completed", reply: `answer ${i}` },
    ];
    writeFileSync(join(dir, `${id}.jsonl`), `${records.map((r) => JSON.stringify(r)).join("\n")}\n`, { mode: 0o600 });
  }
}

/** One run: its wall time, and the CPU time (user + system) the process spent, which load on the machine disturbs less. */
async function runOnce(binary: string, row: Row): Promise<{ wall: number; cpu: number }> {
  const dir = join(root, String(n++));
  const home = homeFor(binary, row.wire ?? "responses", row.sessions);
  const ws = join(dir, "ws");
  mkdirSync(ws, { recursive: true });
  row.prepare?.(ws);
  first = row.first;
  requests = 0;
  fake.requests.length = 0; // each holds a whole request body
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: join(root, "user-home"), SCV_HOME: home };
  const t0 = performance.now();
  const p = Bun.spawn([binary, "exec", "--yes", "say hi"], { cwd: ws, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  const wall = performance.now() - t0;
  if (code !== 0 || (row.check && !row.check(ws))) throw new Error(`${binary} (${row.name}) exited ${code}: ${out}\n${err}`);
  rmSync(dir, { recursive: true, force: true });
  const usage = p.resourceUsage();
  const cpu = usage ? (Number(usage.cpuTime.user) + Number(usage.cpuTime.system)) / 1000 : Number.NaN;
  return { wall, cpu };
}

type Sample = { wall: number; cpu: number };
const medianSample = (xs: Sample[]): Sample => ({ wall: median(xs.map((x) => x.wall)), cpu: median(xs.map((x) => x.cpu)) });
const fmt = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);
try {
  console.log(`baseline ${base.commit.slice(0, 7)} (${base.binary}) vs this tree ${git(["rev-parse", "--short", "HEAD"])} (${current})`);
  const medians = new Map<string, { base: Sample; now: Sample }>();
  for (const row of chosen) {
    await runOnce(current, row); // warm the page cache for both binaries
    await runOnce(base.binary, row);
    const b: Sample[] = [];
    const c: Sample[] = [];
    for (let i = 0; i < row.runs; i++) {
      // Alternate, so drift on a noisy machine hits both alike.
      b.push(await runOnce(base.binary, row));
      c.push(await runOnce(current, row));
    }
    const m = { base: medianSample(b), now: medianSample(c) };
    medians.set(row.name, m);
    const range = (xs: Sample[]) => `${fmt(Math.min(...xs.map((x) => x.wall)))}-${fmt(Math.max(...xs.map((x) => x.wall)))}`;
    console.log(
      `${row.name.padEnd(26)} wall ${BASELINE} ${fmt(m.base.wall).padStart(8)} (${range(b)})  now ${fmt(m.now.wall).padStart(8)} (${range(c)})  ratio ${(m.now.wall / m.base.wall).toFixed(2)}x` +
        ` | cpu ${fmt(m.base.cpu)} -> ${fmt(m.now.cpu)} ratio ${(m.now.cpu / m.base.cpu).toFixed(2)}x (target <= 1.0x)`,
    );
  }
  const five = medians.get("write 5 MB (--yes)");
  const twenty = medians.get("write 20 MB (--yes)");
  for (const k of five && twenty ? (["wall", "cpu"] as const) : []) {
    const perMb = (which: "base" | "now") => (twenty![which][k] - five![which][k]) / 15;
    console.log(`per-MB cost of a write payload (${k}): ${BASELINE} ${perMb("base").toFixed(0)} ms/MB, now ${perMb("now").toFixed(0)} ms/MB, ratio ${(perMb("now") / perMb("base")).toFixed(2)}x (target <= 1.0x)`);
  }
} finally {
  await fake.close();
  rmSync(root, { recursive: true, force: true });
}
