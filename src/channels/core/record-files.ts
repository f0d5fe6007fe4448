// The durable queues (inbound messages, deliveries, Feishu's spooled events) keep one JSON file per record in a
// directory, named so that sorting the names gives arrival order.
import { readdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import { ensurePrivateDir } from "../../fs/private-file";
import { readBoundedTextIfExists } from "../../fs/safe-read";

/** A name part that sorts in arrival order: the time, then `n` (a per-store counter) for the same millisecond. */
export function sequenceId(n: number): string {
  return `${String(Date.now()).padStart(15, "0")}-${String(n % 1e6).padStart(6, "0")}`;
}

/** The record files in `dir`, oldest first; dot-files are the atomic writer's temporaries. */
export function recordFileNames(dir: string): string[] {
  try {
    return readdirSync(dir).filter((n) => n.endsWith(".json") && !n.startsWith(".")).sort();
  } catch {
    return [];
  }
}

/**
 * One record of a durable queue, or undefined after moving an unreadable one aside (too large, not JSON, not
 * the expected shape) to `<dir>/../unreadable/`, with a log line: one bad file never blocks the queue, the
 * daemon's start or `channels status`, and nothing is silently deleted.
 */
export function readRecord<T>(dir: string, name: string, opts: { what: string; maxBytes: number; valid(r: unknown): r is T; log(line: string): void }): T | undefined {
  const file = join(dir, name);
  let problem: string;
  try {
    const text = readBoundedTextIfExists(file, { what: opts.what, maxBytes: opts.maxBytes, followSymlink: false });
    if (text === undefined) return undefined; // taken meanwhile
    const record: unknown = JSON.parse(text);
    if (opts.valid(record)) return record;
    problem = "not the expected shape";
  } catch (e) {
    problem = e instanceof SyntaxError ? `not valid JSON (${e.message})` : (e as Error).message;
  }
  const aside = join(dir, "..", "unreadable");
  try {
    ensurePrivateDir(aside);
    renameSync(file, join(aside, name));
    opts.log(`moved an unreadable ${opts.what} aside to ${join(aside, name)}: ${problem}`);
  } catch (e) {
    opts.log(`cannot move the unreadable ${opts.what} ${file} aside (${(e as Error).message}); skipped it: ${problem}`);
  }
  return undefined;
}
