// The one progress throttle: a status line at most every 500 ms (twice a second, as the protocol promises for
// tool.progress and job.progress), the first at once and the latest always last. Its caller keeps the latest
// state; `send` reads it when the throttle lets it through.
export const PROGRESS_INTERVAL_MS = 500;

export interface Throttle {
  /** Something changed: `send` runs now when the interval has passed since it last ran, else once it has. */
  poke(): void;
  /** No more sends, a pending one included. */
  stop(): void;
}

export function throttle(send: () => void, intervalMs = PROGRESS_INTERVAL_MS): Throttle {
  let lastAt = -Infinity;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const run = () => {
    timer = undefined;
    if (stopped) return;
    lastAt = performance.now();
    send();
  };
  return {
    poke() {
      if (stopped || timer) return;
      const wait = lastAt + intervalMs - performance.now();
      if (wait <= 0) return run();
      timer = setTimeout(run, wait);
      timer.unref?.(); // a status line never keeps the process alive
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
