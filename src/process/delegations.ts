// Tracking of delegated runs (agent CLIs, ACP servers, nested SCV): SCV_PARENT/SCV_DELEGATION_DEPTH tags,
// records in $SCV_HOME/state/delegations/<handle>.json, and cleanup when a run ends or is abandoned.
// Records live in ./delegation-records, stopping in ./delegation-stop; this module ties them to the runner.
import { startProcess } from "./index";
import {
  type DelegationRecord,
  bootId,
  cancelRequested,
  currentBtime,
  clearCancelRequest,
  ownerIdentity,
  removeRecord,
  validHandle,
  writeRecord,
} from "./delegation-records";
import { stopDelegations } from "./delegation-stop";
import type { RunOptions, RunResult, RunningProcess } from "./types";

export * from "./delegation-records";
export { scanTagged, stopDelegations } from "./delegation-stop";

export interface DelegationInfo {
  /** Unique per instance, e.g. "codex-3f9a2c" (agent name + random hex). */
  handle: string;
  agent: string;
  /** `mcp` for an MCP server (agent is then the server's name); `command` for a kept background command. */
  kind?: "mcp" | "command";
  /** Not stopped when its session closes (a kept background command): SCV's own exit, or `scv agents kill`, stops it. */
  outlivesSession?: boolean;
  cwd: string;
  /** The SCV conversation handle this run serves (e.g. "codex-2"), and its turn number. */
  conversation?: string;
  turn?: number;
}

export interface TrackedRun<R = RunResult> extends RunningProcess<R> {
  handle: string;
  /** For live agents between turns (nested SCV, ACP): true when a turn ended, false when the next starts. */
  markIdle(idle: boolean): void;
  /** Updates the record's current turn; a new turn also ends the idle state. */
  setTurn(turn: number): void;
  /** A nested SCV's own background jobs still running or unreported (0 removes the field). */
  setBackgroundJobs(count: number): void;
}

/** Separates the links of an inherited SCV_PARENT chain; each link is <instance>/<session>/<handle>. */
export const PARENT_CHAIN_SEPARATOR = ":";

/**
 * The session a delegation starts from, as this module needs it: who it is, where its delegation chain stands,
 * and a way to stop the run when it closes. The session contract (src/scope.ts, SessionScope) is one.
 */
export interface DelegationOrigin {
  sessionId: string;
  instanceId: string;
  scvHome: string;
  env: Readonly<Record<string, string | undefined>>;
  delegationDepth: number;
  /** The session's own delegation limit (SessionScope has it), passed down to the child with the chain's. */
  config?: { agent: { max_delegation_depth: number } };
  onClose(cleanup: () => void | Promise<void>): void;
}

/** Carries the chain's delegation limit to nested SCVs, which read their own config (see maxDelegationDepth). */
export const MAX_DEPTH_VAR = "SCV_MAX_DELEGATION_DEPTH";

/** What maxDelegationDepth reads: the environment and, when there is one, the session's own limit. */
interface DepthSource {
  env: Readonly<Record<string, string | undefined>>;
  config?: { agent: { max_delegation_depth: number } };
}

/**
 * The delegation depth a session may not reach: its own `agent.max_delegation_depth`, or the limit its parent
 * SCV passed down in SCV_MAX_DELEGATION_DEPTH when that is smaller, so a nested SCV whose home allows more
 * never extends the chain past what the top-level user allowed. Undefined when neither is known.
 */
export function maxDelegationDepth(scope: DepthSource): number | undefined {
  const own = scope.config?.agent.max_delegation_depth;
  const raw = scope.env[MAX_DEPTH_VAR]?.trim();
  const inherited = raw && /^\d{1,2}$/.test(raw) ? Number(raw) : undefined;
  if (own === undefined || inherited === undefined) return own ?? inherited;
  return Math.min(own, inherited);
}

/** Environment additions for a delegated child: SCV_PARENT chain, SCV_DELEGATION_DEPTH and the chain's limit. */
export function delegationEnv(scope: Omit<DelegationOrigin, "scvHome" | "onClose">, handle: string): Record<string, string> {
  const own = `${scope.instanceId}/${scope.sessionId}/${handle}`;
  const inherited = scope.env.SCV_PARENT;
  const limit = maxDelegationDepth(scope);
  return {
    SCV_PARENT: inherited ? `${inherited}${PARENT_CHAIN_SEPARATOR}${own}` : own,
    SCV_DELEGATION_DEPTH: String(scope.delegationDepth + 1),
    ...(limit !== undefined ? { [MAX_DEPTH_VAR]: String(limit) } : {}),
  };
}

export function newHandle(agent: string): string {
  const hex = [...crypto.getRandomValues(new Uint8Array(3))].map((b) => b.toString(16).padStart(2, "0")).join("");
  const handle = `${agent}-${hex}`;
  if (!validHandle(handle)) throw new Error(`agent name "${agent}" cannot form a delegation handle (use [a-z0-9._-])`);
  return handle;
}

// Runs of this process that have not finished; SCV exiting stops them the tracked way.
const live = new Map<string, { record: DelegationRecord; scvHome: string; finish: Promise<unknown> }>();
let signalHandling = true;

/**
 * Starts a delegated process through the runner, recorded and cleaned up like every delegation. `start` is how it
 * is spawned: the runner itself, or a confined spawn (src/sandbox's startSandboxed) that uses the runner too.
 */
export function startDelegated(scope: DelegationOrigin, info: DelegationInfo, options: RunOptions): TrackedRun;
export function startDelegated<R extends object>(scope: DelegationOrigin, info: DelegationInfo, options: RunOptions, start: (o: RunOptions) => RunningProcess<R>): TrackedRun<R>;
export function startDelegated(scope: DelegationOrigin, info: DelegationInfo, options: RunOptions, start: (o: RunOptions) => RunningProcess<object> = startProcess): TrackedRun<object> {
  if (!validHandle(info.handle)) throw new Error(`invalid delegation handle "${info.handle}"; use newHandle(agent)`);
  if (live.has(info.handle)) throw new Error(`delegation handle "${info.handle}" is already running`);
  const tags = delegationEnv(scope, info.handle);
  const proc = start({ ...options, env: { ...options.env, ...tags } });
  const owner = ownerIdentity();
  const record: DelegationRecord = {
    handle: info.handle,
    agent: info.agent,
    ...(info.kind ? { kind: info.kind } : {}),
    instance: scope.instanceId,
    session: scope.sessionId,
    cwd: info.cwd,
    depth: scope.delegationDepth + 1,
    scv_parent: tags.SCV_PARENT!,
    run_tag: proc.tag,
    pid: proc.identity.pid,
    start_time: proc.identity.startTime,
    owner_pid: owner.pid,
    owner_start_time: owner.startTime,
    boot_id: bootId(),
    btime: currentBtime(),
    started_unix: Math.floor(Date.now() / 1000),
    ...(info.conversation !== undefined ? { conversation: info.conversation } : {}),
    ...(info.turn !== undefined ? { turn: info.turn } : {}),
  };
  try {
    writeRecord(scope.scvHome, record);
  } catch (e) {
    proc.cancel(); // an untracked agent must not outlive this error
    throw new Error(`could not record delegation ${info.handle}: ${(e as Error).message}`);
  }

  let done = false;
  const cleanup = async () => {
    await stopDelegations([record]);
    // `scv agents kill` from another process leaves a marker before it signals: the caller sees cancelled.
    const external = cancelRequested(scope.scvHome, record.handle);
    removeRecord(scope.scvHome, record.handle);
    clearCancelRequest(scope.scvHome, record.handle);
    done = true;
    live.delete(record.handle);
    syncExitHooks();
    return external;
  };
  // Starts at once, so a run that exits by itself (or is killed from outside) is cleaned up unawaited.
  // A run's own result type (the runner's, or a wrapper's such as the sandbox's) is kept; an external kill marks it cancelled.
  const result: Promise<object> = proc.result.then(
    async (r) => ((await cleanup()) ? { ...r, cancelled: true } : r),
    async (e) => {
      await cleanup();
      throw e;
    },
  );
  const settled = result.then(
    () => {},
    () => {},
  );
  live.set(record.handle, { record, scvHome: scope.scvHome, finish: settled });
  syncExitHooks();

  if (!info.outlivesSession) {
    scope.onClose(async () => {
      if (done) return;
      proc.cancel();
      await settled;
    });
  }

  const rewrite = (change: Partial<DelegationRecord>) => {
    if (done) return;
    Object.assign(record, change);
    for (const key of Object.keys(change) as (keyof DelegationRecord)[]) {
      if (change[key] === undefined) delete record[key];
    }
    try {
      writeRecord(scope.scvHome, record);
    } catch {
      // The record is advisory for ps/status; the run itself goes on.
    }
  };

  return {
    handle: record.handle,
    identity: proc.identity,
    tag: proc.tag,
    stdin: proc.stdin,
    result,
    cancel: () => proc.cancel(),
    markIdle: (idle) => rewrite({ idle_since_unix: idle ? Math.floor(Date.now() / 1000) : undefined }),
    setTurn: (turn) => rewrite({ turn, idle_since_unix: undefined }),
    setBackgroundJobs: (count) => rewrite({ background_jobs: count > 0 ? Math.floor(count) : undefined }),
  };
}

/** Records of this process's runs that have not finished yet (the daemon waits on them for a planned stop). */
export function liveDelegations(): DelegationRecord[] {
  return [...live.values()].map((l) => ({ ...l.record }));
}

/** Stops every unfinished run of this process the tracked way and waits for their records to go. */
export async function stopAllDelegations(): Promise<void> {
  const entries = [...live.values()];
  if (!entries.length) return;
  await stopDelegations(entries.map((e) => e.record));
  await Promise.all(entries.map((e) => e.finish));
}

/**
 * By default a signal that would end SCV (INT, TERM, HUP) first stops its runs, then is re-raised when nobody
 * else listens. The daemon turns this off because it handles those signals itself (a planned stop waits).
 */
export function handleExitSignals(enabled: boolean): void {
  signalHandling = enabled;
  syncExitHooks();
}

const EXIT_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
let hooked = false;
let signalsHooked = false;

function onSignal(signal: NodeJS.Signals) {
  const othersListen = process.listeners(signal).some((l) => l !== onSignal);
  void stopAllDelegations().finally(() => {
    if (othersListen) return; // whoever else listens decides how SCV exits
    for (const s of EXIT_SIGNALS) process.off(s, onSignal);
    signalsHooked = false;
    process.kill(process.pid, signal);
  });
}

// 'exit' cannot await: stop synchronously (TERM, up to 2 s, KILL) so no agent outlives its SCV.
function onExit() {
  for (const { record, scvHome } of live.values()) {
    stopDelegations([record], { sync: true });
    removeRecord(scvHome, record.handle);
    clearCancelRequest(scvHome, record.handle);
  }
  live.clear();
}

function syncExitHooks() {
  const want = live.size > 0;
  if (want !== hooked) {
    if (want) process.on("exit", onExit);
    else process.off("exit", onExit);
    hooked = want;
  }
  const wantSignals = want && signalHandling;
  if (wantSignals !== signalsHooked) {
    for (const s of EXIT_SIGNALS) {
      if (wantSignals) process.on(s, onSignal);
      else process.off(s, onSignal);
    }
    signalsHooked = wantSignals;
  }
}
