// Delegation records ($SCV_HOME/state/delegations/<handle>.json) and the tracked way of stopping a run:
// its process group, then every process still tagged with it (TERM, then KILL after 2 s).
import { chmodSync, closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { constants } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { identityOf, isAlive, listPids, readStat } from "./procfs";
import type { ProcessIdentity } from "./types";

export const DelegationRecord = z.object({
  handle: z.string(),
  agent: z.string(),
  /** instanceId and sessionId of the SCV session that started it. */
  instance: z.string(),
  session: z.string(),
  cwd: z.string(),
  depth: z.number().int(),
  /** The SCV_PARENT value the agent got; its descendants carry it or extend it with ":". */
  scv_parent: z.string(),
  /** The runner's SCV_RUN_TAG for this run. */
  run_tag: z.string(),
  pid: z.number().int(),
  start_time: z.string(),
  owner_pid: z.number().int(),
  owner_start_time: z.string(),
  /** Kernel boot the PIDs belong to; after a reboot none of them can be ours. */
  boot_id: z.string().optional(),
  /** /proc/stat btime when written: if it moved, the wall clock was stepped and scans skip their time filter. */
  btime: z.number().optional(),
  started_unix: z.number(),
  conversation: z.string().optional(),
  turn: z.number().int().optional(),
  idle_since_unix: z.number().optional(),
  background_jobs: z.number().int().positive().optional(),
});
export type DelegationRecord = z.infer<typeof DelegationRecord>;

const HANDLE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
export const validHandle = (h: string) => HANDLE.test(h);

export const stateDir = (scvHome: string) => join(scvHome, "state");
export const delegationsDir = (scvHome: string) => join(scvHome, "state", "delegations");
const recordPath = (scvHome: string, handle: string) => join(delegationsDir(scvHome), `${handle}.json`);
const cancelPath = (scvHome: string, handle: string) => join(delegationsDir(scvHome), `${handle}.cancel-requested`);

/** Creates dir (and missing parents) 0700, and tightens dir itself if it already existed. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
}

/** Writes a file 0600 through a temporary file in the same directory and a rename, so readers never see half. */
export function writePrivateFileAtomic(file: string, data: string): void {
  const dir = file.slice(0, file.lastIndexOf("/"));
  const tmp = `${dir}/.${file.slice(dir.length + 1)}.${process.pid}.${Math.random().toString(16).slice(2)}.tmp`;
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(tmp, file);
  } catch (e) {
    tryUnlink(tmp);
    throw e;
  }
}

export function tryUnlink(file: string): boolean {
  try {
    unlinkSync(file);
    return true;
  } catch {
    return false;
  }
}

export function writeRecord(scvHome: string, record: DelegationRecord): void {
  ensurePrivateDir(stateDir(scvHome));
  ensurePrivateDir(delegationsDir(scvHome));
  writePrivateFileAtomic(recordPath(scvHome, record.handle), `${JSON.stringify(record, null, 2)}\n`);
}

export function readRecord(scvHome: string, handle: string): DelegationRecord | undefined {
  if (!validHandle(handle)) return undefined;
  try {
    const parsed = DelegationRecord.safeParse(JSON.parse(readFileSync(recordPath(scvHome, handle), "utf8")));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Every readable record, oldest first. Unreadable files are skipped (a writer never leaves half a record). */
export function listRecords(scvHome: string): DelegationRecord[] {
  let names: string[];
  try {
    names = readdirSync(delegationsDir(scvHome));
  } catch {
    return [];
  }
  const out: DelegationRecord[] = [];
  for (const name of names) {
    if (!name.endsWith(".json") || name.startsWith(".")) continue;
    const rec = readRecord(scvHome, name.slice(0, -5));
    if (rec) out.push(rec);
  }
  return out.sort((a, b) => a.started_unix - b.started_unix || a.handle.localeCompare(b.handle));
}

/** True when this call removed the record (so concurrent reconcilers count an orphan once). */
export function removeRecord(scvHome: string, handle: string): boolean {
  return tryUnlink(recordPath(scvHome, handle));
}

/** Left by `scv agents kill` before it signals, so the owning SCV reports the run as cancelled. */
export function requestCancel(scvHome: string, handle: string): void {
  ensurePrivateDir(delegationsDir(scvHome));
  writePrivateFileAtomic(cancelPath(scvHome, handle), `${JSON.stringify({ by_pid: process.pid, at_unix: Date.now() / 1000 })}\n`);
}
export function cancelRequested(scvHome: string, handle: string): boolean {
  try {
    readFileSync(cancelPath(scvHome, handle));
    return true;
  } catch {
    return false;
  }
}
export const clearCancelRequest = (scvHome: string, handle: string) => tryUnlink(cancelPath(scvHome, handle));

let cachedOwner: ProcessIdentity | undefined;
/** This SCV process's identity, as recorded in its delegations. */
export function ownerIdentity(): ProcessIdentity {
  cachedOwner ??= identityOf(process.pid) ?? { pid: process.pid, startTime: "0" };
  return cachedOwner;
}

let cachedBoot: string | undefined;
export function bootId(): string {
  if (cachedBoot === undefined) {
    try {
      cachedBoot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    } catch {
      cachedBoot = "";
    }
  }
  return cachedBoot;
}

/** Whether the SCV process that owns the record still runs: same PID, same start time, same boot. */
export function ownerAlive(rec: DelegationRecord): boolean {
  if (rec.boot_id && rec.boot_id !== bootId()) return false;
  return isAlive({ pid: rec.owner_pid, startTime: rec.owner_start_time });
}

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

/** Boot time in Unix seconds from /proc/stat (it moves when the wall clock is stepped). */
export function currentBtime(): number | undefined {
  try {
    const m = /^btime (\d+)$/m.exec(readFileSync("/proc/stat", "utf8"));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

const USER_HZ = 100; // /proc/<pid>/stat start times are in USER_HZ ticks on every Linux ABI

/**
 * Everything tagged for a run was born after its agent. A /proc/<pid> inode is made, and stamped with the wall
 * clock, only after its process exists, so an inode older than the earliest agent (less a margin for btime
 * rounding and clock slew) cannot belong to any of them, and its environ need not be read. Returns undefined,
 * meaning "read every environ", when a record's start time is unknown or the clock was stepped since.
 */
function bornAfterCutoff(records: readonly DelegationRecord[]): number | undefined {
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
export function scanTagged(records: readonly DelegationRecord[], opts: { everyProcess?: boolean } = {}): Map<string, ProcessIdentity[]> {
  const found = new Map<string, ProcessIdentity[]>();
  if (!records.length) return found;
  const byTag = new Map(records.map((r) => [r.run_tag, r.handle]));
  const byParent = new Map(records.map((r) => [r.scv_parent, r.handle]));
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
function groupIsOurs(rec: DelegationRecord): boolean {
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
function signalAll(records: readonly DelegationRecord[], signal: NodeJS.Signals): { targets: ProcessIdentity[]; groups: number } {
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

function allGone(records: readonly DelegationRecord[], targets: ProcessIdentity[]): boolean {
  return targets.every((t) => !isAlive(t)) && records.every((r) => !groupIsOurs(r) || !groupHasLiveMembers(r.pid));
}

export interface StopOptions {
  graceMs?: number;
  /** Block the thread instead of awaiting (for process 'exit' handlers). */
  sync?: boolean;
}

/** Stops the runs' groups and tagged processes: TERM, up to graceMs (2 s) for them to go, then KILL. */
export function stopDelegations(records: readonly DelegationRecord[], opts: StopOptions & { sync: true }): void;
export function stopDelegations(records: readonly DelegationRecord[], opts?: StopOptions): Promise<void>;
export function stopDelegations(records: readonly DelegationRecord[], opts: StopOptions = {}): Promise<void> | void {
  const grace = opts.graceMs ?? 2000;
  const { targets, groups } = signalAll(records, "SIGTERM");
  const deadline = Date.now() + grace;
  // A last pass also kills what appeared during the grace period; with nothing alive at TERM nothing can appear.
  const finalKill = () => {
    if (targets.length || groups) signalAll(records, "SIGKILL");
  };
  if (opts.sync) {
    while (Date.now() < deadline && !allGone(records, targets)) Bun.sleepSync(20);
    finalKill();
    return;
  }
  return (async () => {
    let pause = 5;
    while (Date.now() < deadline && !allGone(records, targets)) {
      await Bun.sleep(pause);
      pause = Math.min(pause * 2, 50);
    }
    finalKill();
  })();
}

export type DelegationState = "running" | "idle" | "background" | "orphan";

/** How `scv agents ps` and `scv status` describe a record: a live agent between turns is idle, or background
 * while a nested SCV's own jobs still count; a record whose owner is gone is an orphan. */
export function delegationState(rec: DelegationRecord, owner: boolean = ownerAlive(rec)): DelegationState {
  if (!owner) return "orphan";
  if (rec.idle_since_unix === undefined) return "running";
  return rec.background_jobs ? "background" : "idle";
}
