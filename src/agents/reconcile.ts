// The reconcile pass with what agents own beside it: process/reconcile stops orphaned delegations and runs and
// sweeps leftovers; conversation markers whose SCV process exited are pruned here, since their format belongs
// to ./conversations. The start-up callers and the daemon run this.
import { type ReconcileResult, reconcile } from "../process/reconcile";
import { pruneStaleMarkers } from "./conversations";

export interface FullReconcileResult extends ReconcileResult {
  /** Conversation markers removed because the SCV process that wrote them exited. */
  markersRemoved: number;
  /** Worktree branches of dead jobs removed (nothing unmerged), and those kept to merge or discard. */
  worktreesRemoved?: string[];
  worktreesKept?: string[];
}

export async function reconcileAll(scvHome: string, opts: { graceMs?: number } = {}): Promise<FullReconcileResult> {
  const result = await reconcile(scvHome, opts);
  const markersRemoved = pruneStaleMarkers(scvHome);
  // Worktrees of jobs whose SCV process is gone: removed when nothing in them is unmerged, else kept and listed.
  const { existsSync } = await import("node:fs");
  if (!existsSync(`${scvHome}/worktrees/records`)) return { ...result, markersRemoved };
  const { reconcileWorktrees } = await import("./worktree");
  const { removed, kept } = reconcileWorktrees(scvHome, (pid) => pid === process.pid || existsSync(`/proc/${pid}`));
  return { ...result, markersRemoved, worktreesRemoved: removed.map((r) => r.branch), worktreesKept: kept.map((r) => r.branch) };
}

/** The start-up pass for `scv server --stdio`, `scv exec` and the TUI: never throws, so start-up never fails on it. */
export async function reconcileAtStartup(scvHome: string): Promise<FullReconcileResult> {
  try {
    return await reconcileAll(scvHome);
  } catch {
    return { stopped: [], markersRemoved: 0, runsStopped: [], tempFilesRemoved: 0 };
  }
}
