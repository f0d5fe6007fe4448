// Private files under SCV_HOME (records, markers, credentials SCV writes for agents): directories 0700, files
// 0600, written through a temporary file in the same directory and a rename, so a reader never sees half.
import { chmodSync, mkdirSync, renameSync, unlinkSync } from "node:fs";
import { createExclusiveFile } from "./no-follow";

/** Creates dir (and missing parents) 0700, and tightens dir itself if it already existed. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
}

/** How a private file is written; `durable: false` skips the fsync, for a file that means nothing after a power cut (a cache, a lock). */
export interface PrivateWrite {
  durable?: boolean;
}

/** Creates `file`, which must not exist yet (never through a symlink), with mode 0600, and writes `data` durably. */
export function createPrivateFile(file: string, data: string | Uint8Array, opts: PrivateWrite = {}): void {
  createExclusiveFile(file, data, opts);
}

/** Writes `data` to `file` with mode 0600, atomically and (unless `durable: false`) durably: fsync before the rename. */
export function writePrivateFileAtomic(file: string, data: string | Uint8Array, opts: PrivateWrite = {}): void {
  const dir = file.slice(0, file.lastIndexOf("/"));
  const tmp = `${dir}/.${file.slice(dir.length + 1)}.${process.pid}.${Math.random().toString(16).slice(2)}.tmp`;
  createPrivateFile(tmp, data, opts);
  try {
    renameSync(tmp, file);
  } catch (e) {
    tryUnlink(tmp);
    throw e;
  }
}

/** Removes a file; false when it was not there (or could not be removed). */
export function tryUnlink(file: string): boolean {
  try {
    unlinkSync(file);
    return true;
  } catch {
    return false;
  }
}
