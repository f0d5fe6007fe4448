// The reconcile pass with what agents own beside it: process/reconcile stops orphaned delegations and runs and
// sweeps leftovers; conversation markers whose SCV process exited are pruned here, since their format belongs
// to ./conversations. The start-up callers and the daemon run this.
import { type ReconcileResult, reconcile } from "../process/reconcile";
import { pruneStaleMarkers } from "./conversations";

export interface FullReconcileResult extends ReconcileResult {
  /** Conversation markers removed because the SCV process that wrote them exited. */
  markersRemoved: number;
}

export async function reconcileAll(scvHome: string, opts: { graceMs?: number } = {}): Promise<FullReconcileResult> {
  const result = await reconcile(scvHome, opts);
  return { ...result, markersRemoved: pruneStaleMarkers(scvHome) };
}

/** The start-up pass for `scv server --stdio`, `scv exec` and the TUI: never throws, so start-up never fails on it. */
export async function reconcileAtStartup(scvHome: string): Promise<FullReconcileResult> {
  try {
    return await reconcileAll(scvHome);
  } catch {
    return { stopped: [], markersRemoved: 0, runsStopped: [], tempFilesRemoved: 0 };
  }
}
