// The checkpoint store on its own: recording (stat-based, only changed files read), restoring with a plan,
// files changed outside SCV kept, damaged objects reported with nothing half restored, skipped folders, the cap.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CheckpointStore } from "../../src/checkpoints/store";
import { CheckpointRecorder } from "../../src/checkpoints/recorder";
import { applyRewind, previewRewind, rewindPoints } from "../../src/checkpoints/rewind";
import { RestoreUnavailableError } from "../../src/checkpoints/restore";

let root: string;
let home: string;
let ws: string;
beforeEach(() => {
  root = fs.mkdtempSync(join(tmpdir(), "scv-ckpt-"));
  home = join(root, "home");
  ws = join(root, "ws");
  fs.mkdirSync(home);
  fs.mkdirSync(ws);
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const SID = "s-test1";
function setup(store = new CheckpointStore(home, 0), sessionId = SID, maxBytes = 2 ** 31) {
  const rec = new CheckpointRecorder({ store, sessionId, workspace: ws, maxFileBytes: 1024 * 1024, maxBytes, openSessions: () => new Set([sessionId]) });
  return { store, rec, rw: { store, sessionId, workspace: ws, maxFileBytes: 1024 * 1024 } };
}
const write = (rel: string, text: string) => {
  fs.mkdirSync(join(ws, rel, ".."), { recursive: true });
  fs.writeFileSync(join(ws, rel), text);
};
const read = (rel: string) => fs.readFileSync(join(ws, rel), "utf8");
/** A turn: the before record, the change, the after record. */
function turn(rec: CheckpointRecorder, id: string, change: () => void) {
  rec.beforeChange(id);
  change();
  rec.turnEnded(id);
}

describe("checkpoints", () => {
  test("rewinding to a turn restores, recreates and deletes; store is 0700/0600 and outside the workspace", () => {
    write("a.txt", "one\n");
    write("src/b.txt", "bee\n");
    const { store, rec, rw } = setup();
    turn(rec, "t1", () => write("a.txt", "two\n"));
    turn(rec, "t2", () => {
      write("a.txt", "three\n");
      fs.rmSync(join(ws, "src/b.txt"));
      write("new/c.txt", "made\n");
    });
    const preview = previewRewind(rw, { turn: "t1" });
    expect(preview.plan.changes.map((c) => `${c.action} ${c.path}`)).toEqual(["restore a.txt", "delete new/c.txt", "create src/b.txt"]);
    expect(preview.plan.changes[0]!.diff).toContain("-three");
    expect(preview.plan.changes[0]!.diff).toContain("+two");
    const done = applyRewind(rw, preview, []);
    expect(done.kept).toEqual([]);
    expect(read("a.txt")).toBe("two\n");
    expect(read("src/b.txt")).toBe("bee\n");
    expect(fs.existsSync(join(ws, "new"))).toBe(false);
    expect(fs.statSync(store.dir).mode & 0o777).toBe(0o700);
    const obj = fs.readdirSync(store.objects.dir).find((d) => d.length === 2)!;
    const file = fs.readdirSync(join(store.objects.dir, obj))[0]!;
    expect(fs.statSync(join(store.objects.dir, obj, file)).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(ws).sort()).toEqual(["a.txt", "src"]);
  });

  test("a large folder (its listing stored in parts) restores whole", () => {
    for (let i = 0; i < 150; i++) write(`big/f${i}.txt`, `file ${i}\n`);
    const { rec, rw } = setup();
    turn(rec, "t1", () => {
      write("big/f7.txt", "changed\n");
      fs.rmSync(join(ws, "big/f99.txt"));
      write("big/new.txt", "new\n");
    });
    const p = previewRewind(rw, { undo: true });
    expect(p.plan.changes.map((c) => `${c.action} ${c.path}`)).toEqual(["restore big/f7.txt", "create big/f99.txt", "delete big/new.txt"]);
    applyRewind(rw, p, []);
    expect(fs.readdirSync(join(ws, "big")).length).toBe(150);
    expect(read("big/f7.txt")).toBe("file 7\n");
    expect(read("big/f99.txt")).toBe("file 99\n");
  });

  test(".git is never recorded or touched by a restore", () => {
    write("a.txt", "one\n");
    write(".git/HEAD", "ref: refs/heads/main\n");
    const { rec, rw } = setup();
    turn(rec, "t1", () => {
      write("a.txt", "two\n");
      write(".git/HEAD", "ref: refs/heads/other\n"); // a commit or checkout during the turn
      write(".git/objects/ab/cd", "object\n");
    });
    const p = previewRewind(rw, { undo: true });
    expect(p.plan.changes.map((c) => c.path)).toEqual(["a.txt"]);
    applyRewind(rw, p, []);
    expect(read("a.txt")).toBe("one\n");
    expect(read(".git/HEAD")).toBe("ref: refs/heads/other\n");
    expect(read(".git/objects/ab/cd")).toBe("object\n");
  });

  test("undo and redo the last turn's files", () => {
    write("a.txt", "one\n");
    const { rec, rw } = setup();
    turn(rec, "t1", () => write("a.txt", "two\n"));
    const undo = previewRewind(rw, { undo: true });
    expect(undo.undo).toBe("t1");
    rec.restored(applyRewind(rw, undo, []).after.files, Date.now());
    expect(read("a.txt")).toBe("one\n");
    const redo = previewRewind(rw, { redo: true });
    applyRewind(rw, redo, []);
    expect(read("a.txt")).toBe("two\n");
    expect(() => previewRewind(rw, { redo: true })).toThrow(RestoreUnavailableError);
  });

  test("a file changed outside SCV since its last checkpoint is named and kept unless confirmed", () => {
    write("a.txt", "one\n");
    write("mine.txt", "mine\n");
    const { rec, rw } = setup();
    turn(rec, "t1", () => {
      write("a.txt", "two\n");
      write("mine.txt", "scv\n");
    });
    write("mine.txt", "the person's edit\n");
    const p = previewRewind(rw, { undo: true });
    expect(p.plan.changes.find((c) => c.path === "mine.txt")?.changedOutside).toBe(true);
    expect(p.plan.changes.find((c) => c.path === "a.txt")?.changedOutside).toBeUndefined();
    const done = applyRewind(rw, p, []);
    expect(done.kept).toEqual(["mine.txt"]);
    expect(read("mine.txt")).toBe("the person's edit\n");
    expect(read("a.txt")).toBe("one\n");
  });

  test("a damaged object makes its point unavailable and nothing is half restored; other points still work", () => {
    write("a.txt", "one\n");
    write("b.txt", "bee\n");
    const { store, rec, rw } = setup();
    turn(rec, "t1", () => write("a.txt", "two\n"));
    turn(rec, "t2", () => {
      write("a.txt", "three\n");
      write("b.txt", "bee3\n");
    });
    // Damage the object holding a.txt's first content: only the point before t1 needs it.
    const hash = new Bun.CryptoHasher("sha256").update("one\n").digest("hex");
    fs.writeFileSync(store.objects.pathOf(hash), "garbage");
    const p = previewRewind(rw, { turn: "t0" });
    expect(() => applyRewind(rw, p, [])).toThrow(/nothing was restored: checkpoint object .* damaged/);
    expect(read("b.txt")).toBe("bee3\n"); // untouched although its own object was fine
    expect(read("a.txt")).toBe("three\n");
    expect(fs.readdirSync(ws).sort()).toEqual(["a.txt", "b.txt"]); // no temporary files left
    const ok = applyRewind(rw, previewRewind(rw, { turn: "t1" }), []);
    expect(ok.restored.sort()).toEqual(["a.txt", "b.txt"]);
    expect(read("a.txt")).toBe("two\n");
    expect(read("b.txt")).toBe("bee\n");
  });

  test("a missing listing makes the point unavailable with the reason", () => {
    write("a.txt", "one\n");
    const { store, rec, rw } = setup();
    turn(rec, "t1", () => write("a.txt", "two\n"));
    const before = store.log(SID).find((e) => e.kind === "point")!;
    fs.rmSync(store.objects.pathOf((before as { root: string }).root));
    const points = rewindPoints(rw);
    expect(points[0]).toMatchObject({ turn: "t1", available: false });
    expect(points[0]!.reason).toContain("missing");
  });

  test("a truncated log loses only its torn last point; the others still restore", () => {
    write("a.txt", "one\n");
    const { store, rec, rw } = setup();
    turn(rec, "t1", () => write("a.txt", "two\n"));
    turn(rec, "t2", () => write("a.txt", "three\n"));
    const file = store.logFile(SID);
    const text = fs.readFileSync(file, "utf8");
    fs.writeFileSync(file, text.slice(0, text.length - 30)); // t2's after record cut mid-line
    expect(rewindPoints(rw).map((p) => [p.turn, p.available])).toEqual([["t1", true], ["t2", true]]);
    applyRewind(rw, previewRewind(rw, { turn: "t1" }), ["*"]);
    expect(read("a.txt")).toBe("two\n");
  });

  test("node_modules, ignored and big files are never copied, and named", () => {
    write(".gitignore", "*.log\n");
    write("x.log", "log\n");
    write("big.bin", "x".repeat(2 * 1024 * 1024));
    for (let i = 0; i < 50; i++) write(`node_modules/p${i}/index.js`, `module ${i}\n`);
    write("src/a.ts", "a\n");
    const { store, rec } = setup();
    rec.beforeChange("t1");
    const notices = rec.turnEnded("t1");
    const log = store.log(SID);
    const skipped = (log[0] as { skipped?: string[] }).skipped!.join("\n");
    expect(skipped).toContain("node_modules/");
    expect(skipped).toContain("excluded by .gitignore");
    expect(skipped).toContain("big.bin");
    expect(notices).toEqual([]); // said once, at the first recording
    expect(store.size()).toBeLessThan(64 * 1024);
  });

  test("the cap prunes the oldest sessions first, never an open one", () => {
    write("a.txt", "x".repeat(300 * 1024));
    const store = new CheckpointStore(home, 0);
    for (const [i, sid] of ["s-old", "s-mid", "s-new"].entries()) {
      const { rec } = setup(store, sid);
      turn(rec, "t1", () => write("a.txt", `${i}`.repeat(300 * 1024)));
      fs.utimesSync(store.logFile(sid), new Date(Date.now() - (10 - i) * 60_000), new Date(Date.now() - (10 - i) * 60_000));
    }
    expect(store.sessions().map((s) => s.id)).toEqual(["s-old", "s-mid", "s-new"]);
    const pruned = store.enforceCap(1024 * 1024, new Set(["s-new"]));
    expect(pruned[0]).toBe("s-old");
    expect(store.sessions().map((s) => s.id)).toContain("s-new");
    expect(store.size()).toBeLessThanOrEqual(1024 * 1024);
  });
});
