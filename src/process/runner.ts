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
import { allProcesses, identityOf, readEnvVar, readStat, type ProcStat } from "./procfs";
import { RunRecorder, runsDir, type OpenRunRecord } from "./run-records";
import { applySubreaperRequest, isBunOwned, isSubreaper, ownChildren, reapOrphans } from "./subreaper";
import type { ProcessIdentity, RunningProcess, RunOptions, RunResult, StartedChild } from "./types";

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

/** What a runner knows across its runs: leaders Bun still waits for, runs not finished, where runs are recorded. */
interface RunnerState {
  spawned: Set<number>;
  active: Set<ActiveRun>;
  recorder?: RunRecorder;
}

type RunnerDefaults = { graceMs?: number; drainMs?: number; scvHome?: string };

/**
 * Creates a runner. Its registry (spawned leaders, active runs) decides which reparented orphans belong to
 * which run, so a process should use one runner: the server creates it once (src/process/index.ts keeps
 * the default). Reaping stays safe even with several, because Bun-owned children are also recognised by
 * their pidfds.
 */
export function createProcessRunner(defaults: RunnerDefaults = {}): ProcessRunner {
  const state: RunnerState = {
    spawned: new Set<number>(),
    active: new Set<ActiveRun>(),
    recorder: defaults.scvHome ? new RunRecorder(runsDir(defaults.scvHome)) : undefined,
  };
  const start = (opts: RunOptions) => startRun(state, defaults, opts);
  return {
    start,
    async run(opts) {
      if (opts.signal?.aborted) return notStarted(opts);
      return start(opts).result;
    },
    spawned: state.spawned,
    activeRuns: () => state.active.size,
    reap: () => (isSubreaper() ? reapOrphans(state.spawned) : []),
    recordRunsIn: (scvHome) => {
      state.recorder = new RunRecorder(runsDir(scvHome));
    },
    hurryAll: () => {
      for (const run of state.active) run.hurry();
    },
  };
}

/** Orphans reparented to us (we are a subreaper) that belong to `run` rather than to another live run. */
function orphanMatcher(state: RunnerState, run: ActiveRun): ProcessMatcher {
  if (!isSubreaper()) return () => false;
  return (st, tagOf) => {
    if (st.ppid !== process.pid || state.spawned.has(st.pid)) return false;
    if (isBunOwned(st.pid, st.startTime)) return false; // the fds are scanned only for a child not known yet
    const tag = tagOf();
    for (const other of state.active) if (other !== run && tagMatches(tag, other.tag)) return false;
    if (tagMatches(tag, run.tag)) return true;
    // Untagged (or a finished run's tag): ours only if born after our leader and no other live run could own it.
    const born = Number(st.startTime);
    if (born < run.startTicks) return false;
    for (const other of state.active) if (other !== run && other.startTicks <= born) return false;
    return true;
  };
}

function startRun(state: RunnerState, defaults: RunnerDefaults, opts: RunOptions): RunningProcess {
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
  const record = openRecord(state.recorder, tag, opts.argv[0]!);
  const { proc, out, err, input } = spawnChild(opts, tag, () => {
    if (record) state.recorder!.finish(record);
  });
  const stdin = input ? new StdinWriter(input.write) : undefined;
  if (stdin && opts.input !== undefined) void stdin.writeAndEnd(opts.input).catch(() => {});
  const pid = proc.pid;
  state.spawned.add(pid);
  const leader = identityOf(pid) ?? { pid, startTime: "0" };
  const run: ActiveRun = { tag, leader, startTicks: Number(leader.startTime), hurry: () => stopper.hurry() };
  state.active.add(run);
  if (record) state.recorder!.started(record, leader);
  // Processes that leave the run's group and session (and maybe its tag: `setsid env -i …`) are found by their
  // parentage while the leader runs, and handed to the death watch and the run record, which they cannot shed.
  const leavers = record ? trackLeavers(state, run, (id) => state.recorder!.member(record, id)) : undefined;

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
  const stopper = new RunStopper(state, run, proc, opts, graceMs);

  const result = (async (): Promise<RunResult> => {
    await proc.exited;
    leavers?.stop();
    const reports = await stopper.afterLeaderExit(drainMs);
    const drained = (await Promise.all(pumps.map((p) => p.finish(drainMs)))).every(Boolean);
    stdin?.close();
    state.spawned.delete(pid);
    state.active.delete(run);
    if (record) state.recorder!.finish(record);
    try {
      if (isSubreaper()) reapOrphans(state.spawned);
    } catch {
      // the daemon's periodic reap catches what this one missed
    }
    const merged = stdout.result();
    return {
      exitCode: proc.exitCode,
      signal: proc.signalCode === null ? null : String(proc.signalCode),
      timedOut: stopper.cause === "timeout",
      cancelled: stopper.cause === "cancel",
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
    cancel: () => stopper.cancel(),
  };
}

const LEAVER_SCAN_MS = 500;

/**
 * Every LEAVER_SCAN_MS while the leader runs: the run's descendants (by parent, from the leader down, and orphans
 * reparented to us that belong to it) outside the leader's session, each reported once.
 */
function trackLeavers(state: RunnerState, run: ActiveRun, report: (id: ProcessIdentity) => void): { stop(): void } {
  const seen = new Set<string>();
  const scan = () => {
    try {
      const all = allProcesses();
      const children = new Map<number, ProcStat[]>();
      for (const st of all) {
        if (st.state === "Z" || st.state === "X") continue;
        const list = children.get(st.ppid);
        if (list) list.push(st);
        else children.set(st.ppid, [st]);
      }
      const orphan = orphanMatcher(state, run);
      const queue = [...(children.get(run.leader.pid) ?? [])];
      for (const st of children.get(process.pid) ?? []) if (orphan(st, () => readEnvVar(st.pid, RUN_TAG_VAR))) queue.push(st);
      for (let st = queue.shift(); st; st = queue.shift()) {
        if (Number(st.startTime) < run.startTicks) continue;
        queue.push(...(children.get(st.pid) ?? []));
        const key = `${st.pid}:${st.startTime}`;
        if (st.sid === run.leader.pid || seen.has(key)) continue;
        seen.add(key);
        report({ pid: st.pid, startTime: st.startTime });
      }
    } catch {
      // a scan is best effort; the next one (or the cleanup's) finds what this one missed
    }
  };
  const timer = setInterval(scan, LEAVER_SCAN_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

function openRecord(recorder: RunRecorder | undefined, tag: string, command: string): OpenRunRecord | undefined {
  try {
    return recorder?.begin(tag, command);
  } catch (e) {
    throw new Error(`cannot record the run in ${recorder!.dir} (${e instanceof Error ? e.message : String(e)}), so it was not started; check that the directory is writable`);
  }
}

/** Spawns the child in a new session on real pipes; our ends stay open for the pumps, the child's are closed. */
function spawnChild(opts: RunOptions, tag: string, onFailure: () => void) {
  const out = makePipe();
  const err = opts.combined ? out : makePipe();
  const input = opts.stdin === "pipe" ? makePipe() : undefined;
  const childEnds = [out.write, ...(err !== out ? [err.write] : []), ...(input ? [input.read] : [])];
  const ourEnds = [out.read, ...(err !== out ? [err.read] : []), ...(input ? [input.write] : [])];
  try {
    const env = childEnv(opts.env, tag);
    const proc: StartedChild = opts.spawn
      ? opts.spawn({ argv: opts.argv, cwd: opts.cwd, env, ...(input ? { stdin: input.read } : {}), stdout: out.write, stderr: err.write })
      : Bun.spawn(opts.argv, {
          cwd: opts.cwd,
          env,
          detached: true, // setsid: new session and group, pgid == sid == pid
          stdin: input ? input.read : "ignore",
          stdout: out.write,
          stderr: err.write,
        });
    return { proc, out, err, input };
  } catch (e) {
    closeAll(ourEnds);
    onFailure();
    throw new Error(`cannot start ${JSON.stringify(opts.argv[0])}: ${e instanceof Error ? e.message : String(e)}`);
  } finally {
    closeAll(childEnds);
  }
}

/**
 * Stopping one run: a cancel (TERM, grace, KILL) or the deadline (KILL) while the leader runs, and after it exits
 * every descendant (group, session, run tag, orphans reparented to us) until none is left.
 */
class RunStopper {
  cause: "timeout" | "cancel" | undefined;
  private leaderExited = false;
  private killNow = false;
  private readonly reports: Promise<StopReport>[] = [];
  private readonly matchAll: MatcherFactory;
  private readonly deadline: ReturnType<typeof setTimeout> | undefined;
  private readonly onAbort = () => this.cancel();

  constructor(
    private readonly state: RunnerState,
    private readonly run: ActiveRun,
    private readonly proc: StartedChild,
    private readonly opts: RunOptions,
    private readonly graceMs: number,
  ) {
    const matchRun = runMatcher(run.tag, run.leader);
    this.matchAll = () => {
      const orphan = orphanMatcher(state, run);
      return (st, tagOf) => matchRun(st, tagOf) || orphan(st, tagOf);
    };
    opts.signal?.addEventListener("abort", this.onAbort, { once: true });
    this.deadline =
      opts.timeoutMs !== undefined
        ? setTimeout(() => {
            this.killNow = true; // escalates a cancel or post-exit cleanup already waiting out its grace
            if (this.leaderExited) return;
            this.cause ??= "timeout";
            this.reports.push(this.stop(0));
          }, opts.timeoutMs)
        : undefined;
  }

  /** Cancels with no grace left (KILL at once), and escalates a stop already waiting out its grace. */
  hurry(): void {
    this.killNow = true;
    this.cancel();
  }

  cancel(): void {
    if (this.leaderExited || this.cause) return;
    this.cause = "cancel";
    this.reports.push(this.stop(this.graceMs));
  }

  /**
   * The descendants once the leader exited: whatever is still in the group or session, tagged, or orphaned to us.
   * Returns what those stops found, the processes that outlived the command; what a cancel or the deadline
   * stopped while the command ran (a `touch` not yet exited, say) was the command itself, and is not counted.
   * As a subreaper, the kernel's own bookkeeping says when that is nothing (see `runMayRemain`): no sleep and no
   * /proc scan unless something escaped, and then one stop pass confirmed the same way. Without it, the stop pass
   * is confirmed by a second scan a moment later (a child forked as its parent exits can hide from one scan).
   */
  async afterLeaderExit(drainMs: number): Promise<StopReport[]> {
    this.leaderExited = true;
    // A cancel or deadline stop still under way: what it stopped was the command itself, and is not counted.
    await Promise.all(this.reports);
    const reports: StopReport[] = [];
    const again = () => this.stop(this.killNow ? 0 : this.graceMs);
    if (isSubreaper()) {
      const until = performance.now() + drainMs;
      // Zombies the stop left (orphans reparented to us) are reaped first: unreaped, they keep the group
      // answering kill(-pgid, 0), and the passes would run out the whole drain for nothing.
      const settled = () => (reapQuietly(this.state.spawned), !runMayRemain(this.state, this.run));
      for (let pass = 0; !settled() && (pass === 0 || performance.now() < until); pass++) reports.push(await again());
    } else {
      reports.push(await again());
      reports.push(...(await confirmGone(this.matchAll, drainMs, again)));
    }
    clearTimeout(this.deadline);
    this.opts.signal?.removeEventListener("abort", this.onAbort);
    return reports;
  }

  private stop(grace: number): Promise<StopReport> {
    const pid = this.proc.pid;
    return stopMatching(this.matchAll, {
      killNow: () => this.killNow,
      // Group-signal only while Bun has not reaped the leader: until then its pid cannot be reused.
      group: () => (this.proc.exitCode === null && this.proc.signalCode === null ? pid : undefined),
      graceMs: grace,
    }).catch(() => ({ signalled: [], killed: 0 }));
  }
}

/**
 * After the leader exited and was reaped, while this process is a subreaper: false when nothing of the run can be
 * alive. Every live descendant of the leader then hangs below a live child of ours (the kernel reparents an
 * orphan to us before its parent becomes a zombie), and every member of the leader's group or session is such a
 * descendant, so the run is over when its group is empty (kill(-pgid, 0) says ESRCH) and none of our children
 * that the run may own is alive. The children are read again after their states: one seen as a zombie may have
 * just handed us its own children.
 */
function runMayRemain(state: RunnerState, run: ActiveRun): boolean {
  try {
    process.kill(-run.leader.pid, 0);
    return true; // a member is left (or, rarely, a new group took the number: the scan tells)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ESRCH") return true;
  }
  let before = ownChildren();
  for (let round = 0; round < 4; round++) {
    let orphan: ProcessMatcher | undefined;
    for (const pid of before) {
      if (state.spawned.has(pid)) continue;
      const st = readStat(pid);
      if (!st || st.state === "Z" || st.state === "X") continue;
      orphan ??= orphanMatcher(state, run);
      if (orphan(st, () => readEnvVar(pid, RUN_TAG_VAR))) return true;
    }
    const after = ownChildren();
    const known = new Set(before);
    if (after.every((pid) => known.has(pid))) return false;
    before = after;
  }
  return true;
}

function reapQuietly(spawned: ReadonlySet<number>): void {
  try {
    reapOrphans(spawned);
  } catch {
    // the reap at the run's end (or the daemon's) catches what this one missed
  }
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
