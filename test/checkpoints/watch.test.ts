// Recording only what changed (src/checkpoints/watch.ts, scan.ts's folder cache) and storing a recording as a
// delta (tree.ts): after every kind of change, what the recorder stored reads back exactly as a full walk of the
// workspace sees it, and a rewind through a chain of deltas restores the files. Real files, a real inotify watch.
import { afterEach, beforeEach, expect, test } from "bun:test";
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lastRecorded } from "../../src/checkpoints/log";
import { CheckpointRecorder, snapshot, stateOf } from "../../src/checkpoints/recorder";
import { applyRewind, previewRewind } from "../../src/checkpoints/rewind";
import { CheckpointStore } from "../../src/checkpoints/store";
import { readTree } from "../../src/checkpoints/tree";
import { FolderWatch } from "../../src/checkpoints/watch";

let root: string;
let ws: string;
let store: CheckpointStore;
let rec: CheckpointRecorder;
const SID = "s-watch1";
beforeEach(() => {
  root = fs.mkdtempSync(join(tmpdir(), "scv-ckpt-watch-"));
  ws = join(root, "ws");
  fs.mkdirSync(ws);
  store = new CheckpointStore(join(root, "home"), 0);
  rec = new CheckpointRecorder({ store, sessionId: SID, workspace: ws, maxFileBytes: 1024 * 1024, maxBytes: 2 ** 31, openSessions: () => new Set([SID]) });
});
afterEach(() => {
  rec.close();
  fs.rmSync(root, { recursive: true, force: true });
});

const write = (rel: string, text: string) => {
  fs.mkdirSync(join(ws, rel, ".."), { recursive: true });
  fs.writeFileSync(join(ws, rel), text);
};
/** What the store holds for the last recording, as path -> content. */
function recorded(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [rel, f] of readTree(store.objects, lastRecorded(store.log(SID))!)) out[rel] = store.objects.get(f.hash).toString("utf8");
  return out;
}
/** The workspace as a full walk sees it. */
function onDisk(): Record<string, string> {
  const out: Record<string, string> = {};
  const scratch = new CheckpointStore(join(root, "scratch"));
  scratch.ensure();
  for (const rel of stateOf(snapshot(scratch, ws, 1024 * 1024).files).keys()) out[rel] = fs.readFileSync(join(ws, rel), "utf8");
  return out;
}
let n = 0;
beforeEach(() => void (n = 0));
function turn(change: () => void, check = true) {
  const id = `t${++n}`;
  rec.beforeChange(id);
  change();
  rec.turnEnded(id);
  if (check) expect(recorded()).toEqual(onDisk());
}

test("inotify is there (CI runs Linux): the watch opens", () => {
  const w = FolderWatch.open();
  expect(w).toBeDefined();
  w!.close();
});

test("every kind of change is recorded although only the folders events name are listed again", () => {
  for (let d = 0; d < 5; d++) for (let i = 0; i < 5; i++) write(`d${d}/f${i}.txt`, `${d}.${i}`);
  write(".gitignore", "*.log\n");
  turn(() => {});
  // A write in place (the folder's own mtime does not change), an append, a mode change.
  turn(() => fs.writeFileSync(join(ws, "d1/f1.txt"), "rewritten in place"));
  turn(() => fs.appendFileSync(join(ws, "d2/f2.txt"), " and more"));
  turn(() => fs.chmodSync(join(ws, "d3/f3.txt"), 0o755));
  // New folders with files, deep; a removed folder; a renamed folder; a file moved between folders.
  turn(() => write("d0/new/deeper/x.txt", "new"));
  turn(() => fs.rmSync(join(ws, "d4"), { recursive: true }));
  turn(() => fs.renameSync(join(ws, "d3"), join(ws, "d3-renamed")));
  turn(() => fs.renameSync(join(ws, "d0/f0.txt"), join(ws, "d1/moved.txt")));
  // The same folder removed and made again with other files under the same name.
  turn(() => {
    fs.rmSync(join(ws, "d2"), { recursive: true });
    write("d2/other.txt", "other");
  });
  // An ignore rule that changes what a whole subtree covers; a file it then leaves out.
  turn(() => {
    write("d1/keep.log", "ignored");
    fs.writeFileSync(join(ws, ".gitignore"), "");
  });
  expect(recorded()["d1/keep.log"]).toBe("ignored");
  // Changes between turns (the person's own edits) are in the next turn's before.
  write("d1/between.txt", "edited between turns");
  turn(() => {});
  expect(recorded()["d1/between.txt"]).toBe("edited between turns");
});

test("a rewind through a chain of deltas puts the files back", () => {
  write("a/one.txt", "1");
  write("b/two.txt", "2");
  turn(() => {});
  for (let i = 0; i < 5; i++) turn(() => write("a/one.txt", `v${i}`));
  turn(() => fs.rmSync(join(ws, "b/two.txt")));
  const preview = previewRewind({ store, sessionId: SID, workspace: ws, maxFileBytes: 1024 * 1024 }, { turn: "t3" });
  applyRewind({ store, sessionId: SID, workspace: ws, maxFileBytes: 1024 * 1024 }, preview, []);
  expect(fs.readFileSync(join(ws, "a/one.txt"), "utf8")).toBe("v1"); // as t3 left it
  expect(fs.readFileSync(join(ws, "b/two.txt"), "utf8")).toBe("2");
});

test("the store grows with the bytes changed, not with the folder listings on their paths", () => {
  for (let d = 0; d < 10; d++) for (let i = 0; i < 100; i++) write(`pkg${d}/m${i}.ts`, `export const v${i} = ${d};\n`.repeat(10));
  turn(() => {}, false);
  const before = store.objects.written;
  let changed = 0;
  for (let t = 0; t < 20; t++) {
    turn(() => {
      for (let k = 0; k < 3; k++) {
        const text = `export const changed = ${t}.${k};\n`.repeat(10);
        changed += text.length;
        write(`pkg${(t * 7 + k * 3) % 10}/m${(t * 13 + k) % 100}.ts`, text);
      }
    }, false);
  }
  expect((store.objects.written - before) / changed).toBeLessThan(1.5);
}, 30_000);
