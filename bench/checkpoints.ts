// What checkpoints cost a turn: a workspace of 10,000 files (100 folders of 100, ~600 bytes each) where each
// turn changes 3 files, recorded as the turn loop does it (before the first change, after the turn). Printed:
//   the cost per turn (both recordings), median           target < 50 ms
//   against a bare stat walk of the same workspace (readdir + lstat of every file, nothing else), measured in
//   the same run: the floor any stat-based recording pays, so the ratio says what checkpoints add on top
//   the first recording of a new workspace (every file read and stored once)
//   the store's size after 100 such turns, against the bytes those turns changed   target: about the changed bytes
// Run: bun bench/checkpoints.ts (BENCH_FILES, BENCH_TURNS to change the size).
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CheckpointRecorder } from "../src/checkpoints/recorder";
import { CheckpointStore } from "../src/checkpoints/store";
import { median } from "./bare";

const FILES = Number(process.env.BENCH_FILES ?? 10_000);
const TURNS = Number(process.env.BENCH_TURNS ?? 100);
const PER_DIR = 100;

const root = fs.mkdtempSync(join(tmpdir(), "scv-bench-ckpt-"));
try {
  const ws = join(root, "ws");
  const home = join(root, "home");
  fs.mkdirSync(home);
  const body = (i: number, v: number) => `export function f${i}(x: number): number {\n  return x * ${v} + ${i};\n}\n`.repeat(6);
  for (let i = 0; i < FILES; i++) {
    const dir = join(ws, `pkg${Math.floor(i / PER_DIR)}`);
    if (i % PER_DIR === 0) fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(join(dir, `m${i}.ts`), body(i, 0));
  }
  const workspaceBytes = FILES * Buffer.byteLength(body(0, 0));

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

  const store = new CheckpointStore(home);
  const rec = new CheckpointRecorder({ store, sessionId: "s-bench", workspace: ws, maxFileBytes: 16 * 1024 * 1024, maxBytes: 2 ** 40, openSessions: () => new Set(["s-bench"]) });
  let t = performance.now();
  rec.beforeChange("t0");
  rec.turnEnded("t0");
  const first = performance.now() - t;
  const afterFirst = store.size();

  const perTurn: number[] = [];
  const walks: number[] = [];
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
      const text = body(i, turn);
      changedBytes += Buffer.byteLength(text);
      fs.writeFileSync(join(ws, `pkg${Math.floor(i / PER_DIR)}`, `m${i}.ts`), text);
    }
    t = performance.now();
    rec.turnEnded(id);
    spent += performance.now() - t;
    perTurn.push(spent);
  }
  const cost = median(perTurn);
  const floor = median(walks);
  const grown = store.size() - afterFirst;
  console.log(`workspace: ${FILES} files, ${(workspaceBytes / 1e6).toFixed(1)} MB; ${TURNS} turns changing 3 files each`);
  console.log(`first recording (every file read and stored once): ${first.toFixed(0)} ms, store ${(afterFirst / 1e6).toFixed(1)} MB`);
  console.log(`per turn (before + after): median ${cost.toFixed(1)} ms (target < 50 ms)  ${cost < 50 ? "OK" : "OVER"}`);
  console.log(`bare stat walk x2 of the same workspace: median ${floor.toFixed(1)} ms; ratio ${(cost / floor).toFixed(2)}x the walk alone`);
  console.log(`store growth over ${TURNS} turns: ${(grown / 1e3).toFixed(0)} kB for ${(changedBytes / 1e3).toFixed(0)} kB of changed files (ratio ${(grown / changedBytes).toFixed(2)}; the workspace is ${(workspaceBytes / 1e6).toFixed(1)} MB)`);
} finally {
  fs.rmSync(root, { recursive: true, force: true });
}
