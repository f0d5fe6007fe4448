// What checkpoints cost a turn: a workspace of BENCH_FILES files (100 per folder, ~360 bytes each) where each
// turn changes 3 files, recorded as the turn loop does it (before the first change, after the turn), by this
// tree's recorder and by a baseline tree's (BASELINE_ROOT, default /work/wt-57-base; skipped when missing), in
// the same run. Printed per build:
//   the cost per turn (both recordings), median            target (issue 57): <= 25 ms at 10,000 files
//   against `git add -A && git write-tree` of the same turns (a scratch repository and index outside the
//   workspace, both processes timed), median                target: <= 0.5x
//   against a bare stat walk x2 (readdir + lstat of every file), the floor of any stat-based recording
//   the first recording of a new workspace (every file read and stored once)
//   the store's growth over the turns against the bytes they changed      target: <= 1.5x
// Run: bun bench/checkpoints.ts (BENCH_FILES, BENCH_TURNS to change the size).
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median } from "./bare";

const FILES = Number(process.env.BENCH_FILES ?? 10_000);
const TURNS = Number(process.env.BENCH_TURNS ?? 100);
const PER_DIR = 100;
const roots: Record<string, string> = { now: join(import.meta.dir, "..") };
const baseRoot = process.env.BASELINE_ROOT ?? "/work/wt-57-base";
if (fs.existsSync(join(baseRoot, "src", "checkpoints", "recorder.ts"))) roots.base = baseRoot;

const root = fs.mkdtempSync(join(tmpdir(), "scv-bench-ckpt-"));
const load = () => fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
try {
  const ws = join(root, "ws");
  const body = (i: number, v: string) => `export function f${i}(x: number): number {\n  return x * ${JSON.stringify(v)}.length + ${i};\n}\n`.repeat(6);
  for (let i = 0; i < FILES; i++) {
    const dir = join(ws, `pkg${Math.floor(i / PER_DIR)}`);
    if (i % PER_DIR === 0) fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(join(dir, `m${i}.ts`), body(i, "0"));
  }
  const workspaceBytes = FILES * Buffer.byteLength(body(0, "0"));

  const bareWalk = () => {
    let n = 0;
    const walk = (d: string) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = `${d}/${e.name}`;
        if (e.isDirectory()) walk(p);
        else if (fs.lstatSync(p).size >= 0) n++;
      }
    };
    walk(ws);
    return n;
  };
  const gitEnv = { ...process.env, GIT_DIR: join(root, "git"), GIT_WORK_TREE: ws, GIT_INDEX_FILE: join(root, "git-index") };
  const git = (...args: string[]) => {
    const r = Bun.spawnSync(["git", ...args], { cwd: ws, env: gitEnv, stdout: "pipe", stderr: "pipe" });
    if (!r.success) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  };
  git("init", "-q");
  git("add", "-A");
  git("write-tree");

  const lines: string[] = [];
  for (const [name, dir] of Object.entries(roots)) {
    const { CheckpointRecorder } = await import(join(dir, "src", "checkpoints", "recorder.ts"));
    const { CheckpointStore } = await import(join(dir, "src", "checkpoints", "store.ts"));
    const store = new CheckpointStore(join(root, `home-${name}`));
    const rec = new CheckpointRecorder({ store, sessionId: "s-bench", workspace: ws, maxFileBytes: 16 * 1024 * 1024, maxBytes: 2 ** 40, openSessions: () => new Set(["s-bench"]) });
    let t = performance.now();
    rec.beforeChange("t0");
    rec.turnEnded("t0");
    const first = performance.now() - t;
    const afterFirst = store.size();
    const perTurn: number[] = [];
    const walks: number[] = [];
    const gits: number[] = [];
    let changedBytes = 0;
    for (let turn = 1; turn <= TURNS; turn++) {
      t = performance.now();
      bareWalk();
      walks.push(2 * (performance.now() - t)); // a turn records twice
      const id = `t${turn}`;
      t = performance.now();
      rec.beforeChange(id);
      let spent = performance.now() - t;
      for (let k = 0; k < 3; k++) {
        const i = (turn * 37 + k * 3331) % FILES;
        const text = body(i, `${name}${turn}`);
        changedBytes += Buffer.byteLength(text);
        fs.writeFileSync(join(ws, `pkg${Math.floor(i / PER_DIR)}`, `m${i}.ts`), text);
      }
      t = performance.now();
      rec.turnEnded(id);
      spent += performance.now() - t;
      perTurn.push(spent);
      t = performance.now();
      git("add", "-A");
      git("write-tree");
      gits.push(performance.now() - t);
    }
    rec.close?.();
    const cost = median(perTurn);
    const grown = store.size() - afterFirst;
    lines.push(
      `${name.padEnd(4)} per turn (before + after): median ${cost.toFixed(1)} ms (target <= 25 ms at 10,000 files)   git add -A && git write-tree ${median(gits).toFixed(1)} ms: ${(cost / median(gits)).toFixed(2)}x (target <= 0.5x)   bare stat walk x2 ${median(walks).toFixed(1)} ms: ${(cost / median(walks)).toFixed(2)}x`,
      `     first recording ${first.toFixed(0)} ms, store ${(afterFirst / 1e6).toFixed(1)} MB; growth over ${TURNS} turns ${(grown / 1e3).toFixed(0)} kB for ${(changedBytes / 1e3).toFixed(0)} kB changed: ${(grown / changedBytes).toFixed(2)}x (target <= 1.5x)`,
    );
  }
  console.log(`workspace: ${FILES} files, ${(workspaceBytes / 1e6).toFixed(1)} MB; ${TURNS} turns changing 3 files each; load average ${load()}`);
  for (const l of lines) console.log(l);
} finally {
  fs.rmSync(root, { recursive: true, force: true });
}
