// Putting the workspace back to a recorded state. First a plan: every file that would change (restored,
// created or deleted, with a short diff), and the files changed outside SCV since its last recording, which are
// kept unless the person names them. Then the restore: every file's new content is written to a temporary file
// beside it first (checked against its hash); only when all are ready are they renamed into place and the
// deletions done, so a damaged object leaves nothing half restored. `.git` and skipped folders are never touched.
import * as fs from "node:fs";
import * as path from "node:path";
import { tryUnlink } from "../fs/private-file";
import { unifiedDiff } from "../tools/line-diff";
import { DamagedObjectError } from "./objects";
import { snapshot, stateOf } from "./recorder";
import { SKIPPED_DIRECTORIES } from "./scan";
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
  for (const rel of [...paths].sort()) {
    const t = target.get(rel);
    const c = current.get(rel);
    if (t && c && t.hash === c.hash && t.mode === c.mode) continue;
    if (!safeRelative(rel)) continue;
    const action = !t ? "delete" : c ? "restore" : "create";
    const known = last?.get(rel);
    const outside = last !== undefined && (known?.hash !== c?.hash || (known && c && known.mode !== c.mode));
    changes.push({ path: rel, action, diff: describe(store, workspace, rel, c, t), ...(outside ? { changedOutside: true } : {}) });
  }
  return { changes, target, now };
}

function describe(store: CheckpointStore, workspace: string, rel: string, c: FileState | undefined, t: FileState | undefined): string {
  try {
    const before = c ? fs.readFileSync(`${workspace}/${rel}`) : Buffer.alloc(0);
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

/**
 * Applies a plan. `overwrite` names files changed outside SCV that may be replaced anyway (`*` for all). All
 * new contents are prepared before anything is replaced; a damaged object aborts with nothing changed.
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
  const prepared: { change: PlannedChange; tmp?: string; abs: string }[] = [];
  try {
    for (const change of go) {
      const abs = `${workspace}/${change.path}`;
      if (change.action === "delete") {
        prepared.push({ change, abs });
        continue;
      }
      const t = plan.target.get(change.path)!;
      const data = store.objects.get(t.hash);
      const dir = path.dirname(abs);
      assertRealDirectories(workspace, dir);
      fs.mkdirSync(dir, { recursive: true });
      const tmp = `${dir}/.${path.basename(abs)}.scv-restore.${process.pid}.tmp`;
      fs.writeFileSync(tmp, data, { mode: t.mode & 0o777, flag: "w" });
      fs.chmodSync(tmp, t.mode & 0o777);
      prepared.push({ change, tmp, abs });
    }
  } catch (e) {
    for (const p of prepared) if (p.tmp) tryUnlink(p.tmp);
    if (e instanceof DamagedObjectError) throw new RestoreUnavailableError(`nothing was restored: ${e.message}`);
    throw new RestoreUnavailableError(`nothing was restored: ${(e as Error).message}`);
  }
  for (const { change, tmp, abs } of prepared) {
    if (tmp) {
      fs.renameSync(tmp, abs);
      (change.action === "create" ? result.created : result.restored).push(change.path);
    } else {
      if (tryUnlink(abs)) result.deleted.push(change.path);
      removeEmptyParents(workspace, path.dirname(abs), plan.target);
    }
  }
  return result;
}

/** Refuses to write through a symbolic link on the way (a restore never writes outside the workspace). */
function assertRealDirectories(workspace: string, dir: string): void {
  let at = dir;
  while (at.length > workspace.length) {
    try {
      if (fs.lstatSync(at).isSymbolicLink()) throw new Error(`${path.relative(workspace, at)} is a symbolic link now; restore refuses to write through it`);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
    at = path.dirname(at);
  }
}

/** A folder a deletion emptied, which held nothing at the target either, goes too (a created folder is undone). */
function removeEmptyParents(workspace: string, dir: string, target: WorkspaceState): void {
  let at = dir;
  while (at.length > workspace.length) {
    const rel = at.slice(workspace.length + 1);
    for (const p of target.keys()) if (p.startsWith(`${rel}/`)) return;
    try {
      fs.rmdirSync(at);
    } catch {
      return;
    }
    at = path.dirname(at);
  }
}
