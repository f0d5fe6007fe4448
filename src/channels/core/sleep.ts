// Channels wait between polls, retries and pieces of work for as long as the daemon runs: a wait ends the
// moment the channel stops, and leaves no listener behind on the long-lived stop signal (one per loop would
// pile up, and slow every later addEventListener, over months).

/** Resolves after `ms`, or at once when `signal` aborts (or already has). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** A wait that `wake()` cuts short: a worker loop idles on it until new work arrives. */
export class Wakeable {
  private wakeUp?: () => void;

  wake(): void {
    this.wakeUp?.();
  }

  /** Waits `ms`, or less when woken or when `signal` aborts. */
  wait(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener("abort", done, { once: true });
      this.wakeUp = done;
    });
  }
}
