// The process runner's public surface. Every child SCV starts (bash, agent CLIs, ACP servers, nested SCV)
// goes through startProcess/runProcess. Children carry SCV_RUN_TAG=<tag> (nested runs: <parent-tag>/<id>),
// which cleanup uses to find descendants that left the process group or session.
import { createProcessRunner, type ProcessRunner } from "./runner";
import type { RunningProcess, RunOptions, RunResult } from "./types";

export type { CapturedStream, ChildSpec, ProcessIdentity, RunningProcess, RunOptions, RunResult, StartedChild } from "./types";
export { createProcessRunner, newTag, childEnv, DEFAULT_DRAIN_MS, type ProcessRunner } from "./runner";
export { cleanupTagged, killIdentity, tagMatches, RUN_TAG_VAR, DEFAULT_GRACE_MS, type StopReport } from "./cleanup";
export { becomeSubreaper, isSubreaper, reapOrphans, requestSubreaper } from "./subreaper";
export { identityOf, isAlive } from "./procfs";

// Module state, on purpose: which children are ours (and which orphans the kernel reparented to us) is a
// per-process fact, so the process has one registry. Code that wants its own instance (tests) can call
// createProcessRunner(); everyone else shares this one.
let shared: ProcessRunner | undefined;

export function defaultRunner(): ProcessRunner {
  return (shared ??= createProcessRunner());
}

/** Starts a child; throws when it cannot start (missing program or cwd, bad argv, already cancelled). */
export function startProcess(opts: RunOptions): RunningProcess {
  return defaultRunner().start(opts);
}

/** Records every later run of the shared runner under $SCV_HOME/state/runs (see ProcessRunner.recordRunsIn). */
export function recordRunsIn(scvHome: string): void {
  defaultRunner().recordRunsIn(scvHome);
}

/** Ends every run of the shared runner at once (see ProcessRunner.hurryAll). */
export function hurryAllRuns(): void {
  shared?.hurryAll();
}

/** Runs a child to completion; a signal already aborted gives a `cancelled` result without starting anything. */
export function runProcess(opts: RunOptions): Promise<RunResult> {
  return defaultRunner().run(opts);
}
