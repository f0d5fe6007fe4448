// Putting the workspace back to a recorded state. First a plan: every file that would change (restored,
// created or deleted, with a short diff), and the files changed outside SCV since its last recording, which are
// kept unless the person names them. Then the restore: every file's new content is written to a temporary file
// beside it first (checked against its hash), and every file is checked to be as the plan saw it; only when all
// are ready are they renamed into place and the deletions done, so a damaged object or a file changed since the
// plan leaves nothing half restored. No link is followed on the way (fs/no-follow.ts); `.git` and skipped folders
// are never touched.
import * as fs from "node:fs";
import { createExclusiveFile, FolderTree, NotAFolderError } from "../fs/no-follow";
import { tryUnlink } from "../fs/private-file";
import { temporaryName } from "../process/owned-files";
import { unifiedDiff } from "../tools/line-diff";
import { DamagedObjectError, ObjectStore } from "./objects";
import { snapshot, stateOf } from "./recorder";
import { changedSince, SKIPPED_DIRECTORIES } from "./scan";
import type { CheckpointStore, KnownFile } from "./store";
import { readTree, type FileState, type WorkspaceState } from "./tree";

export interface PlannedChange {
  path: string;
  /** `restore`: the file is there and gets its recorded content; `create`: it is gone and comes back; `delete`: it did not exist then. */
  action: "restore" | "create" | "delete";
  /** A short unified diff from now to the recorded content (text files); a size line otherwise. */
  diff: string;
  /** The file was changed outside SCV since SCV last recorded it: kept unless the person names it. */
  changedOutside?: boolean;
}

export interface RestorePlan {
  changes: PlannedChange[];
  /** The target state, for applying. */
  target: WorkspaceState;
  /** The walk the plan was made from. */
  now: { files: Map<string, KnownFile>; lookedAt: number };
}

export class RestoreUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RestoreUnavailableError";
  }
}

const DIFF_LIMITS = { maxLines: 12, maxChars: 160 };

/** Reads a recorded state; a missing or damaged listing makes it unavailable, with the reason. */
export function targetState(store: CheckpointStore, root: string, what: string): WorkspaceState {
  try {
    return readTree(store.objects, root);
  } catch (e) {
    if (e instanceof DamagedObjectError) throw new RestoreUnavailableError(`${what} is unavailable: ${e.message}`);
    throw e;
  }
}

/**
 * What restoring `target` would change now. `lastRoot` is the state SCV last recorded: a file that differs
 * from it now was changed by someone else since.
 */
export function planRestore(store: CheckpointStore, workspace: string, maxFileBytes: number, target: WorkspaceState, last: WorkspaceState | undefined, previous?: { files: Map<string, KnownFile>; lookedAt: number }): RestorePlan {
  const now = snapshot(store, workspace, maxFileBytes, previous);
  const current = stateOf(now.files);
  const changes: PlannedChange[] = [];
  const paths = new Set([...target.keys(), ...current.keys()]);
  const tree = new FolderTree(workspace);
  try {
    for (const rel of [...paths].sort()) {
      const t = target.get(rel);
      const c = current.get(rel);
      if (t && c && t.hash === c.hash && t.mode === c.mode) continue;
      if (!safeRelative(rel)) continue;
      const action = !t ? "delete" : c ? "restore" : "create";
      const known = last?.get(rel);
      const outside = last !== undefined && (known?.hash !== c?.hash || (known && c && known.mode !== c.mode));
      changes.push({ path: rel, action, diff: describe(store, tree, rel, c, t), ...(outside ? { changedOutside: true } : {}) });
    }
  } finally {
    tree.close();
  }
  return { changes, target, now };
}

/** A short diff from the file now (read without following a link) to its recorded content. */
function describe(store: CheckpointStore, tree: FolderTree, rel: string, c: FileState | undefined, t: FileState | undefined): string {
  try {
    const before = c ? tree.read(rel) : Buffer.alloc(0);
    const after = t ? store.objects.get(t.hash) : Buffer.alloc(0);
    if (isText(before) && isText(after)) {
      const d = unifiedDiff(before.toString("utf8"), after.toString("utf8"), DIFF_LIMITS);
      return d.text || (c && t && c.mode !== t.mode ? `mode ${(c.mode & 0o777).toString(8)} -> ${(t.mode & 0o777).toString(8)}` : "");
    }
    return `binary, ${before.length} -> ${after.length} bytes`;
  } catch (e) {
    return e instanceof DamagedObjectError ? `unavailable: ${e.message}` : `(no diff: ${(e as Error).message})`;
  }
}

function isText(b: Buffer): boolean {
  return b.length <= 1024 * 1024 && !b.subarray(0, 8000).includes(0);
}

/** A workspace-relative path a restore may write: no escapes, nothing under `.git` or a skipped folder. */
function safeRelative(rel: string): boolean {
  if (!rel || rel.startsWith("/") || rel.includes("\0")) return false;
  return rel.split("/").every((part) => part !== "" && part !== "." && part !== ".." && !SKIPPED_DIRECTORIES.has(part));
}

export interface RestoreResult {
  restored: string[];
  created: string[];
  deleted: string[];
  /** Changed outside SCV and not confirmed: left as they are. */
  kept: string[];
}

/** Files that changed after the plan was made: nothing is restored, and the person is shown the new plan. */
export class RestoreChangedError extends RestoreUnavailableError {
  constructor(readonly paths: string[]) {
    const shown = paths.slice(0, 10).join(", ") + (paths.length > 10 ? ` and ${paths.length - 10} more` : "");
    const what = paths.length ? `${shown} changed` : "the files or the rewind's target changed (or the plan confirmed is not one this session showed)";
    super(`nothing was restored: ${what} since the plan was made; look at the new plan and confirm it again`);
    this.name = "RestoreChangedError";
  }
}

interface Prepared {
  change: PlannedChange;
  dir: string;
  name: string;
  /** The new content's temporary name in `dir` (not for a deletion). */
  temp?: string;
}

/**
 * Applies a plan. `overwrite` names files changed outside SCV that may be replaced anyway (`*` for all). All
 * new contents are prepared before anything is replaced; a damaged object aborts with nothing changed, and so
 * does a file that changed since the plan was made (RestoreChangedError names it). Every folder on the way is
 * opened without following a link and every new file is created O_EXCL|O_NOFOLLOW (fs/no-follow.ts), so a link
 * planted in the workspace is never written through.
 */
export function applyRestore(store: CheckpointStore, workspace: string, plan: RestorePlan, overwrite: readonly string[]): RestoreResult {
  const all = overwrite.includes("*");
  const result: RestoreResult = { restored: [], created: [], deleted: [], kept: [] };
  const go = plan.changes.filter((c) => {
    if (c.changedOutside && !all && !overwrite.includes(c.path)) {
      result.kept.push(c.path);
      return false;
    }
    return true;
  });
  const tree = new FolderTree(workspace);
  try {
    const prepared = prepare(store, tree, plan, go);
    commit(tree, plan, prepared, result);
  } finally {
    tree.close();
  }
  return result;
}

/** Every new content in a temporary file beside its target, then the check that nothing changed since the plan. */
function prepare(store: CheckpointStore, tree: FolderTree, plan: RestorePlan, go: PlannedChange[]): Prepared[] {
  const prepared: Prepared[] = [];
  try {
    for (const change of go) {
      const cut = change.path.lastIndexOf("/");
      const p: Prepared = { change, dir: cut === -1 ? "" : change.path.slice(0, cut), name: change.path.slice(cut + 1) };
      if (change.action !== "delete") {
        const t = plan.target.get(change.path)!;
        const data = store.objects.get(t.hash);
        p.temp = writeTemporary(tree, p.dir, p.name, data, t.mode & 0o777);
      }
      prepared.push(p);
    }
    const changed = prepared.filter((p) => changedSincePlan(tree, plan, p)).map((p) => p.change.path);
    if (changed.length) throw new RestoreChangedError(changed);
  } catch (e) {
    for (const p of prepared) if (p.temp) tryUnlinkQuietly(() => tree.at(p.dir, p.temp!));
    if (e instanceof RestoreUnavailableError) throw e;
    throw new RestoreUnavailableError(`nothing was restored: ${(e as Error).message}`);
  }
  return prepared;
}

/** A new file beside the target (never an existing name or a link), with the recorded mode set through its descriptor. */
function writeTemporary(tree: FolderTree, dir: string, name: string, data: Uint8Array, mode: number): string {
  for (let attempt = 0; ; attempt++) {
    const temp = temporaryName(name);
    try {
      createExclusiveFile(tree.at(dir, temp, { create: true }), data, { mode, durable: false });
      return temp;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST" || attempt >= 5) throw e;
    }
  }
}

/**
 * Whether the file is no longer as the plan saw it: one to create exists now, one to restore or delete is gone,
 * not a regular file, or has other content or mode (a changed stat is settled by the content's hash).
 */
function changedSincePlan(tree: FolderTree, plan: RestorePlan, p: Prepared): boolean {
  const known = plan.now.files.get(p.change.path);
  let st: fs.Stats | undefined;
  try {
    st = fs.lstatSync(tree.at(p.dir, p.name));
  } catch (e) {
    if (!(e instanceof NotAFolderError) && (e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
  if (!known || !st) return !known !== !st;
  if (!st.isFile() || (st.mode & 0o777) !== known.mode) return true;
  const seen = { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino, mode: st.mode & 0o777 };
  if (!changedSince(seen, known, plan.now.lookedAt)) return false;
  try {
    return ObjectStore.hash(tree.read(p.change.path)) !== known.hash;
  } catch {
    return true;
  }
}

/** Renames every prepared file into place (a created one never over a file that appeared meanwhile), then the deletions. */
function commit(tree: FolderTree, plan: RestorePlan, prepared: Prepared[], result: RestoreResult): void {
  for (const { change, dir, name, temp } of prepared) {
    const dest = tree.at(dir, name);
    if (!temp) {
      if (tryUnlink(dest)) result.deleted.push(change.path);
      removeEmptyParents(tree, dir, plan.target);
    } else if (change.action === "create") {
      if (installNew(tree.at(dir, temp), dest)) result.created.push(change.path);
      else result.kept.push(change.path);
    } else {
      fs.renameSync(tree.at(dir, temp), dest);
      result.restored.push(change.path);
    }
  }
}

/** Links a created file into place (which fails rather than replace a file that appeared meanwhile); false then. */
function installNew(temp: string, dest: string): boolean {
  try {
    fs.linkSync(temp, dest);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EEXIST") {
      tryUnlink(temp);
      return false;
    }
    // A filesystem without hard links: check and rename (a narrow race, as the write tool's).
    if (fs.existsSync(dest) || isLink(dest)) {
      tryUnlink(temp);
      return false;
    }
    fs.renameSync(temp, dest);
    return true;
  }
  tryUnlink(temp);
  return true;
}

function isLink(p: string): boolean {
  try {
    return fs.lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

function tryUnlinkQuietly(path: () => string): void {
  try {
    tryUnlink(path());
  } catch {
    // its folder is gone or no folder now: nothing of ours to remove there
  }
}

/** A folder a deletion emptied, which held nothing at the target either, goes too (a created folder is undone). */
function removeEmptyParents(tree: FolderTree, dir: string, target: WorkspaceState): void {
  let rel = dir;
  while (rel !== "") {
    for (const p of target.keys()) if (p.startsWith(`${rel}/`)) return;
    const cut = rel.lastIndexOf("/");
    const parent = cut === -1 ? "" : rel.slice(0, cut);
    try {
      fs.rmdirSync(tree.at(parent, rel.slice(cut + 1)));
    } catch {
      return;
    }
    tree.forget(rel);
    rel = parent;
  }
}
