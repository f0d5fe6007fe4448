// The durable queues (inbound messages, deliveries, Feishu's spooled events) keep one JSON file per record in a
// directory, named so that sorting the names gives arrival order.
import { readdirSync } from "node:fs";

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
