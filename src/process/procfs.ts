// Reading Linux /proc: process identity (PID + start time), groups, sessions, and the run tag in environ.
import { readdirSync, readFileSync } from "node:fs";
import type { ProcessIdentity } from "./types";

export interface ProcStat {
  pid: number;
  state: string;
  ppid: number;
  pgrp: number;
  sid: number;
  /** Clock ticks since boot, as a decimal string. */
  startTime: string;
}

/** /proc/<pid>/stat, or undefined when the process is gone. The comm field may hold spaces or ")". */
export function readStat(pid: number): ProcStat | undefined {
  let s: string;
  try {
    s = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
  const field = (n: number) => f[n - 3]!;
  return { pid, state: field(3), ppid: +field(4), pgrp: +field(5), sid: +field(6), startTime: field(22) };
}

export function identityOf(pid: number): ProcessIdentity | undefined {
  const st = readStat(pid);
  return st && { pid, startTime: st.startTime };
}

let self: ProcessIdentity | undefined;
/** This process's identity, read once: session locks, conversation markers and delegation records all name it. */
export function ownIdentity(): ProcessIdentity | undefined {
  return (self ??= identityOf(process.pid));
}

/** True when the PID still names the same process (same start time) and it is not a zombie. */
export function isAlive(id: ProcessIdentity): boolean {
  const st = readStat(id.pid);
  return !!st && st.startTime === id.startTime && st.state !== "Z";
}

export function listPids(): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    const c = name.charCodeAt(0);
    if (c >= 48 && c <= 57) out.push(+name);
  }
  return out;
}

/** One variable from /proc/<pid>/environ (the exec-time snapshot), or undefined if unreadable. */
export function readEnvVar(pid: number, name: string): string | undefined {
  let raw: Buffer;
  try {
    raw = readFileSync(`/proc/${pid}/environ`);
  } catch {
    return undefined;
  }
  const needle = Buffer.from(`${name}=`);
  let at = 0;
  while (at < raw.length) {
    const end = raw.indexOf(0, at);
    const stop = end === -1 ? raw.length : end;
    if (stop - at >= needle.length && raw.subarray(at, at + needle.length).equals(needle)) {
      return raw.subarray(at + needle.length, stop).toString("utf8");
    }
    at = stop + 1;
  }
  return undefined;
}

/** Processes whose environment carries `name` equal to `value` (or, with `prefix`, starting with it). */
export function findTagged(name: string, value: string, opts: { prefix?: boolean; exclude?: number } = {}): ProcStat[] {
  const found: ProcStat[] = [];
  for (const pid of listPids()) {
    if (pid === opts.exclude || pid === process.pid) continue;
    const v = readEnvVar(pid, name);
    if (v === undefined || !(opts.prefix ? v.startsWith(value) : v === value)) continue;
    const st = readStat(pid);
    if (st && st.state !== "Z") found.push(st);
  }
  return found;
}

/** Every process visible in /proc except this one (zombies included: check `state`). */
export function allProcesses(): ProcStat[] {
  const out: ProcStat[] = [];
  for (const pid of listPids()) {
    if (pid === process.pid) continue;
    const st = readStat(pid);
    if (st) out.push(st);
  }
  return out;
}
