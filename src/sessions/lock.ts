// The session lock: `<id>.lock` beside the session file names the one live process that has the session open.
// It is taken before the session is loaded, by an atomic create-if-absent (a hard link of a complete temporary
// file, so no reader ever sees an empty lock), and refused while its holder lives. A dead holder's lock is taken
// over under a short-lived `<id>.lock.takeover` (O_EXCL), so two processes that both find the same stale lock
// cannot both remove it and each believe it is theirs.
import { closeSync, constants, linkSync, openSync, statSync, writeSync } from "node:fs";
import { readBoundedTextIfExists } from "../fs/safe-read";
import { tryUnlink } from "../fs/private-file";
import { isAlive, ownIdentity } from "../process/procfs";

export interface LockHolder {
  pid: number;
  start_time: string;
}

/** Thrown when another live process holds the lock (or is taking it over right now). */
export class SessionLockedError extends Error {
  constructor(readonly holder: LockHolder | undefined, message: string) {
    super(message);
    this.name = "SessionLockedError";
  }
}

/** A takeover file older than this was left by a process that died while taking over: it is removed. */
const TAKEOVER_STALE_MS = 5000;

/** The live process holding a session's lock file, if any. */
export function lockHolder(lockFile: string): LockHolder | undefined {
  const body = readHolder(lockFile);
  return body && isAlive({ pid: body.pid, startTime: body.start_time }) ? body : undefined;
}

function readHolder(lockFile: string): LockHolder | undefined {
  try {
    const text = readBoundedTextIfExists(lockFile, { what: "session lock", maxBytes: 4096, followSymlink: false });
    if (text === undefined) return undefined;
    const body = JSON.parse(text) as LockHolder;
    return typeof body?.pid === "number" && typeof body.start_time === "string" ? body : undefined;
  } catch {
    return undefined;
  }
}

/** Takes the lock for this process, or throws SessionLockedError naming the live holder. */
export function takeLock(lockFile: string, what: string): void {
  const me = ownIdentity();
  if (!me) return; // no /proc: nothing can tell a live holder from a dead one
  const mine: LockHolder = { pid: me.pid, start_time: me.startTime };
  for (let attempt = 0; attempt < 3; attempt++) {
    if (createIfAbsent(lockFile, `${JSON.stringify(mine)}\n`)) return;
    const holder = readHolder(lockFile);
    if (holder && isAlive({ pid: holder.pid, startTime: holder.start_time })) {
      throw new SessionLockedError(holder, `${what} is open in another SCV process (pid ${holder.pid}); close it there first`);
    }
    removeStale(lockFile, holder);
  }
  throw new SessionLockedError(undefined, `${what} is being opened by another SCV process right now; try again`);
}

/** Creates `file` holding `body` unless it exists; false when it does. Never through a symlink. */
function createIfAbsent(file: string, body: string): boolean {
  const tmp = `${file}.${process.pid}.${Math.random().toString(16).slice(2)}.tmp`;
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, body);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(tmp, file);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw e;
  } finally {
    tryUnlink(tmp);
  }
}

/** Removes a lock whose holder is dead (or unreadable), if it is still the one judged stale. */
function removeStale(lockFile: string, judged: LockHolder | undefined): void {
  const takeover = `${lockFile}.takeover`;
  let fd: number;
  try {
    fd = openSync(takeover, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    const age = Date.now() - (statSync(takeover, { throwIfNoEntry: false })?.mtimeMs ?? 0);
    if (age > TAKEOVER_STALE_MS) tryUnlink(takeover);
    return; // another process is taking over; the next attempt sees its lock
  }
  try {
    const now = readHolder(lockFile);
    const same = now?.pid === judged?.pid && now?.start_time === judged?.start_time;
    if (same) tryUnlink(lockFile);
  } finally {
    closeSync(fd);
    tryUnlink(takeover);
  }
}

/** Releases a lock this process holds. */
export function releaseLock(lockFile: string): void {
  tryUnlink(lockFile);
}
