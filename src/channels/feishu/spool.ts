// The durable spool between Feishu's pushes and the core: a pushed event is written here (fsync, atomic) and
// only then acknowledged, so the acknowledgement never waits for downloads; a worker hands events on in
// arrival order and removes each once the core has queued it. Event and message IDs seen are remembered
// (bounded, across restarts), so a repeated push is acknowledged and dropped without a second download.
import { join } from "node:path";
import { ensurePrivateDir, tryUnlink, writePrivateFileAtomic } from "../../fs/private-file";
import { MiB } from "../../fs/safe-read";
import { safeFileName } from "../core/media";
import { readRecord, recordFileNames } from "../core/record-files";
import { SeenLog } from "../core/seen-log";
import { Wakeable } from "../core/sleep";

export interface SpooledEvent {
  event_id: string;
  received: number;
  sender: { sender_id?: { open_id?: string }; sender_type?: string };
  message: { message_id: string; chat_id: string; chat_type: string; message_type: string; content: string; mentions?: any[]; parent_id?: string };
}

function isSpooledEvent(r: unknown): r is SpooledEvent {
  const e = r as SpooledEvent;
  return typeof e?.event_id === "string" && typeof e.message?.message_id === "string" && typeof e.message.chat_id === "string";
}

/** How many events' IDs the dedupe log keeps (the core dedupes message IDs for good). */
const SEEN_KEEP = 5000;

export class EventSpool {
  private readonly queueDir: string;
  private readonly seen: SeenLog;
  /** Woken when an event is spooled. */
  private readonly idle = new Wakeable();

  constructor(dir: string, keep = SEEN_KEEP) {
    this.queueDir = join(dir, "events");
    ensurePrivateDir(this.queueDir);
    // One record per event: its event and message IDs.
    this.seen = new SeenLog(join(dir, "events-seen.jsonl"), { keep, idsPerRecord: 2, what: "Feishu dedupe log", maxBytes: 16 * MiB });
  }

  seenBefore(event: Pick<SpooledEvent, "event_id" | "message">): boolean {
    return this.seen.has(`e:${event.event_id}`) || this.seen.has(`m:${event.message.message_id}`);
  }

  /** Durably spools an event not seen before; throws when it cannot be written. */
  add(event: SpooledEvent): void {
    writePrivateFileAtomic(join(this.queueDir, `${String(event.received).padStart(15, "0")}-${safeFileName(event.event_id)}.json`), JSON.stringify(event));
    this.seen.add(`e:${event.event_id}`, `m:${event.message.message_id}`);
    this.idle.wake();
  }

  /**
   * Hands spooled events to `handle` in arrival order until `signal` aborts; an event leaves the spool when
   * `handle` resolves. One that throws waits (with the ones after it) and is tried again.
   */
  async run(signal: AbortSignal, handle: (event: SpooledEvent) => Promise<void>, log: (line: string) => void): Promise<void> {
    while (!signal.aborted) {
      let retryLater = false;
      for (const name of recordFileNames(this.queueDir)) {
        if (signal.aborted) break;
        const file = join(this.queueDir, name);
        const event = readRecord(this.queueDir, name, { what: "spooled Feishu event", maxBytes: 4 * MiB, valid: isSpooledEvent, log });
        if (!event) continue;
        try {
          await handle(event);
          tryUnlink(file);
        } catch (e) {
          log(`event ${event.event_id} waits in the spool: ${(e as Error).message}`);
          retryLater = true;
          break; // keep the order: this event goes before later ones
        }
      }
      await this.idle.wait(retryLater ? 2000 : 1000, signal);
    }
  }
}
