// Stopping a set of processes found in /proc: TERM (and CONT, so stopped jobs see it), wait up to a grace
// period while the set empties, then KILL whatever is left. Every signal goes to a PID whose start time
// still matches what the scan saw, so a reused PID is never hit.
import { allProcesses, readEnvVar, readStat, type ProcStat } from "./procfs";
import type { ProcessIdentity } from "./types";

/** The environment variable the runner sets in every child; descendants inherit it unless they clear it. */
export const RUN_TAG_VAR = "SCV_RUN_TAG";
export const DEFAULT_GRACE_MS = 2000;
const POLL_MS = 25;
const KILL_ROUNDS = 40; // KILL re-scans; a process stuck in uninterruptible sleep must not hold the call forever

/** A run's own tag or one nested below it (`<tag>/<child>`, set by an SCV running inside the run). */
export function tagMatches(value: string | undefined, tag: string): boolean {
  return value !== undefined && (value === tag || value.startsWith(`${tag}/`));
}

/** Decides per live process (zombies are skipped) whether it is a target; `tagOf` reads the run tag lazily. */
export type ProcessMatcher = (st: ProcStat, tagOf: () => string | undefined) => boolean;
/** Makes the matcher for one /proc scan, so per-scan facts (our pidfds, other runs) are read once. */
export type MatcherFactory = () => ProcessMatcher;

/** Live processes (not this one, not zombies) that match. */
export function findMatching(factory: MatcherFactory): ProcStat[] {
  const out: ProcStat[] = [];
  const match = factory();
  for (const st of allProcesses()) {
    if (st.state === "Z" || st.state === "X") continue;
    let tag: string | undefined | null = null;
    const tagOf = () => (tag === null ? (tag = readEnvVar(st.pid, RUN_TAG_VAR)) : tag);
    if (match(st, tagOf)) out.push(st);
  }
  return out;
}

/** Matches the group and session led by `leader` (members born after it) and everything carrying `tag`. */
export function runMatcher(tag: string, leader?: ProcessIdentity): ProcessMatcher {
  const leaderStart = leader ? Number(leader.startTime) : 0;
  return (st: ProcStat, tagOf: () => string | undefined) => {
    // The leader by identity too: right after the spawn it may not have reached setsid or exec yet.
    if (leader && st.pid === leader.pid && st.startTime === leader.startTime) return true;
    if (leader && (st.pgrp === leader.pid || st.sid === leader.pid) && Number(st.startTime) >= leaderStart) return true;
    // Only a descendant of the leader can carry the tag, and it was born after the leader: reading every older
    // process's environment (most of the machine) on each scan was most of a short run's cost.
    if (leader && Number(st.startTime) < leaderStart) return false;
    return tagMatches(tagOf(), tag);
  };
}

export interface StopOptions {
  graceMs: number;
  /** Checked while waiting: true skips the rest of the grace (a deadline arrived). */
  killNow?: () => boolean;
  /** Also signal this group atomically while its leader is known to be alive (catches members forked mid-scan). */
  group?: () => number | undefined;
}

export interface StopReport {
  /** Distinct processes signalled. */
  signalled: ProcessIdentity[];
  /** Of those, how many still needed KILL. */
  killed: number;
}

/**
 * TERM every current match (and its group, once), then wait up to graceMs for all matches to be gone, then KILL
 * whatever matches. Processes that appear during the grace (say, a TERM handler's cleanup commands) are not
 * sent TERM; they get the grace to finish and KILL only if still running when it ends, except orphans already
 * reparented to this process (a double fork racing its parent's exit), which get TERM at once.
 */
export async function stopMatching(match: MatcherFactory, opts: StopOptions): Promise<StopReport> {
  const seen = new Map<string, ProcessIdentity>();
  const killedIds = new Set<string>();
  const key = (st: ProcStat) => `${st.pid}:${st.startTime}`;
  const deadline = performance.now() + opts.graceMs;
  const expired = () => opts.killNow?.() === true || performance.now() >= deadline;

  let targets = findMatching(match);
  if (targets.length && !expired()) {
    const pg = opts.group?.();
    if (pg) signalGroupQuietly(pg, "SIGTERM");
    for (const st of targets) {
      seen.set(key(st), { pid: st.pid, startTime: st.startTime });
      if (signalStat(st, "SIGTERM")) signalStat(st, "SIGCONT"); // a stopped job only sees TERM once continued
    }
    while (!expired()) {
      await Bun.sleep(POLL_MS);
      targets = findMatching(match);
      if (!targets.length) break;
      // One that appeared meanwhile and is already an orphan (reparented to us: its parent is gone, so it is no
      // TERM handler's work in progress), a double fork racing its parent's exit, gets TERM now, not the grace.
      for (const st of targets) {
        if (st.ppid !== process.pid || seen.has(key(st))) continue;
        seen.set(key(st), { pid: st.pid, startTime: st.startTime });
        if (signalStat(st, "SIGTERM")) signalStat(st, "SIGCONT");
      }
    }
  }
  for (let round = 0; targets.length && round < KILL_ROUNDS; round++) {
    const pg = opts.group?.();
    if (pg) signalGroupQuietly(pg, "SIGKILL");
    for (const st of targets) {
      seen.set(key(st), { pid: st.pid, startTime: st.startTime });
      if (signalStat(st, "SIGKILL")) killedIds.add(key(st));
    }
    await Bun.sleep(round < 4 ? 5 : POLL_MS);
    targets = findMatching(match);
  }
  return { signalled: [...seen.values()], killed: killedIds.size };
}

const CONFIRM_INTERVAL_MS = 5;

/**
 * After a stop pass that found nothing left: rescans until two scans in a row, CONFIRM_INTERVAL_MS apart, find
 * nothing, running `stopAgain` on whatever shows up (a child forked as its parent exits can hide from one scan),
 * for at most boundMs. Returns the reports of those extra stops.
 */
export async function confirmGone(match: MatcherFactory, boundMs: number, stopAgain: () => Promise<StopReport>): Promise<StopReport[]> {
  const reports: StopReport[] = [];
  const until = performance.now() + boundMs;
  let empty = 1; // the stop pass that just ended
  while (empty < 2 && performance.now() < until) {
    await Bun.sleep(CONFIRM_INTERVAL_MS);
    if (findMatching(match).length === 0) empty++;
    else {
      reports.push(await stopAgain());
      empty = 1;
    }
  }
  return reports;
}

/**
 * Stops everything tagged `tag` (or nested below it) and, when `leader` is given, its group and session:
 * TERM, up to `graceMs` for cleanup, then KILL. For tracking and the daemon (also across SCV restarts).
 */
export function cleanupTagged(tag: string, graceMs = DEFAULT_GRACE_MS, leader?: ProcessIdentity): Promise<StopReport> {
  if (!tag) throw new Error("cleanupTagged needs a non-empty tag");
  const match = runMatcher(tag, leader);
  return stopMatching(() => match, { graceMs });
}

/** Stops one process by identity (TERM, grace, KILL); false when it was already gone or is another process now. */
export async function killIdentity(id: ProcessIdentity, graceMs = DEFAULT_GRACE_MS): Promise<boolean> {
  const st = readStat(id.pid);
  if (!st || st.startTime !== id.startTime || st.state === "Z") return false;
  await stopMatching(() => (s) => s.pid === id.pid && s.startTime === id.startTime, { graceMs });
  return true;
}

function signalStat(st: ProcStat, signal: NodeJS.Signals): boolean {
  const now = readStat(st.pid);
  if (!now || now.startTime !== st.startTime) return false;
  try {
    process.kill(st.pid, signal);
    return true;
  } catch {
    return false;
  }
}

function signalGroupQuietly(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already empty
  }
}
