// What the two backends that keep one server per conversation (ACP, nested SCV) share: the server runs through
// the delegation tracker (recorded, listed by `scv agents ps`, killed and reaped like any delegation), its exit
// is collected from the start so one that ends between turns is seen at once, and it is shut down gently.
import type { TrackedRun } from "../process/delegations";
import type { RunResult } from "../process/types";

/** How long a server has to exit once its stdin is closed, and a cancelled turn to settle, before SCV stops it. */
export const LIVE_GRACE_MS = 2000;

/** The run's exit, never rejecting: a run the tracker could not collect reads as one with no exit code. */
export function collectExit(run: TrackedRun): Promise<RunResult> {
  return run.result.catch((e: unknown) => ({
    exitCode: null,
    signal: null,
    timedOut: false,
    cancelled: false,
    durationMs: 0,
    stdout: emptyCapture(),
    stderr: { ...emptyCapture(), text: String(e) },
  }));
}

/** stdin closed (the server exits on EOF), LIVE_GRACE_MS' grace, then the tracker's group stop. */
export async function shutdownGently(run: TrackedRun, exited: Promise<unknown>): Promise<void> {
  await run.stdin?.end().catch(() => {}); // fails only when the server is gone already, which is what this waits for
  const timer = new Promise<"timeout">((r) => setTimeout(() => r("timeout"), LIVE_GRACE_MS).unref());
  if ((await Promise.race([exited, timer])) === "timeout") {
    run.cancel();
    await exited;
  }
}

function emptyCapture() {
  return { text: "", totalBytes: 0, totalLines: 0, truncated: false };
}
