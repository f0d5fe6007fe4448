// The durable outbox: every message SCV sends to a chat is first a delivery record in
// $SCV_HOME/state/channels/outbox/ (0600, atomic), with its files copied to $SCV_HOME/state/media/outbox.
// A sender loop delivers records in order per conversation, retries with doubling backoff, holds what the
// adapter asks it to hold, and tells the owner about a final failure in the next message that gets through.
import { copyFileSync, lstatSync, readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { randomBytes } from "node:crypto";
import { outboxMediaDir } from "../../chatlog/paths";
import { ensurePrivateDir, tryUnlink, writePrivateFileAtomic } from "../../fs/private-file";
import { MiB } from "../../fs/safe-read";
import { readRecord } from "./record-files";
import type { Button, ChannelAdapter, OutboundFile, SendResult } from "./adapter";
import { sequenceId } from "./record-files";
import { Wakeable } from "./sleep";
import { ellipsize } from "../../text/cut";

export interface DeliveryRecord {
  /** Also the idempotency key of every attempt. */
  id: string;
  seq: string;
  /** `<kind>/<account>` */
  channel: string;
  conversation: string;
  text: string;
  files: OutboundFile[];
  inReplyTo?: string;
  buttons?: Button[][];
  state: "pending" | "held" | "sent" | "failed";
  attempts: number;
  nextAt: number;
  /** Not sent before this time (the owner's quiet hours); it waits without holding up the conversation's other messages. */
  notBefore?: number;
  lastError?: string;
  heldReason?: string;
  created: string;
  sentAt?: string;
}

export interface OutboxOptions {
  scvHome: string;
  maxAttempts: number;
  retryBaseMs: number;
  adapter(channel: string): ChannelAdapter | undefined;
  /** Whether the channel can send now (connected). */
  ready(channel: string): boolean;
  log(line: string): void;
  /** A record reached its end: sent (with the text that went out) or failed for good. */
  onSettled?(record: DeliveryRecord): void;
  /** Sent records kept as tombstones at most (default TOMBSTONES_KEPT; tests set fewer). */
  tombstones?: number;
}

const MAX_BACKOFF_MS = 600_000;

function isDeliveryRecord(r: unknown): r is DeliveryRecord {
  const d = r as DeliveryRecord;
  return typeof d?.id === "string" && typeof d.channel === "string" && typeof d.conversation === "string" && typeof d.text === "string" && Array.isArray(d.files) && typeof d.state === "string";
}
/** Sent records stay as tombstones this long, so a restart can tell a reply that already went out. */
const TOMBSTONE_MS = 7 * 86_400_000;
/**
 * And only the newest this many, in memory and on disk: a restart repeats at most the steps that were running, and
 * a daemon that sends for months would otherwise keep (and sort, every tick) a record per reply it ever sent.
 */
const TOMBSTONES_KEPT = 1000;

/** The longest the sender rests with nothing due: a safety net only, since every change that makes a record sendable wakes it. */
const IDLE_WAIT_MS = 30_000;

export class Outbox {
  readonly dir: string;
  readonly mediaDir: string;
  private readonly records = new Map<string, DeliveryRecord>();
  private readonly inFlight = new Set<string>();
  private readonly lastError = new Map<string, string>();
  private counter = 0;
  private readonly idle = new Wakeable();
  /** IDs of sent records (tombstones), oldest first. */
  private readonly sentOrder: string[] = [];

  /** Build it before any session runs: it removes outbox copies that no record holds. */
  constructor(private readonly opts: OutboxOptions) {
    this.dir = join(opts.scvHome, "state", "channels", "outbox");
    this.mediaDir = outboxMediaDir(opts.scvHome);
    ensurePrivateDir(this.dir);
    ensurePrivateDir(this.mediaDir);
    for (const name of readdirSync(this.dir).filter((n) => n.endsWith(".json") && !n.startsWith("."))) {
      const r = readRecord(this.dir, name, { what: "delivery record", maxBytes: 16 * MiB, valid: isDeliveryRecord, log: opts.log });
      if (!r) continue;
      if (r.state === "sent" && Date.now() - Date.parse(r.sentAt ?? r.created) > TOMBSTONE_MS) tryUnlink(join(this.dir, name));
      else this.records.set(r.id, r);
    }
    const sent = [...this.records.values()].filter((r) => r.state === "sent");
    sent.sort((a, b) => Date.parse(a.sentAt ?? a.created) - Date.parse(b.sentAt ?? b.created));
    this.sentOrder.push(...sent.map((r) => r.id));
    this.pruneTombstones();
    // Copies no record holds (a turn cut off before its reply was queued) would otherwise stay forever.
    const held = new Set([...this.records.values()].flatMap((r) => r.files.map((f) => f.path)));
    for (const name of readdirSync(this.mediaDir)) if (!held.has(join(this.mediaDir, name))) tryUnlink(join(this.mediaDir, name));
  }

  /** A record with this ID exists (pending, held, failed, or recently sent). */
  known(id: string): boolean {
    return this.records.has(id);
  }

  /** Copies a file into the outbox media directory (0600) for a message about to be queued. */
  stage(source: string, name = basename(source)): OutboundFile {
    const path = join(this.mediaDir, `${randomBytes(6).toString("hex")}-${name.replace(/[^\w.-]/g, "_").slice(-100)}`);
    copyFileSync(source, path);
    return { path, name };
  }

  /** Queues a message; an ID already known (a step repeated after a crash) keeps the existing record. */
  add(message: { id?: string; channel: string; conversation: string; text: string; files?: OutboundFile[]; inReplyTo?: string; buttons?: Button[][]; notBefore?: number }): DeliveryRecord {
    const existing = message.id ? this.records.get(message.id) : undefined;
    if (existing) {
      for (const f of message.files ?? []) this.discard(f.path);
      return existing;
    }
    const seq = sequenceId(++this.counter);
    const record: DeliveryRecord = {
      id: message.id ?? `m-${randomBytes(8).toString("hex")}`,
      seq,
      channel: message.channel,
      conversation: message.conversation,
      text: message.text,
      files: message.files ?? [],
      ...(message.inReplyTo ? { inReplyTo: message.inReplyTo } : {}),
      ...(message.buttons?.length ? { buttons: message.buttons } : {}),
      ...(message.notBefore && message.notBefore > Date.now() ? { notBefore: message.notBefore } : {}),
      state: "pending",
      attempts: 0,
      nextAt: 0,
      created: new Date().toISOString(),
    };
    this.save(record);
    this.wake();
    return record;
  }

  /** Removes a staged copy that will not be sent. */
  discard(path: string): void {
    if (isOutboxFile(path, this.mediaDir)) tryUnlink(path);
  }

  release(channel: string, conversation?: string): void {
    for (const r of this.records.values()) {
      if (r.channel !== channel || r.state !== "held" || (conversation && r.conversation !== conversation)) continue;
      r.state = "pending";
      r.nextAt = 0;
      delete r.heldReason;
      this.save(r);
    }
    this.wake();
  }

  counts(channel: string): { pending: number; held: number; failed: number; last_error?: string } {
    const out = { pending: 0, held: 0, failed: 0 } as { pending: number; held: number; failed: number; last_error?: string };
    for (const r of this.records.values()) {
      if (r.channel !== channel) continue;
      if (r.state === "pending") out.pending++;
      else if (r.state === "held") out.held++;
      else if (r.state === "failed") out.failed++;
    }
    const err = this.lastError.get(channel);
    if (err) out.last_error = err;
    return out;
  }

  /** Unsent records (pending or held), for planned restarts and tests. */
  unsent(): number {
    return [...this.records.values()].filter((r) => r.state === "pending" || r.state === "held").length;
  }

  wake(): void {
    this.idle.wake();
  }

  /** The sender loop; returns when `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      this.tick();
      const due = this.nextDue();
      // Adding, releasing and a channel connecting wake it; with nothing due it rests (an idle daemon for months).
      await this.idle.wait(Math.max(20, Math.min(due - Date.now(), IDLE_WAIT_MS)), signal);
    }
    while (this.inFlight.size) await Bun.sleep(20);
  }

  private nextDue(): number {
    let due = Date.now() + IDLE_WAIT_MS;
    for (const r of this.records.values()) if (r.state === "pending" && Math.max(r.nextAt, r.notBefore ?? 0) < due) due = Math.max(r.nextAt, r.notBefore ?? 0);
    return due;
  }

  /** Starts one send per channel whose oldest unsent record for some conversation is due. */
  private tick() {
    const heads = new Map<string, DeliveryRecord>();
    for (const r of [...this.records.values()].sort((a, b) => (a.seq < b.seq ? -1 : 1))) {
      if (r.state !== "pending" && r.state !== "held") continue;
      if (r.notBefore !== undefined && r.notBefore > Date.now()) continue; // quiet hours: later ones are not held up by it
      const key = `${r.channel}\u0000${r.conversation}`;
      if (!heads.has(key)) heads.set(key, r); // later ones wait behind a held or retrying one: order is kept
    }
    for (const r of heads.values()) {
      if (r.state !== "pending" || r.nextAt > Date.now() || this.inFlight.has(r.channel) || !this.opts.ready(r.channel)) continue;
      this.inFlight.add(r.channel);
      void this.attempt(r).finally(() => {
        this.inFlight.delete(r.channel);
        this.wake();
      });
    }
  }

  private async attempt(record: DeliveryRecord): Promise<void> {
    const adapter = this.opts.adapter(record.channel);
    if (!adapter) return;
    const toOwner = record.conversation === adapter.ownerConversation();
    const failures = toOwner ? [...this.records.values()].filter((r) => r.channel === record.channel && r.state === "failed") : [];
    const text = failures.length ? `${failureNotice(failures)}\n\n${record.text}` : record.text;
    record.attempts++;
    this.save(record); // the attempt counts even if SCV dies during it
    let result: SendResult;
    const badFile = record.files.find((f) => !isOutboxFile(f.path, this.mediaDir));
    if (badFile) result = { status: "refused", error: `${badFile.name} is no longer a regular file in the outbox` };
    else {
      try {
        result = await adapter.send({ idempotencyKey: record.id, conversation: record.conversation, text, files: record.files, inReplyTo: record.inReplyTo, ...(record.buttons ? { buttons: record.buttons } : {}) });
      } catch (e) {
        result = { status: "retry", error: (e as Error).message };
      }
    }
    if (result.status === "sent") {
      this.lastError.delete(record.channel);
      this.dropFiles(record);
      record.state = "sent";
      record.sentAt = new Date().toISOString();
      this.opts.onSettled?.({ ...record, text });
      record.text = "";
      this.save(record);
      this.sentOrder.push(record.id);
      this.pruneTombstones();
      for (const f of failures) this.forget(f); // the owner has been told
      return;
    }
    if (result.status === "held") {
      record.state = "held";
      record.heldReason = result.reason;
      record.attempts--;
      this.save(record);
      return;
    }
    record.lastError = result.error;
    this.lastError.set(record.channel, result.error);
    this.opts.log(`channel ${record.channel}: sending ${record.id} failed (attempt ${record.attempts}): ${result.error}`);
    if (result.status === "refused" || record.attempts >= this.opts.maxAttempts) {
      record.state = "failed";
      this.dropFiles(record);
      this.opts.onSettled?.(record);
    } else {
      record.nextAt = Date.now() + Math.min(MAX_BACKOFF_MS, this.opts.retryBaseMs * 2 ** (record.attempts - 1));
    }
    this.save(record);
  }

  private dropFiles(record: DeliveryRecord) {
    for (const f of record.files) if (isOutboxFile(f.path, this.mediaDir)) tryUnlink(f.path);
  }

  /** Forgets the oldest tombstones past the count or the age they are kept for. */
  private pruneTombstones(now = Date.now()): void {
    const keep = this.opts.tombstones ?? TOMBSTONES_KEPT;
    while (this.sentOrder.length) {
      const r = this.records.get(this.sentOrder[0]!);
      if (r?.state === "sent" && this.sentOrder.length <= keep && now - Date.parse(r.sentAt ?? r.created) <= TOMBSTONE_MS) break;
      this.sentOrder.shift();
      if (r?.state === "sent") this.forget(r);
    }
  }

  private forget(record: DeliveryRecord) {
    this.records.delete(record.id);
    tryUnlink(join(this.dir, `${record.id}.json`));
  }

  private save(record: DeliveryRecord) {
    this.records.set(record.id, record);
    writePrivateFileAtomic(join(this.dir, `${record.id}.json`), JSON.stringify(record));
  }
}

function isOutboxFile(path: string, mediaDir: string): boolean {
  if (!path.startsWith(`${mediaDir}/`) || path.slice(mediaDir.length + 1).includes("/")) return false;
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

function failureNotice(failed: DeliveryRecord[]): string {
  const lines = failed.map((r) => {
    const start = ellipsize(r.text, 80);
    return `- “${start || "(files only)"}”${r.files.length ? ` with ${r.files.length} file(s)` : ""}: ${r.lastError ?? "failed"} after ${r.attempts} attempt(s)`;
  });
  return `[SCV could not deliver ${failed.length === 1 ? "an earlier message" : `${failed.length} earlier messages`}:\n${lines.join("\n")}]`;
}
