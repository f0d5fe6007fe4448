// The tracked way of stopping delegated runs, and runs a dead SCV left (run records): their process groups, then
// every process still tagged with them (SCV_RUN_TAG or an SCV_PARENT chain), TERM, then KILL after 2 s. One
// /proc pass reads each environ once.
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { type DelegationRecord, bootId, currentBtime } from "./delegation-records";
import type { RunRecord } from "./run-records";
import { isAlive, listPids, readStat } from "./procfs";
import type { ProcessIdentity } from "./types";

const PARENT = Buffer.from("SCV_PARENT=");
const RUN_TAG = Buffer.from("SCV_RUN_TAG=");
const SCV_ = Buffer.from("SCV_");

function envValue(raw: Buffer, key: Buffer): string | undefined {
  let at = raw.indexOf(key);
  while (at > 0 && raw[at - 1] !== 0) at = raw.indexOf(key, at + 1);
  if (at < 0) return undefined;
  const end = raw.indexOf(0, at);
  return raw.toString("utf8", at + key.length, end < 0 ? raw.length : end);
}

// One reusable buffer: the scan reads every process's environ, so allocation per file would dominate.
let envBuffer = Buffer.allocUnsafe(64 * 1024);

/** /proc/<pid>/environ into the shared buffer; the bytes read, or -1 when unreadable (gone, another user's). */
function readEnviron(pid: number): number {
  let fd: number;
  try {
    fd = openSync(`/proc/${pid}/environ`, "r");
  } catch {
    return -1;
  }
  try {
    let len = 0;
    for (;;) {
      if (len === envBuffer.length) {
        const bigger = Buffer.allocUnsafe(envBuffer.length * 2);
        envBuffer.copy(bigger, 0, 0, len);
        envBuffer = bigger;
      }
      const n = readSync(fd, envBuffer, len, envBuffer.length - len, null);
      if (n <= 0) return len;
      len += n;
    }
  } catch {
    return -1;
  } finally {
    closeSync(fd);
  }
}

/**
 * What stopping a run needs: a key, its tag, and where known its group leader and SCV_PARENT chain. A delegation
 * record is one; a plain run record (bash, helpers) becomes one through `stoppableRun`.
 */
export type StoppableRun = Pick<DelegationRecord, "handle" | "run_tag" | "boot_id" | "btime"> & {
  scv_parent?: string;
  pid?: number;
  start_time?: string;
};

/** A run record as something stopDelegations can stop (keyed by its tag). */
export function stoppableRun(rec: RunRecord): StoppableRun {
  return {
    handle: `run:${rec.run_tag}`,
    run_tag: rec.run_tag,
    ...(rec.pid !== undefined && rec.start_time !== undefined ? { pid: rec.pid, start_time: rec.start_time } : {}),
    ...(rec.boot_id !== undefined ? { boot_id: rec.boot_id } : {}),
    ...(rec.btime !== undefined ? { btime: rec.btime } : {}),
  };
}

const USER_HZ = 100; // /proc/<pid>/stat start times are in USER_HZ ticks on every Linux ABI

/**
 * Everything tagged for a run was born after its agent. A /proc/<pid> inode is made, and stamped with the wall
 * clock, only after its process exists, so an inode older than the earliest agent (less a margin for btime
 * rounding and clock slew) cannot belong to any of them, and its environ need not be read. Returns undefined,
 * meaning "read every environ", when a record's start time is unknown or the clock was stepped since.
 */
function bornAfterCutoff(records: readonly StoppableRun[]): number | undefined {
  const btime = currentBtime();
  if (btime === undefined) return undefined;
  const now = Date.now() / 1000;
  let cutoff = Infinity;
  for (const rec of records) {
    const ticks = Number(rec.start_time);
    if (!(ticks > 0) || rec.btime === undefined || Math.abs(rec.btime - btime) > 1) return undefined;
    if (rec.boot_id && rec.boot_id !== bootId()) continue; // nothing of another boot survives
    const start = btime + ticks / USER_HZ;
    cutoff = Math.min(cutoff, start - 2 - 0.001 * Math.max(0, now - start));
  }
  return Number.isFinite(cutoff) ? cutoff : undefined;
}

/** The handles of `records` each live process is tagged with, from one /proc pass (environ is read once). */
export function scanTagged(records: readonly StoppableRun[], opts: { everyProcess?: boolean } = {}): Map<string, ProcessIdentity[]> {
  const found = new Map<string, ProcessIdentity[]>();
  if (!records.length) return found;
  const byTag = new Map(records.map((r) => [r.run_tag, r.handle]));
  const byParent = new Map(records.flatMap((r) => (r.scv_parent ? [[r.scv_parent, r.handle] as const] : [])));
  const cutoff = opts.everyProcess ? undefined : bornAfterCutoff(records);
  const cutoffMs = cutoff === undefined ? undefined : cutoff * 1000;
  for (const pid of listPids()) {
    if (pid === process.pid) continue;
    if (cutoffMs !== undefined && olderThan(pid, cutoffMs)) continue;
    const len = readEnviron(pid);
    if (len <= 0) continue;
    const raw = envBuffer.subarray(0, len);
    if (raw.indexOf(SCV_) < 0) continue;
    const handle = matchHandle(raw, byTag, byParent);
    if (!handle) continue;
    const st = readStat(pid);
    if (!st || st.state === "Z") continue;
    const list = found.get(handle) ?? [];
    list.push({ pid, startTime: st.startTime });
    found.set(handle, list);
  }
  return found;
}

function olderThan(pid: number, cutoffMs: number): boolean {
  try {
    return statSync(`/proc/${pid}`).ctimeMs < cutoffMs;
  } catch {
    return true; // gone
  }
}

function matchHandle(raw: Buffer, byTag: Map<string, string>, byParent: Map<string, string>): string | undefined {
  // Both nest: a run inside a nested SCV has tag "<ours>/<id>" and chain "<ours>:<its own link>".
  return longestPrefixHit(envValue(raw, RUN_TAG), "/", byTag) ?? longestPrefixHit(envValue(raw, PARENT), ":", byParent);
}

function longestPrefixHit(value: string | undefined, sep: string, map: Map<string, string>): string | undefined {
  if (value === undefined) return undefined;
  for (let end = value.length; end > 0; end = value.lastIndexOf(sep, end - 1)) {
    const hit = map.get(value.slice(0, end));
    if (hit) return hit;
  }
  return undefined;
}

/**
 * The record's process group may be signalled unless its leader's PID now names another process; a group with
 * members left keeps its PGID from being reused, and after a reboot nothing of it survives.
 */
function groupIsOurs(rec: StoppableRun): rec is StoppableRun & { pid: number } {
  if (rec.pid === undefined) return false;
  if (rec.boot_id && rec.boot_id !== bootId()) return false;
  const st = readStat(rec.pid);
  return !st || st.startTime === rec.start_time;
}

function groupHasLiveMembers(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  // Signal 0 also succeeds for zombies; look closer only in that rare case.
  return listPids().some((pid) => {
    const st = readStat(pid);
    return !!st && st.pgrp === pgid && st.state !== "Z";
  });
}

/** Signals the groups and tagged processes; returns what it hit (tagged identities, groups still present). */
function signalAll(records: readonly StoppableRun[], signal: NodeJS.Signals): { targets: ProcessIdentity[]; groups: number } {
  const tagged = scanTagged(records);
  const targets: ProcessIdentity[] = [];
  let groups = 0;
  for (const rec of records) {
    if (groupIsOurs(rec)) {
      try {
        process.kill(-rec.pid, signal);
        groups++;
      } catch {
        // ESRCH: the group is already empty
      }
    }
    for (const id of tagged.get(rec.handle) ?? []) {
      const st = readStat(id.pid);
      if (!st || st.startTime !== id.startTime) continue;
      try {
        process.kill(id.pid, signal);
        targets.push(id);
      } catch {}
    }
  }
  return { targets, groups };
}

function allGone(records: readonly StoppableRun[], targets: ProcessIdentity[]): boolean {
  return targets.every((t) => !isAlive(t)) && records.every((r) => !groupIsOurs(r) || !groupHasLiveMembers(r.pid));
}

export interface StopOptions {
  graceMs?: number;
  /** Block the thread instead of awaiting (for process 'exit' handlers). */
  sync?: boolean;
}

/** Stops the runs' groups and tagged processes: TERM, up to graceMs (2 s) for them to go, then KILL. */
export function stopDelegations(records: readonly StoppableRun[], opts: StopOptions & { sync: true }): void;
export function stopDelegations(records: readonly StoppableRun[], opts?: StopOptions): Promise<void>;
export function stopDelegations(records: readonly StoppableRun[], opts: StopOptions = {}): Promise<void> | void {
  const grace = opts.graceMs ?? 2000;
  const { targets, groups } = signalAll(records, "SIGTERM");
  const deadline = Date.now() + grace;
  // A last pass also kills what appeared during the grace period; with nothing alive at TERM nothing can appear.
  // Then a short bounded wait, so a caller that returns afterwards sees the processes gone.
  const killed = () => (targets.length || groups ? signalAll(records, "SIGKILL").targets : []);
  const settleUntil = () => Date.now() + 1000;
  if (opts.sync) {
    while (Date.now() < deadline && !allGone(records, targets)) Bun.sleepSync(20);
    const last = killed();
    for (const until = settleUntil(); Date.now() < until && last.some(isAlive); ) Bun.sleepSync(5);
    return;
  }
  return (async () => {
    let pause = 5;
    while (Date.now() < deadline && !allGone(records, targets)) {
      await Bun.sleep(pause);
      pause = Math.min(pause * 2, 50);
    }
    const last = killed();
    for (const until = settleUntil(); Date.now() < until && last.some(isAlive); ) await Bun.sleep(5);
  })();
}
