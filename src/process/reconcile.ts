// Orphan reconcile: a delegation record whose owning SCV process is gone (PID gone, or its start time or boot
// differs) is an orphan; its group and tagged processes are stopped and the record removed. `scv server --stdio`,
// `scv exec` and the TUI run one pass at start, the daemon one at start and every 60 s; beside it they prune the
// stale conversation markers agents own (src/agents/reconcile.ts puts the two together).
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { z } from "zod";
import { lazySchema } from "../lazy-schema";
import {
  type DelegationRecord,
  delegationsDir,
  ensurePrivateDir,
  listRecords,
  ownerAlive,
  readStateJson,
  readRecord,
  removeRecord,
  requestCancel,
  stateDir,
  tryUnlink,
  clearCancelRequest,
  writePrivateFileAtomic,
} from "./delegation-records";
import { stopDelegations, stoppableRun } from "./delegation-stop";
import { sweepOwnedFiles, sweepPrivateTmps } from "./owned-files";
import { killIdentity } from "./cleanup";
import { listRunRecords, runOwnerAlive, staleRunFiles } from "./run-records";

export interface ReconcileResult {
  /** Handles of the orphans this pass stopped and removed. */
  stopped: string[];
  /** Temporary files (say, a killed `write`'s) removed because the SCV process that made them is gone. */
  tempFilesRemoved: number;
  /** Run tags of other runs (bash calls, helpers) whose owner was gone: their groups and tagged processes were stopped. */
  runsStopped: string[];
}

/** Records whose owning SCV process no longer runs. */
export function findOrphans(scvHome: string): DelegationRecord[] {
  return listRecords(scvHome).filter((r) => !ownerAlive(r));
}

/** Stops the orphans the tracked way and removes their records; returns the handles whose record this call removed. */
export async function stopOrphans(scvHome: string, orphans: readonly DelegationRecord[], opts: { graceMs?: number } = {}): Promise<string[]> {
  if (!orphans.length) return [];
  await stopDelegations(orphans, opts);
  const removed: string[] = [];
  for (const rec of orphans) {
    clearCancelRequest(scvHome, rec.handle);
    if (removeRecord(scvHome, rec.handle)) removed.push(rec.handle);
  }
  if (removed.length) addToStats(scvHome, removed.length);
  return removed;
}

/** Stops the runs recorded by the runner whose owning SCV process is gone, then removes their records. */
export async function stopOrphanRuns(scvHome: string, opts: { graceMs?: number } = {}): Promise<string[]> {
  const orphans = listRunRecords(scvHome).filter((r) => !runOwnerAlive(r.record));
  if (!orphans.length) return [];
  await stopDelegations(
    orphans.map((o) => stoppableRun(o.record)),
    opts,
  );
  // Processes that left the run's group, session and tag, by the identity the runner recorded.
  await Promise.all(orphans.flatMap((o) => (o.record.members ?? []).map((m) => killIdentity({ pid: m.pid, startTime: m.start_time }, opts.graceMs))));
  return orphans.filter((o) => tryUnlink(o.file)).map((o) => o.record.run_tag);
}

/** One pass: stop orphans and orphaned runs, drop leftover records and temporary files. */
export async function reconcile(scvHome: string, opts: { graceMs?: number } = {}): Promise<ReconcileResult> {
  const stopped = await stopOrphans(scvHome, findOrphans(scvHome), opts);
  const runsStopped = await stopOrphanRuns(scvHome, opts);
  removeLeftovers(scvHome);
  const tempFilesRemoved = sweepOwnedFiles(scvHome) + sweepPrivateTmps();
  return { stopped, runsStopped, tempFilesRemoved };
}

export type KillOutcome =
  | { killed: true; handle: string; orphan: boolean; recordRemoved: boolean }
  | { killed: false; handle: string; reason: string };

/**
 * `scv agents kill` from any SCV process. With a live owner it first leaves a cancel-requested marker, so the
 * owner, seeing its run end, reports `cancelled` to its caller and removes the record itself; an orphan's
 * record is removed here. Either way the group and tagged processes are stopped the tracked way.
 */
export async function killDelegation(scvHome: string, handle: string, opts: { graceMs?: number; ownerWaitMs?: number } = {}): Promise<KillOutcome> {
  const rec = readRecord(scvHome, handle);
  if (!rec) return { killed: false, handle, reason: `no running delegation named "${handle}" (see scv agents ps --all)` };
  if (!ownerAlive(rec)) {
    const removed = await stopOrphans(scvHome, [rec], opts);
    return { killed: true, handle, orphan: true, recordRemoved: removed.includes(handle) };
  }
  requestCancel(scvHome, handle);
  await stopDelegations([rec], opts);
  const deadline = Date.now() + (opts.ownerWaitMs ?? 5000);
  while (readRecord(scvHome, handle) && Date.now() < deadline && ownerAlive(rec)) await Bun.sleep(20);
  if (readRecord(scvHome, handle) && !ownerAlive(rec)) removeRecord(scvHome, handle);
  return { killed: true, handle, orphan: false, recordRemoved: !readRecord(scvHome, handle) };
}

// Cancel markers without a record, and temporary files a crashed writer left (older than a minute).
function removeLeftovers(scvHome: string) {
  for (const file of staleRunFiles(scvHome)) tryUnlink(file);
  const dir = delegationsDir(scvHome);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  const records = new Set(names.filter((n) => n.endsWith(".json")).map((n) => n.slice(0, -5)));
  const now = Date.now();
  for (const name of names) {
    const file = join(dir, name);
    if (name.endsWith(".cancel-requested") && !records.has(name.slice(0, -".cancel-requested".length))) {
      tryUnlink(file);
    } else if (name.startsWith(".") && name.endsWith(".tmp")) {
      removeIfOlder(file, now);
    }
  }
}

function removeIfOlder(file: string, now: number) {
  try {
    if (now - statSync(file).mtimeMs > 60_000) tryUnlink(file);
  } catch {}
}

export const ReconcileStats = lazySchema((z) => z.object({
  orphans_stopped_total: z.number().int().nonnegative().default(0),
  last_stopped_unix: z.number().optional(),
}));
export type ReconcileStats = z.infer<typeof ReconcileStats>;

const statsPath = (scvHome: string) => join(stateDir(scvHome), "reconcile.json");

/** How many orphans any SCV process of this home has stopped (what `scv status` shows without a daemon). */
export function readReconcileStats(scvHome: string): ReconcileStats {
  try {
    const parsed = ReconcileStats.safeParse(readStateJson(statsPath(scvHome), "reconcile statistics"));
    if (parsed.success) return parsed.data;
  } catch {}
  return { orphans_stopped_total: 0 };
}

function addToStats(scvHome: string, count: number) {
  try {
    const stats = readReconcileStats(scvHome);
    ensurePrivateDir(stateDir(scvHome));
    const next = { orphans_stopped_total: stats.orphans_stopped_total + count, last_stopped_unix: Math.floor(Date.now() / 1000) };
    writePrivateFileAtomic(statsPath(scvHome), `${JSON.stringify(next)}\n`);
  } catch {
    // A count is informational; losing one must not fail the reconcile.
  }
}
