// The checkpoint store's layout under $SCV_HOME/state/checkpoints (0700; files 0600): objects/ (content
// addressed), sessions/<id>.jsonl (each session's log), cache/<workspace digest>.json (what the last walk of a
// workspace saw, so a new session reads only files that changed since) and `epoch` (bumped when objects are
// removed: a cache from before names objects that may be gone, so it is not trusted).
import * as fs from "node:fs";
import { ensurePrivateDir, tryUnlink, writePrivateFileAtomic } from "../fs/private-file";
import { appendLog, type LogEntry, readLog } from "./log";
import { ObjectStore } from "./objects";
import type { Seen } from "./scan";
import { collectObjects, type FileState } from "./tree";

/** Objects younger than this are never swept: a recording in another process may be about to log them. */
const YOUNG_MS = 10 * 60_000;

const SESSION_ID = /^s-[a-z0-9]{1,64}$/;

/** What a walk of the workspace knew about one file: how it looked and what it held. */
export type KnownFile = Seen & FileState;

export class CheckpointStore {
  readonly dir: string;
  readonly objects: ObjectStore;

  /** `youngMs`: how old an unreferenced object must be before a sweep removes it (a test seam; default 10 minutes). */
  constructor(home: string, private readonly youngMs = YOUNG_MS) {
    this.dir = `${home}/state/checkpoints`;
    this.objects = new ObjectStore(`${this.dir}/objects`);
  }

  ensure(): void {
    ensurePrivateDir(this.dir);
    ensurePrivateDir(this.objects.dir);
    ensurePrivateDir(`${this.dir}/sessions`);
    ensurePrivateDir(`${this.dir}/cache`);
  }

  logFile(sessionId: string): string {
    if (!SESSION_ID.test(sessionId)) throw new Error(`"${sessionId}" is not a session ID`);
    return `${this.dir}/sessions/${sessionId}.jsonl`;
  }

  log(sessionId: string): LogEntry[] {
    return readLog(this.logFile(sessionId));
  }

  append(sessionId: string, entry: LogEntry): void {
    appendLog(this.logFile(sessionId), entry);
  }

  private epoch(): number {
    try {
      return Number(fs.readFileSync(`${this.dir}/epoch`, "utf8")) || 0;
    } catch {
      return 0;
    }
  }

  private cacheFile(workspace: string): string {
    return `${this.dir}/cache/${ObjectStore.hash(workspace).slice(0, 24)}.json`;
  }

  /** What the last walk of `workspace` saw, if no objects were removed since. */
  /**
   * Remembers which kinds of item a workspace's checkpoints leave out; true when any is new to it (the notice is
   * then said). The counts in a kind are left out of it, so `3 paths excluded` and `4 paths excluded` are one kind.
   */
  noteSkipped(workspace: string, kinds: readonly string[]): boolean {
    const file = `${this.dir}/cache/${ObjectStore.hash(workspace).slice(0, 24)}.skipped.json`;
    let said: string[] = [];
    try {
      said = JSON.parse(fs.readFileSync(file, "utf8")) as string[];
    } catch {
      // never said here
    }
    const fresh = kinds.filter((k) => !said.includes(k));
    if (!fresh.length) return false;
    try {
      writePrivateFileAtomic(file, JSON.stringify([...said, ...fresh]));
    } catch {
      // not remembered: said again next time, the lesser harm
    }
    return true;
  }

  readCache(workspace: string): { files: Map<string, KnownFile>; lookedAt: number } | undefined {
    try {
      const c = JSON.parse(fs.readFileSync(this.cacheFile(workspace), "utf8")) as { epoch: number; workspace: string; lookedAt: number; files: [string, number, number, number, number, number, string][] };
      if (c.epoch !== this.epoch() || c.workspace !== workspace) return undefined;
      const files = new Map<string, KnownFile>();
      for (const [rel, size, mtimeMs, ctimeMs, ino, mode, hash] of c.files) files.set(rel, { size, mtimeMs, ctimeMs, ino, mode, hash });
      return { files, lookedAt: c.lookedAt };
    } catch {
      return undefined;
    }
  }

  writeCache(workspace: string, files: Map<string, KnownFile>, lookedAt: number): void {
    const rows: unknown[] = [];
    for (const [rel, f] of files) rows.push([rel, f.size, f.mtimeMs, f.ctimeMs, f.ino, f.mode, f.hash]);
    writePrivateFileAtomic(this.cacheFile(workspace), JSON.stringify({ epoch: this.epoch(), workspace, lookedAt, files: rows }), { durable: false });
  }

  /** The size when last measured, and the object bytes this process wrote since. */
  private measured: number | undefined;

  /** The store's size as this process knows it: measured once, then grown by what it stores. */
  private approxSize(): number {
    this.measured ??= this.size() - this.objects.written;
    return this.measured + this.objects.written;
  }

  /** The store's size in bytes (objects and logs), measured. */
  size(): number {
    let total = 0;
    const add = (dir: string) => {
      let entries: fs.Dirent[];
      try {
        entries = fs.readdirSync(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries) {
        const p = `${dir}/${e.name}`;
        if (e.isDirectory()) add(p);
        else
          try {
            total += fs.lstatSync(p).size;
          } catch {
            // removed meanwhile
          }
      }
    };
    add(this.objects.dir);
    add(`${this.dir}/sessions`);
    return total;
  }

  /** Sessions with checkpoints, oldest activity first. */
  sessions(): { id: string; mtimeMs: number }[] {
    let names: string[];
    try {
      names = fs.readdirSync(`${this.dir}/sessions`);
    } catch {
      return [];
    }
    const out: { id: string; mtimeMs: number }[] = [];
    for (const n of names) {
      const id = n.endsWith(".jsonl") ? n.slice(0, -6) : "";
      if (!SESSION_ID.test(id)) continue;
      try {
        out.push({ id, mtimeMs: fs.statSync(`${this.dir}/sessions/${n}`).mtimeMs });
      } catch {
        // removed meanwhile
      }
    }
    return out.sort((a, b) => a.mtimeMs - b.mtimeMs);
  }

  /** Removes a session's checkpoints (its log, then the objects no other session refers to). */
  removeSession(sessionId: string): void {
    if (tryUnlink(this.logFile(sessionId))) this.sweep();
  }

  /**
   * Keeps the store under `maxBytes`: the oldest sessions' checkpoints go first, never those of `keep` (the
   * sessions open now). Returns the sessions pruned.
   */
  enforceCap(maxBytes: number, keep: ReadonlySet<string> = new Set(), sessionExists?: (id: string) => boolean): string[] {
    const pruned: string[] = [];
    // A session pruned or removed from the session store takes its checkpoints with it.
    if (sessionExists) for (const s of this.sessions()) if (!keep.has(s.id) && !sessionExists(s.id) && tryUnlink(this.logFile(s.id))) pruned.push(s.id);
    if (pruned.length) this.sweep();
    if (this.approxSize() <= maxBytes) return pruned;
    // Over the cap by this process's count: measure, counting unreferenced objects a sweep will take as gone.
    let leaving = this.sweep();
    if (this.size() - leaving <= maxBytes) return pruned;
    for (const s of this.sessions()) {
      if (keep.has(s.id)) continue;
      tryUnlink(this.logFile(s.id));
      pruned.push(s.id);
      // Unreferenced objects too young to remove now still count as gone: a later sweep takes them.
      leaving = this.sweep();
      if (this.size() - leaving <= maxBytes) break;
    }
    return pruned;
  }

  /**
   * Removes every object no session's log refers to (mark and sweep); caches from before are no longer trusted.
   * Returns the bytes of unreferenced objects left because they are young (another process may log them yet).
   */
  sweep(): number {
    let young = 0;
    const live = new Set<string>();
    for (const s of this.sessions()) {
      for (const e of this.log(s.id)) {
        if (e.kind === "point" || e.kind === "restore") collectObjects(this.objects, e.root, live);
        if (e.kind === "restore") collectObjects(this.objects, e.from, live);
      }
    }
    writePrivateFileAtomic(`${this.dir}/epoch`, String(this.epoch() + 1), { durable: false });
    let subs: string[];
    try {
      subs = fs.readdirSync(this.objects.dir);
    } catch {
      return 0;
    }
    for (const sub of subs) {
      if (!/^[0-9a-f]{2}$/.test(sub)) continue;
      const dir = `${this.objects.dir}/${sub}`;
      for (const name of fs.readdirSync(dir)) {
        if (live.has(sub + name)) continue;
        // Another process may have just stored it for a point it has not logged yet: young objects stay.
        try {
          const st = fs.lstatSync(`${dir}/${name}`);
          if (Date.now() - st.mtimeMs < this.youngMs) {
            young += st.size;
            continue;
          }
        } catch {
          continue;
        }
        tryUnlink(`${dir}/${name}`);
      }
    }
    this.objects.forget();
    this.measured = undefined;
    return young;
  }
}
