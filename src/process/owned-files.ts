// Temporary files an SCV process creates outside its home (the `write` tool's `.<name>.<owner>.<hex>.scv-tmp`
// beside the destination). Each is recorded in $SCV_HOME/state/tmp before it is created and the record removed
// once the file was installed or deleted, so a SCV killed mid-write leaves a record the next start-up sweep
// uses to remove the file. The name itself carries the owner too (see ownerTag/ownerGone), so the next write
// in the same directory removes stale ones even without the record.
import { closeSync, constants, lstatSync, mkdirSync, openSync, readdirSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { randomHex } from "../digest";
import { basename, join } from "node:path";
import type { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { cutUtf8 } from "../text/cut";
import { tryUnlink } from "../fs/private-file";
import { bootId, ownerIdentity, readStateJson } from "./delegation-records";
import { readStat } from "./procfs";

/** Only names like this are ever removed by a sweep, whatever a record says. */
export const TEMP_SUFFIX = ".scv-tmp";

// Built at its first use (lazySchema), not when a server starts (docs/architecture.md, start-up).
const OwnedFile = lazySchema((z) => z.object({
  path: z.string(),
  owner_pid: z.number().int(),
  owner_start_time: z.string(),
  boot_id: z.string().optional(),
}));
type OwnedFile = z.infer<typeof OwnedFile>;

const ownedDir = (scvHome: string) => join(scvHome, "state", "tmp");

/** `<pid>-<start ticks>` of this process, for temporary file names. */
export function ownerTag(): string {
  const me = ownerIdentity();
  return `${me.pid}-${me.startTime}`;
}

/**
 * A temporary name beside `name` (`.<name>.<owner>.<hex>.scv-tmp`): hidden, unpredictable, and with its owner in
 * it, so a later write in the same folder can tell a killed writer's file (ownerGone). Create it O_EXCL.
 */
export function temporaryName(name: string): string {
  return `.${cutUtf8(name, 100)}.${ownerTag()}.${randomHex(6)}${TEMP_SUFFIX}`;
}

const OWNER_IN_NAME = /\.(\d+)(?:-(\d+))?\.[0-9a-f]+\.scv-tmp$/;

/**
 * For a name ending `.<pid>[-<start ticks>].<hex>.scv-tmp`: true when that process no longer runs (PID gone or
 * another start time). Names without a start time (older SCV) count as gone when the PID does not exist.
 */
export function ownerGone(name: string): boolean {
  const m = OWNER_IN_NAME.exec(name);
  if (!m) return false;
  const st = readStat(Number(m[1]));
  if (!st || st.state === "Z") return true;
  return m[2] !== undefined && st.startTime !== m[2];
}

/** Records `path` before it is created; returns the release function (call it once the file is gone or renamed). */
export function recordOwnedFile(scvHome: string, path: string): () => void {
  const dir = ownedDir(scvHome);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const me = ownerIdentity();
  const rec: OwnedFile = { path, owner_pid: me.pid, owner_start_time: me.startTime, boot_id: bootId() };
  const file = join(dir, `${randomHex(8)}.json`);
  const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, JSON.stringify(rec));
  } finally {
    closeSync(fd);
  }
  return () => void tryUnlink(file);
}

/** Removes the recorded files (and records) whose owner is gone; returns how many files it removed. */
export function sweepOwnedFiles(scvHome: string): number {
  const dir = ownedDir(scvHome);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    if (!name.endsWith(".json")) continue;
    const file = join(dir, name);
    let rec: OwnedFile | undefined;
    try {
      const parsed = OwnedFile.safeParse(readStateJson(file, "temporary-file record"));
      if (parsed.success) rec = parsed.data;
    } catch {
      // torn by a writer killed before it created anything; removed below when stale
    }
    if (!rec) {
      if (olderThanAMinute(file)) tryUnlink(file);
      continue;
    }
    const ownerRuns = (!rec.boot_id || rec.boot_id === bootId()) && readStat(rec.owner_pid)?.startTime === rec.owner_start_time;
    if (ownerRuns) continue;
    if (basename(rec.path).endsWith(TEMP_SUFFIX) && isRegularFile(rec.path) && tryUnlink(rec.path)) removed++;
    tryUnlink(file);
  }
  return removed;
}

function isRegularFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

function olderThanAMinute(file: string): boolean {
  try {
    return Date.now() - lstatSync(file).mtimeMs > 60_000;
  } catch {
    return false;
  }
}

/** The sandbox's per-command temporary directories in TMPDIR (src/sandbox): `scv-sandbox.<owner>.<hex>.scv-tmp`. */
export const PRIVATE_TMP_PREFIX = "scv-sandbox.";

/** Removes the sandbox's temporary directories whose owner no longer runs; returns how many. */
export function sweepPrivateTmps(base = tmpdir()): number {
  let removed = 0;
  let names: string[];
  try {
    names = readdirSync(base);
  } catch {
    return 0;
  }
  for (const name of names) {
    if (!name.startsWith(PRIVATE_TMP_PREFIX) || !ownerGone(name)) continue;
    try {
      rmSync(join(base, name), { recursive: true, force: true });
      removed++;
    } catch {
      // the next sweep tries again
    }
  }
  return removed;
}
