// The heavy half of `server --stdio`, loaded while the fast path answers `initialize`: the configuration check
// (the server refuses to start on a bad config) and the protocol connection.
import { ConfigError, loadConfig, scvHome } from "../config/load";
import { recordRunsIn } from "../process/index";
import { requestSubreaper } from "../process/subreaper";
import { openSessionStore, type SessionStore } from "../sessions/index";
import { createServerConnection, type ServerConnection } from "./server";

const RECONCILE_DELAY_MS = 200;

export async function openStdioConnection(opts: { baseDepth: number; send(message: unknown): Promise<void> }): Promise<ServerConnection> {
  let keepDays: number;
  try {
    keepDays = loadConfig({ cwd: process.cwd() }).config.sessions.keep_days;
  } catch (e) {
    if (e instanceof ConfigError) throw new Error(`configuration error, not starting:\n${e.message}`);
    throw e;
  }
  return createServerConnection({ send: opts.send, baseDepth: opts.baseDepth, sessions: startServing(keepDays) });
}

/**
 * What a long-running server process does once at its start (`server --stdio`, `acp`): it becomes the
 * subreaper of what its runs start, records every run, stops what a dead SCV left, and opens the session store,
 * pruning sessions older than `keepDays` (none when undefined).
 */
export function startServing(keepDays: number | undefined): SessionStore {
  // On Linux, descendants that escape a run (setsid with a cleared environment) reparent to this process (from
  // the first child on: binding libc is left until then, off the start-up path), so
  // the runner finds and stops them after the run; it reaps only those exact pids, never waitpid(-1).
  requestSubreaper();
  // Orphans left by an SCV process that died (say, a SIGKILLed server) are stopped; not awaited, since
  // stopping one can take the 2 s grace and the client should not wait for it.
  recordRunsIn(scvHome()); // every run is recorded before it starts, so a later SCV can stop what a killed one left
  // The pass starts shortly after start, not at once: loading it (delegation, run and conversation records with
  // their zod schemas) and walking the state directories would otherwise sit between a nested child's spawn and
  // its first model request. A server that exits sooner leaves the orphans to the next SCV's pass.
  const home = scvHome();
  setTimeout(() => void import("../agents/reconcile").then((m) => m.reconcileAtStartup(home)), RECONCILE_DELAY_MS).unref();
  const sessions = openSessionStore({ home: scvHome() });
  // Pruning walks every stored session (one stat each), so it waits like the reconcile pass; sessions this
  // server has open are never pruned.
  if (keepDays !== undefined) setTimeout(() => sessions.prune(keepDays), RECONCILE_DELAY_MS).unref();
  return sessions;
}
