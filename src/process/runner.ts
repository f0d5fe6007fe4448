// The one process runner: spawn in a new session with real pipes, stream and capture output within fixed
// memory, enforce cancellation (TERM, grace, KILL) and deadlines (KILL), and after the leader exits stop
// every descendant (group, session, run tag, orphans reparented to us) and bound the output drain.
import { randomHex } from "../digest";
import { closeSync, statSync } from "node:fs";
import { StreamCapture } from "./capture";
import {
  confirmGone,
  DEFAULT_GRACE_MS,
  RUN_TAG_VAR,
  runMatcher,
  stopMatching,
  tagMatches,
  type MatcherFactory,
  type ProcessMatcher,
  type StopReport,
} from "./cleanup";
import { makePipe } from "./libc";
import { OutputPump, StdinWriter } from "./pipes";
import { identityOf } from "./procfs";
import { RunRecorder, runsDir, type OpenRunRecord } from "./run-records";
import { applySubreaperRequest, bunOwnedPids, isSubreaper, reapOrphans } from "./subreaper";
import type { ProcessIdentity, RunningProcess, RunOptions, RunResult } from "./types";

export const DEFAULT_DRAIN_MS = 250;
/** Never handed to a child: they would turn a compiled SCV child into plain bun or change its flags. */
const DROPPED_ENV = ["BUN_OPTIONS", "BUN_BE_BUN"];

export interface ProcessRunner {
  start(opts: RunOptions): RunningProcess;
  run(opts: RunOptions): Promise<RunResult>;
  /** Leader pids Bun still waits for (never reaped by us). */
  readonly spawned: ReadonlySet<number>;
  /** Runs not finished yet. */
  activeRuns(): number;
  /** Reaps zombie orphans when this process is a subreaper; returns the pids reaped. */
  reap(): number[];
  /**
   * From now on, write every run's record under $SCV_HOME/state/runs before its child starts, so a later SCV
   * stops what this one leaves behind if it is killed. `server --stdio`, `exec` and the daemon call this at start.
   */
  recordRunsIn(scvHome: string): void;
  /**
   * Ends every run now: cancels each and skips what is left of its grace (KILL at once). For a process told to
   * stop (SIGTERM) that must be gone within 2 s whatever its children do.
   */
  hurryAll(): void;
}

interface ActiveRun {
  tag: string;
  leader: ProcessIdentity;
  startTicks: number;
  /** Cancels the run if it is not stopping yet, with no grace left. */
  hurry(): void;
}

/**
 * Creates a runner. Its registry (spawned leaders, active runs) decides which reparented orphans belong to
 * which run, so a process should use one runner: the server creates it once (src/process/index.ts keeps
 * the default). Reaping stays safe even with several, because Bun-owned children are also recognised by
 * their pidfds.
 */
export function createProcessRunner(defaults: { graceMs?: number; drainMs?: number; scvHome?: string } = {}): ProcessRunner {
  const spawned = new Set<number>();
  const active = new Set<ActiveRun>();
  let recorder = defaults.scvHome ? new RunRecorder(runsDir(defaults.scvHome)) : undefined;

  /** Orphans reparented to us (we are a subreaper) that belong to `run` rather than to another live run. */
  function orphanMatcher(run: ActiveRun): ProcessMatcher {
    if (!isSubreaper()) return () => false;
    let owned: Set<number> | undefined;
    return (st, tagOf) => {
      if (st.ppid !== process.pid || spawned.has(st.pid)) return false;
      owned ??= bunOwnedPids(); // once per scan
      if (owned.has(st.pid)) return false;
      const tag = tagOf();
      for (const other of active) if (other !== run && tagMatches(tag, other.tag)) return false;
      if (tagMatches(tag, run.tag)) return true;
      // Untagged (or a finished run's tag): ours only if born after our leader and no other live run could own it.
      const born = Number(st.startTime);
      if (born < run.startTicks) return false;
      for (const other of active) if (other !== run && other.startTicks <= born) return false;
      return true;
    };
  }

  function start(opts: RunOptions): RunningProcess {
    validate(opts);
    if (opts.signal?.aborted) throw new DOMException("the run was cancelled before it started", "AbortError");
    const graceMs = opts.graceMs ?? defaults.graceMs ?? DEFAULT_GRACE_MS;
    const drainMs = opts.drainMs ?? defaults.drainMs ?? DEFAULT_DRAIN_MS;
    const tag = opts.tag ?? newTag(opts.env[RUN_TAG_VAR]);
    const began = performance.now();
    // Allocated before the spawn, so nothing can fail between starting a child and managing it.
    const stdout = new StreamCapture(opts.captureBytes);
    const stderr = opts.combined ? undefined : new StreamCapture(opts.captureBytes);

    applySubreaperRequest();
    // Written before the child exists: a SCV killed from here on leaves a record naming the tag.
    let record: OpenRunRecord | undefined;
    try {
      record = recorder?.begin(tag, opts.argv[0]!);
    } catch (e) {
      throw new Error(`cannot record the run in ${recorder!.dir} (${e instanceof Error ? e.message : String(e)}), so it was not started; check that the directory is writable`);
    }
    const out = makePipe();
    const err = opts.combined ? out : makePipe();
    const input = opts.stdin === "pipe" ? makePipe() : undefined;
    const childEnds = [out.write, ...(err !== out ? [err.write] : []), ...(input ? [input.read] : [])];
    const ourEnds = [out.read, ...(err !== out ? [err.read] : []), ...(input ? [input.write] : [])];
    let proc: Bun.Subprocess;
    try {
      proc = Bun.spawn(opts.argv, {
        cwd: opts.cwd,
        env: childEnv(opts.env, tag),
        detached: true, // setsid: new session and group, pgid == sid == pid
        stdin: input ? input.read : "ignore",
        stdout: out.write,
        stderr: err.write,
      });
    } catch (e) {
      closeAll(ourEnds);
      if (record) recorder!.finish(record);
      throw new Error(`cannot start ${JSON.stringify(opts.argv[0])}: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      closeAll(childEnds);
    }
    const pid = proc.pid;
    spawned.add(pid);
    const leader = identityOf(pid) ?? { pid, startTime: "0" };
    const run: ActiveRun = { tag, leader, startTicks: Number(leader.startTime), hurry: () => {
      killNow = true;
      cancel();
    } };
    active.add(run);
    if (record) recorder!.started(record, leader);

    const pumps = [
      new OutputPump(out.read, (c) => {
        stdout.push(c);
        callQuietly(opts.onStdout, c);
      }),
    ];
    if (stderr) {
      pumps.push(
        new OutputPump(err.read, (c) => {
          stderr.push(c);
          callQuietly(opts.onStderr, c);
        }),
      );
    }
    const stdin = input ? new StdinWriter(input.write) : undefined;

    let leaderExited = false;
    let cause: "timeout" | "cancel" | undefined;
    let killNow = false;
    const stopReports: Promise<StopReport>[] = [];
    const matchRun = runMatcher(tag, leader);
    const matchAll: MatcherFactory = () => {
      const orphan = orphanMatcher(run);
      return (st, tagOf) => matchRun(st, tagOf) || orphan(st, tagOf);
    };
    const stopOpts = {
      killNow: () => killNow,
      // Group-signal only while Bun has not reaped the leader: until then its pid cannot be reused.
      group: () => (proc.exitCode === null && proc.signalCode === null ? pid : undefined),
    };

    const stop = (grace: number): Promise<StopReport> =>
      stopMatching(matchAll, { ...stopOpts, graceMs: grace }).catch(() => ({ signalled: [], killed: 0 }));
    const cancel = () => {
      if (leaderExited || cause) return;
      cause = "cancel";
      stopReports.push(stop(graceMs));
    };
    const onAbort = () => cancel();
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    const deadline =
      opts.timeoutMs !== undefined
        ? setTimeout(() => {
            killNow = true; // escalates a cancel or post-exit cleanup already waiting out its grace
            if (leaderExited) return;
            cause ??= "timeout";
            stopReports.push(stop(0));
          }, opts.timeoutMs)
        : undefined;

    const result = (async (): Promise<RunResult> => {
      await proc.exited;
      leaderExited = true;
      const reports = await Promise.all(stopReports); // a cancel or deadline stop still under way
      // The descendants: whatever is still in the group or session, tagged, or orphaned to us.
      reports.push(await stop(killNow ? 0 : graceMs));
      // Done only when two scans in a row find nothing (bounded by the drain time).
      reports.push(...(await confirmGone(matchAll, drainMs, () => stop(killNow ? 0 : graceMs))));
      clearTimeout(deadline);
      opts.signal?.removeEventListener("abort", onAbort);
      const drained = (await Promise.all(pumps.map((p) => p.finish(drainMs)))).every(Boolean);
      stdin?.close();
      spawned.delete(pid);
      active.delete(run);
      if (record) recorder!.finish(record);
      try {
        if (isSubreaper()) reapOrphans(spawned);
      } catch {
        // the daemon's periodic reap catches what this one missed
      }
      const merged = stdout.result();
      return {
        exitCode: proc.exitCode,
        signal: proc.signalCode === null ? null : String(proc.signalCode),
        timedOut: cause === "timeout",
        cancelled: cause === "cancel",
        stdout: merged,
        stderr: stderr ? stderr.result() : emptyCapture(),
        ...(opts.combined ? { combined: merged } : {}),
        durationMs: Math.round(performance.now() - began),
        cleanedUp: countOthers(reports, leader),
        drained,
      };
    })();

    return {
      identity: leader,
      tag,
      ...(stdin ? { stdin: { write: (d: string | Uint8Array) => stdin.write(d), end: () => stdin.end() } } : {}),
      result,
      cancel,
    };
  }

  async function run(opts: RunOptions): Promise<RunResult> {
    if (opts.signal?.aborted) return notStarted(opts);
    return start(opts).result;
  }

  return {
    start,
    run,
    spawned,
    activeRuns: () => active.size,
    reap: () => (isSubreaper() ? reapOrphans(spawned) : []),
    recordRunsIn: (scvHome) => {
      recorder = new RunRecorder(runsDir(scvHome));
    },
    hurryAll: () => {
      for (const run of active) run.hurry();
    },
  };
}

/** A fresh tag; nested below the parent's tag when SCV itself runs inside a run, so cleanup covers the tree. */
export function newTag(parent?: string): string {
  const id = randomHex(8);
  return parent ? `${parent}/${id}` : id;
}

export function childEnv(env: Record<string, string | undefined>, tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && !DROPPED_ENV.includes(k)) out[k] = v;
  out[RUN_TAG_VAR] = tag;
  return out;
}

function validate(opts: RunOptions): void {
  if (!Array.isArray(opts.argv) || opts.argv.length === 0 || !opts.argv[0]) throw new Error("argv must name a program");
  for (const a of opts.argv) {
    if (typeof a !== "string" || a.includes("\0")) throw new Error("every argv element must be a string without NUL bytes");
  }
  if (!(opts.captureBytes > 0 && opts.captureBytes <= 2 ** 30)) throw new Error("captureBytes must be from 1 to 2^30");
  // A timer longer than 2^31-1 ms would fire at once, killing the child immediately.
  if (opts.timeoutMs !== undefined && !(opts.timeoutMs >= 0 && opts.timeoutMs <= 2 ** 31 - 1)) {
    throw new Error("timeoutMs must be from 0 to 2147483647 (about 24.8 days)");
  }
  let isDir = false;
  try {
    isDir = statSync(opts.cwd).isDirectory();
  } catch {
    // reported below
  }
  if (!isDir) throw new Error(`the working directory ${JSON.stringify(opts.cwd)} does not exist or is not a directory`);
}

function notStarted(opts: RunOptions): RunResult {
  return {
    exitCode: null,
    signal: null,
    timedOut: false,
    cancelled: true,
    stdout: emptyCapture(),
    stderr: emptyCapture(),
    ...(opts.combined ? { combined: emptyCapture() } : {}),
    durationMs: 0,
    cleanedUp: 0,
    drained: true,
  };
}

function emptyCapture() {
  return { text: "", totalBytes: 0, totalLines: 0, truncated: false, headBytes: 0, tailBytes: 0, omittedBytes: 0 };
}

function callQuietly(fn: ((c: Uint8Array) => void) | undefined, chunk: Uint8Array): void {
  if (!fn) return;
  try {
    fn(chunk);
  } catch {
    // a caller's progress/parser bug must not stop the capture
  }
}

function closeAll(fds: number[]): void {
  for (const fd of fds) {
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
  }
}

/** Distinct processes signalled across stop passes, not counting the leader. */
function countOthers(reports: StopReport[], leader: ProcessIdentity): number {
  const ids = new Set<string>();
  for (const r of reports) for (const id of r.signalled) ids.add(`${id.pid}:${id.startTime}`);
  ids.delete(`${leader.pid}:${leader.startTime}`);
  return ids.size;
}
