// The durable inbound side of one channel account: deduplication by platform message ID and the queue of
// messages not yet answered. A message is written here (fsync, atomic) before the adapter may acknowledge it,
// so neither a crash nor a redelivery loses or repeats one. State lives in $SCV_HOME/state/channels/<kind>/<account>/.
import { join } from "node:path";
import type { LoggedFile } from "../../chatlog/log";
import { ensurePrivateDir, tryUnlink, writePrivateFileAtomic } from "../../fs/private-file";
import { MiB } from "../../fs/safe-read";
import { readRecord, recordFileNames, sequenceId } from "./record-files";
import { SeenLog } from "./seen-log";

export interface QueuedInbound {
  /** Sorts in arrival order. */
  seq: string;
  id: string;
  conversation: string;
  from: string;
  direct: boolean;
  text: string;
  quote?: string;
  transcript?: string;
  /** A voice message to turn into text before its turn (the saved audio file), and what came of it. */
  voice?: { path?: string; name: string; seconds?: number; done?: "text" | "failed" | "off"; error?: string };
  files: LoggedFile[];
  received: string;
  /** `running` once its turn started: after a restart such a message is reported as interrupted, not re-run. */
  state: "queued" | "running";
  /** A schedule's fire (its ID is the fire's): answered unprompted, not as a reply to a platform message. */
  scheduled?: string;
  /** A schedule fire's heading, put before its reply (the reminder's own words). */
  heading?: string;
}

/** Where one channel account keeps its state: the core's inbound store, and whatever its adapter stores. */
export function channelStateDir(scvHome: string, kind: string, account: string): string {
  return join(scvHome, "state", "channels", kind, account);
}

/** How many platform IDs the dedupe log remembers (the newest). */
const SEEN_KEEP = 10_000;

export class InboundStore {
  private readonly queueDir: string;
  private readonly seen: SeenLog;
  private counter = 0;

  constructor(
    readonly dir: string,
    private readonly log: (line: string) => void = () => {},
  ) {
    this.queueDir = join(dir, "queue");
    ensurePrivateDir(this.queueDir);
    this.seen = new SeenLog(join(dir, "seen.jsonl"), {
      keep: SEEN_KEEP,
      idsPerRecord: 1,
      what: "dedupe log",
      maxBytes: 64 * MiB,
      // A crash between queueing and logging the ID: the queued record still counts as seen.
      alsoSeen: () => this.list().map((q) => q.id),
    });
  }

  has(id: string): boolean {
    return this.seen.has(id);
  }

  /** Durably queues a message and remembers its ID; call only for an ID not seen. */
  add(message: Omit<QueuedInbound, "seq" | "state" | "received">): QueuedInbound {
    const seq = sequenceId(++this.counter);
    const record: QueuedInbound = { ...message, seq, state: "queued", received: new Date().toISOString() };
    writePrivateFileAtomic(join(this.queueDir, `${seq}.json`), JSON.stringify(record));
    this.seen.add(message.id);
    return record;
  }

  /** Remembers an ID as seen without queueing it (a message not answered on purpose): a redelivery is dropped. */
  skip(id: string): void {
    this.seen.add(id);
  }

  update(record: QueuedInbound): void {
    writePrivateFileAtomic(join(this.queueDir, `${record.seq}.json`), JSON.stringify(record));
  }

  remove(record: QueuedInbound): void {
    tryUnlink(join(this.queueDir, `${record.seq}.json`));
  }

  /** Every queued message, oldest first; an unreadable record is moved aside (see readRecord). */
  list(): QueuedInbound[] {
    const out: QueuedInbound[] = [];
    for (const name of recordFileNames(this.queueDir)) {
      const record = readRecord(this.queueDir, name, { what: "queued message", maxBytes: 16 * MiB, valid: isQueuedInbound, log: this.log });
      if (record) out.push(record);
    }
    return out;
  }
}

function isQueuedInbound(r: unknown): r is QueuedInbound {
  const q = r as QueuedInbound;
  return (
    typeof q?.seq === "string" &&
    typeof q.id === "string" &&
    typeof q.conversation === "string" &&
    typeof q.from === "string" &&
    typeof q.direct === "boolean" &&
    typeof q.text === "string" &&
    Array.isArray(q.files) &&
    (q.state === "queued" || q.state === "running")
  );
}
