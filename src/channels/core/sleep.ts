// Adapters wait between polls and retries for as long as the daemon runs: a wait must end the moment the
// channel stops, and must leave no listener behind on the long-lived stop signal.

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
