/** Polls `probe` until it returns a value (not undefined), failing with `what` when `ms` passes. */
export async function until<T>(what: string, probe: () => T | undefined, ms = 25_000, everyMs = 20): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(everyMs);
  }
}
