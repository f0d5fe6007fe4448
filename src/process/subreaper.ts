// Child subreaper: on Linux SCV asks the kernel to reparent its orphaned descendants (setsid'd or
// double-forked escapees) to itself instead of init, so it can find them by PPid and reap their zombies.
//
// Hazard (measured, see bun-runtime.md §2): Bun reaps its own Bun.spawn children; if we waitpid one of them
// first, Bun's waiter throws ECHILD and the process dies. So we never call waitpid(-1), and we only reap a
// specific pid that is neither in the runner's spawned set nor watched by one of Bun's pidfds.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { ECHILD, errno, ffi, libc, PR_GET_CHILD_SUBREAPER, PR_SET_CHILD_SUBREAPER, WNOHANG } from "./libc";
import { listPids, readStat } from "./procfs";

/** Makes this process a child subreaper (prctl PR_SET_CHILD_SUBREAPER); false when not possible. */
export function becomeSubreaper(): boolean {
  const c = libc();
  if (!c) return false;
  return c.prctl(PR_SET_CHILD_SUBREAPER, 1n, 0n, 0n, 0n) === 0 && isSubreaper();
}

let requested = false;

/**
 * Asks for subreaping from the first child on, without loading libc now: binding libc through bun:ffi costs
 * about 10 ms, most of a nested SCV's start-up, and only matters once the runner starts a child.
 */
export function requestSubreaper(): void {
  requested = true;
}

/** Called by the runner right before each spawn: applies a pending request once. */
export function applySubreaperRequest(): void {
  if (!requested) return;
  requested = false;
  becomeSubreaper();
}

export function isSubreaper(): boolean {
  const c = libc();
  if (!c) return false;
  const out = new Int32Array(1);
  if (c.prctl(PR_GET_CHILD_SUBREAPER, BigInt(ffi().ptr(out)), 0n, 0n, 0n) !== 0) return false;
  return out[0] === 1;
}

/**
 * Pids Bun itself waits for: every child Bun spawns (Bun.spawn, node:child_process) has a pidfd open in this
 * process, whose fdinfo names the pid. This catches children spawned outside the runner too.
 */
export function bunOwnedPids(): Set<number> {
  const owned = new Set<number>();
  let fds: string[];
  try {
    fds = readdirSync("/proc/self/fd");
  } catch {
    return owned;
  }
  for (const fd of fds) {
    try {
      if (!readlinkSync(`/proc/self/fd/${fd}`).includes("pidfd")) continue;
      const m = /^Pid:\s*(-?\d+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"));
      if (m && +m[1]! > 0) owned.add(+m[1]!);
    } catch {
      // fd closed while we looked
    }
  }
  return owned;
}

let childrenFile: boolean | undefined;

/**
 * This process's direct children that can be orphans reparented to it (zombies included): the kernel hands an
 * orphan to the first live thread of the subreaper's group (`find_alive_thread`), the main thread, so its
 * /proc/self/task/<pid>/children (CONFIG_PROC_CHILDREN) lists every one, and Bun's own children spawned on the
 * main thread. One small read instead of a stat of every process; falls back to scanning /proc where that file
 * is missing.
 */
export function ownChildren(): number[] {
  if (childrenFile !== false) {
    try {
      const text = readFileSync(`/proc/self/task/${process.pid}/children`, "latin1");
      childrenFile = true;
      const out: number[] = [];
      for (const w of text.split(" ")) if (w) out.push(+w);
      return out;
    } catch {
      childrenFile = false;
    }
  }
  const out: number[] = [];
  for (const pid of listPids()) if (readStat(pid)?.ppid === process.pid) out.push(pid);
  return out;
}

/**
 * Children found to be Bun's (a pidfd names them), by pid, with their start time: a child Bun spawned outside the
 * runner (the death watch, an MCP server) stays Bun's until it ends, so it is told apart from an orphan once, not
 * by a scan of every fd after every run. A pid reused by another process has another start time. Entries go with
 * their process (`forgetGone`), so the map never holds more than this process's children.
 */
const knownBunOwned = new Map<number, string>();

/** Whether a child of ours (pid and start time from its stat) is one Bun waits for; scans the fds on a miss. */
export function isBunOwned(pid: number, startTime: string): boolean {
  if (knownBunOwned.get(pid) === startTime) return true;
  const owned = bunOwnedPids();
  for (const p of owned) {
    if (p === pid) knownBunOwned.set(p, startTime);
    else if (!knownBunOwned.has(p)) {
      const st = readStat(p);
      if (st) knownBunOwned.set(p, st.startTime);
    }
  }
  return owned.has(pid);
}

/** Drops remembered Bun children that are no longer children of ours. */
function forgetGone(children: readonly number[]): void {
  if (!knownBunOwned.size) return;
  const live = new Set(children);
  for (const pid of knownBunOwned.keys()) if (!live.has(pid)) knownBunOwned.delete(pid);
}

/** How many Bun children are remembered (tests: it never outgrows the children). */
export function knownBunOwnedCount(): number {
  return knownBunOwned.size;
}

/** Direct children of this process that Bun did not spawn: orphans reparented to us (as subreaper). */
export function foreignChildren(spawned: ReadonlySet<number>): number[] {
  const children = ownChildren();
  forgetGone(children);
  const out: number[] = [];
  for (const pid of children) {
    if (spawned.has(pid)) continue;
    const st = readStat(pid);
    if (st && isBunOwned(pid, st.startTime)) continue;
    out.push(pid);
  }
  return out;
}

/**
 * Reaps zombie orphans: waitpid(pid, WNOHANG) for each foreign child that has exited. Never waitpid(-1).
 * Returns the reaped pids.
 */
export function reapOrphans(spawned: ReadonlySet<number>): number[] {
  const c = libc();
  if (!c) return [];
  const reaped: number[] = [];
  const status = new Int32Array(1);
  for (const pid of foreignChildren(spawned)) {
    if (readStat(pid)?.state !== "Z") continue;
    const r = c.waitpid(pid, ffi().ptr(status), WNOHANG);
    if (r === pid) reaped.push(pid);
    else if (r < 0 && errno() !== ECHILD) break;
  }
  return reaped;
}
