// Recording a live session's workspace: before the turn's first change and after the turn. Each recording is
// one stat walk compared with what the last one saw (size, mtime, ctime, inode, mode); only files that differ
// are read and hashed, and only content not stored yet is written. A recording that fails (a full disk) never
// fails the turn: it is skipped, logged, and said once as a notice.
import { FolderTree } from "../fs/no-follow";
import type { LogEntry } from "./log";
import { changedSince, type FolderCache, patchFolders, type Scan, scanFolders, scanWorkspace, type Seen } from "./scan";
import type { CheckpointStore, KnownFile } from "./store";
import { TreeWriter, type WorkspaceState } from "./tree";
import { FolderWatch } from "./watch";

const CACHE_EVERY = 20;
/** Recordings between full walks even when the watch says little changed (for what inotify cannot see). */
const FULL_WALK_EVERY = 50;

export interface RecorderOptions {
  store: CheckpointStore;
  sessionId: string;
  workspace: string;
  maxFileBytes: number;
  maxBytes: number;
  /** Sessions open in this process, whose checkpoints the cap never prunes. */
  openSessions(): ReadonlySet<string>;
  /** Whether the session store still holds a session: checkpoints of removed or pruned sessions are dropped. */
  sessionExists?(id: string): boolean;
}

/** What one walk found: every covered file, its content hash, and how it looked. */
export interface Snapshot {
  files: Map<string, KnownFile>;
  lookedAt: number;
  skipped: string[];
  /** Paths read again, added or gone since `previous` (every path without one). */
  changed: Set<string>;
}

/**
 * Walks the workspace, reading and storing only files that changed since `previous`. Throws when the store
 * cannot be written (the caller decides what that means for the turn).
 */
export function snapshot(store: CheckpointStore, workspace: string, maxFileBytes: number, previous?: { files: Map<string, KnownFile>; lookedAt: number }, walk: () => Scan = () => scanWorkspace(workspace, maxFileBytes)): Snapshot {
  const lookedAt = Date.now();
  const scan = walk();
  if (scan.patched && previous && scan.files === previous.files) return patchedSnapshot(store, workspace, previous, scan.patched, scan.skipped, lookedAt);
  const files = new Map<string, KnownFile>();
  const changed = new Set<string>();
  const reader: Reader = { workspace };
  try {
    for (const [rel, seen] of scan.files) {
      const before = previous?.files.get(rel);
      // The same record: its folder was not listed again (no event there since), so the file is as it was.
      if (before === seen) {
        files.set(rel, before);
        continue;
      }
      if (before && !changedSince(seen, before, previous!.lookedAt)) {
        (seen as KnownFile).hash = before.hash; // the walk's own record, completed: no copy per file
        files.set(rel, seen as KnownFile);
        continue;
      }
      changed.add(rel);
      const stored = readAndStore(store, reader, rel, seen);
      if (stored) files.set(rel, stored);
    }
  } finally {
    reader.tree?.close();
  }
  if (previous) for (const rel of previous.files.keys()) if (!files.has(rel)) changed.add(rel);
  return { files, lookedAt, skipped: scan.skipped, changed };
}

/** Where changed files are read from: the workspace, through a folder tree opened at the first read. */
interface Reader {
  workspace: string;
  tree?: FolderTree;
}

/**
 * Reads a changed file and stores its content; undefined when it was removed, is unreadable or became a link
 * since the walk saw it. Read through folder descriptors without following a link: a file or folder swapped for a
 * link after the walk (to a key the sandbox hides) is left out, never copied into the store for a restore to bring
 * into the workspace.
 */
function readAndStore(store: CheckpointStore, reader: Reader, rel: string, seen: Seen): KnownFile | undefined {
  let data: Buffer;
  try {
    data = (reader.tree ??= new FolderTree(reader.workspace)).read(rel);
  } catch {
    return undefined;
  }
  return { ...seen, size: data.length, hash: store.objects.put(data) };
}

/**
 * The previous recording's map, patched in place by the walk (patchFolders): only the paths it names are compared,
 * and read when they differ. A path that cannot be read is left out, as in a full comparison.
 */
function patchedSnapshot(store: CheckpointStore, workspace: string, previous: { files: Map<string, KnownFile>; lookedAt: number }, patched: Map<string, Seen | undefined>, skipped: string[], lookedAt: number): Snapshot {
  const files = previous.files;
  const changed = new Set<string>();
  const reader: Reader = { workspace };
  try {
    for (const [rel, before] of patched) {
      const seen = files.get(rel);
      if (!seen) {
        if (before) changed.add(rel);
        continue;
      }
      if (before === seen) continue;
      if (before && !changedSince(seen, before, previous.lookedAt)) {
        seen.hash = (before as KnownFile).hash;
        continue;
      }
      changed.add(rel);
      const stored = readAndStore(store, reader, rel, seen);
      if (stored) files.set(rel, stored);
      else files.delete(rel);
    }
  } finally {
    reader.tree?.close();
  }
  return { files, lookedAt, skipped, changed };
}

export function stateOf(files: Map<string, KnownFile>): WorkspaceState {
  const state: WorkspaceState = new Map();
  for (const [rel, f] of files) state.set(rel, { hash: f.hash, size: f.size, mode: f.mode });
  return state;
}

export class CheckpointRecorder {
  private last: { files: Map<string, KnownFile>; lookedAt: number } | undefined;
  private recordedTurn: string | undefined;
  private skippedSaid = false;
  private failedSaid = false;
  private readonly trees = new TreeWriter();
  /** Turns ended since the workspace's walk cache was last written (it is written at the first and then every CACHE_EVERY). */
  private sinceCache = -1;
  /** The inotify watch on the workspace's folders (null: not available here), and the folders as last listed. */
  private watch: FolderWatch | null | undefined;
  private folders: FolderCache | undefined;
  private sinceFullWalk = 0;
  /**
   * Whether `last.files` is this recorder's own last recording over `folders`, so the next walk may patch it in
   * place; false at first, after a restore (its map came from elsewhere) and after a failed recording (the map
   * may be half patched: it is dropped).
   */
  private patchable = false;

  constructor(private readonly opts: RecorderOptions) {}

  /** Releases the watch (the session closed). */
  close(): void {
    this.watch?.close();
    this.watch = null;
    this.folders = undefined;
    this.patchable = false;
  }

  /** One walk: only the folders the watch names (all of them the first time, after an overflow, now and then). */
  private walk(): Scan {
    const { workspace, maxFileBytes } = this.opts;
    if (this.watch === undefined) this.watch = FolderWatch.open() ?? null;
    const watch = this.watch;
    if (!watch) return scanWorkspace(workspace, maxFileBytes);
    let dirty = watch.drain();
    if (!this.folders || this.sinceFullWalk >= FULL_WALK_EVERY) dirty = "all";
    this.sinceFullWalk = dirty === "all" ? 0 : this.sinceFullWalk + 1;
    const onFolder = (abs: string, rel: string) => watch.add(abs, rel);
    if (dirty !== "all" && this.patchable && this.last && this.folders) {
      // O(what changed): the last recording's map and folder cache patched where the events say.
      return patchFolders(workspace, maxFileBytes, { cache: this.folders, files: this.last.files as Map<string, Seen>, dirty, onFolder }).scan;
    }
    const r = scanFolders(workspace, maxFileBytes, { cache: this.folders, dirty, onFolder });
    this.folders = r.cache;
    return r.scan;
  }

  /**
   * Before SCV first changes the workspace in `turn` (a write, an edit, a command, an MCP or agent call): records
   * the workspace as it is, once per turn. Returns notices for the person (what is left out, a skipped recording).
   */
  beforeChange(turn: string): string[] {
    if (this.recordedTurn === turn) return [];
    this.recordedTurn = turn;
    return this.record(turn, "before");
  }

  /** The turn ended: records the workspace again if the turn recorded a `before`. */
  turnEnded(turn: string): string[] {
    if (this.recordedTurn !== turn) return [];
    this.recordedTurn = undefined;
    const notices = this.record(turn, "after");
    try {
      // The cache only spares a later session re-reading the workspace: written once, then now and then.
      if (this.last && (this.sinceCache < 0 || this.sinceCache >= CACHE_EVERY)) {
        this.opts.store.writeCache(this.opts.workspace, this.last.files, this.last.lookedAt);
        this.sinceCache = 0;
      } else this.sinceCache++;
      this.opts.store.enforceCap(this.opts.maxBytes, this.opts.openSessions(), this.opts.sessionExists);
    } catch {
      // the cache only saves time, and the cap is checked again after the next turn
    }
    return notices;
  }

  /** A restore changed the workspace: what it left becomes the state later changes are compared with. */
  restored(files: Map<string, KnownFile>, lookedAt: number): void {
    this.last = { files, lookedAt };
    this.patchable = false;
    this.trees.forget(); // its folder hashes describe the state before the restore
  }

  private record(turn: string, phase: "before" | "after"): string[] {
    const { store, sessionId, workspace } = this.opts;
    const notices: string[] = [];
    try {
      store.ensure();
      this.last ??= store.readCache(workspace);
      const snap = snapshot(store, workspace, this.opts.maxFileBytes, this.last, () => this.walk());
      const root = this.trees.write(store.objects, snap.files, this.last ? snap.changed : undefined);
      const entry: LogEntry = { kind: "point", turn, phase, root, at: snap.lookedAt, ...(snap.skipped.length && phase === "before" ? { skipped: snap.skipped } : {}) };
      store.append(sessionId, entry);
      this.last = snap;
      this.patchable = !!this.folders;
      if (!this.skippedSaid && snap.skipped.length) {
        this.skippedSaid = true;
        // Once per workspace, not per session: said again only when what is left out changes (a new kind of item).
        const kinds = snap.skipped.map((line) => line.replace(/^\d+ /, "#").replace(/:.*$/, ""));
        if (store.noteSkipped(workspace, kinds)) {
          notices.push(`checkpoint: not recorded (so /rewind and /undo leave them as they are): ${snap.skipped.join("; ")}; files outside the workspace are never covered`);
        }
      }
    } catch (e) {
      this.trees.forget(); // its last write may name a state the log does not: the next one starts afresh
      if (this.patchable) {
        // The walk may have patched the last recording's map before the failure: compared afresh next time.
        this.last = undefined;
        this.folders = undefined;
        this.patchable = false;
      }
      const reason = (e as NodeJS.ErrnoException).code === "ENOSPC" ? "the disk is full" : (e as Error).message;
      try {
        store.append(sessionId, { kind: "skipped", turn, reason, at: Date.now() });
      } catch {
        // the log cannot be written either: the notice still says it
      }
      if (!this.failedSaid) {
        this.failedSaid = true;
        notices.push(`checkpoint skipped for ${turn} (${reason}): /rewind and /undo cannot restore this turn's files`);
      }
      if (phase === "before") this.recordedTurn = undefined;
    }
    return notices;
  }
}
