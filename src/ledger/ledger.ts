// The Ledger: one per SCV home and process, over the index file (db.ts), caught up from the session files
// (sync.ts), read by listing and search (session-index.ts), `scv usage` and the limits (usage.ts), and written
// by each session's usage recorder (recorder.ts). Nothing here loads SQLite until the first entry, listing,
// search or limit check.
import type { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config/schema";
import type { SearchHit, SessionSummary } from "../sessions/catalog";
import type { SessionStore } from "../sessions/store";
import { discard, indexFile, isBusy, isCorruption, openIndexDb, WRITE_WAIT_MS, READ_WAIT_MS } from "./db";
import type { LedgerEntry } from "./entries";
import { listIndexed, searchIndexed } from "./session-index";
import { insertEntry, ledgerInsert, type IndexScrub, SessionSync, type SyncResult } from "./sync";
import { limitReached, type LimitReached, type UsageQuery, type UsageRow, usageTotals } from "./usage";


/** A queued entry is retried this long after the index was busy. */
const RETRY_MS = 1000;

export interface LedgerOptions {
  home: string;
  /** Where notices (an index being rebuilt) and problems go; never fatal. */
  warn?: (message: string) => void;
  /** The one scrubber indexed text passes through (configured secrets). */
  scrub?: IndexScrub;
}

interface Open {
  db: Database;
  sync: SessionSync;
}

export class Ledger {
  private opened?: Promise<Open>;
  private readonly queue: LedgerEntry[] = [];
  /** Sessions this process wrote to since the index last read them. */
  private readonly touchedSessions = new Set<string>();
  /** The sessions directory's mtime at the last full catch-up: files created or removed since change it. */
  private sweptDirAt?: number;
  private retry?: ReturnType<typeof setTimeout>;
  private readonly warn: (message: string) => void;

  constructor(private readonly opts: LedgerOptions) {
    this.warn = opts.warn ?? ((m) => process.stderr.write(`scv: ${m}\n`));
  }

  /**
   * The index, open (once per process; a rebuild says so). Not yet caught up with the session files: a read
   * does that first (catchUp); a write (an entry, this process's own session records) does not need it.
   */
  ready(): Promise<Open> {
    return (this.opened ??= this.open().catch((e) => {
      this.opened = undefined;
      throw e;
    }));
  }

  /** Whether this process has opened the index (or is opening it). */
  isOpen(): boolean {
    return this.opened !== undefined;
  }

  private async open(): Promise<Open> {
    const { db, rebuilt } = await openIndexDb(this.opts.home);
    const sync = new SessionSync(db, this.sessionsDir(), this.opts.scrub ?? ((t) => t));
    if (rebuilt) this.warn(rebuilt);
    return { db, sync };
  }

  private sessionsDir(): string {
    return join(this.opts.home, "state", "sessions");
  }

  private dirMtime(): number | undefined {
    try {
      return statSync(this.sessionsDir()).mtimeMs;
    } catch {
      return undefined;
    }
  }

  /** Every session file checked (one lstat each) and what changed read. */
  private async sweep(sync: SessionSync): Promise<SyncResult> {
    const at = this.dirMtime();
    const result = await sync.allYielding();
    this.sweptDirAt = at;
    this.touchedSessions.clear();
    return result;
  }

  /**
   * Before a read: a full sweep at this process's first read (so it catches up what any process left, say one
   * killed between a session write and its index update) and whenever a session file was created or removed;
   * otherwise only the sessions this process wrote to. Other live processes index their own writes.
   */
  private async catchUp(sync: SessionSync): Promise<void> {
    if (this.sweptDirAt === undefined || this.dirMtime() !== this.sweptDirAt) return this.report(await this.sweep(sync));
    for (const id of [...this.touchedSessions]) {
      this.touchedSessions.delete(id);
      this.report(sync.all(id));
    }
  }

  /**
   * This process wrote records worth indexing to a session's file (a turn ended, the session closed): the index
   * reads them soon, without ever holding up the caller (a busy index is tried again later).
   */
  touched(sessionId: string): void {
    this.touchedSessions.add(sessionId);
    void this.ready().then(
      ({ db, sync }) => this.catchUpSoon(db, sync),
      () => {}, // reported by record(); the next start catches up
    );
  }

  private catchUpSoon(db: Database, sync: SessionSync): void {
    try {
      db.run(`PRAGMA busy_timeout = ${WRITE_WAIT_MS}`);
      for (const id of [...this.touchedSessions]) {
        this.report(sync.all(id));
        this.touchedSessions.delete(id);
      }
    } catch (e) {
      if (!isBusy(e)) return this.warn(`could not update the session index: ${(e as Error).message}`);
      this.retry ??= setTimeout(() => {
        this.retry = undefined;
        this.catchUpSoon(db, sync);
        this.flushSoon(db);
      }, RETRY_MS);
      this.retry.unref?.();
    }
  }

  /** Runs `fn` on the caught-up index; a corrupt index is rebuilt once and `fn` runs again. */
  async read<T>(fn: (db: Database) => T): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const { db, sync } = await this.ready();
      try {
        db.run(`PRAGMA busy_timeout = ${READ_WAIT_MS}`);
        this.flushNow(db);
        await this.catchUp(sync);
        return fn(db);
      } catch (e) {
        if (!isCorruption(e) || attempt > 0) throw e;
        db.close();
        discard(indexFile(this.opts.home), true);
        this.opened = undefined;
      }
    }
  }

  list(opts: { workspace?: string; limit?: number }): Promise<SessionSummary[]> {
    return this.read((db) => listIndexed(db, opts));
  }

  search(query: string, opts: { limit: number; exclude?: string }): Promise<SearchHit[]> {
    return this.read((db) => searchIndexed(db, query, opts));
  }

  usage(config: Pick<Config, "prices">, q: UsageQuery): Promise<{ rows: UsageRow[]; total: UsageRow }> {
    return this.read((db) => usageTotals(db, config.prices, q));
  }

  /** The first configured limit reached now, if any (`conversation`: a non-owner's chat, with its own limits). */
  async limitReached(config: Pick<Config, "prices" | "limits">, conversation?: string, now = Date.now()): Promise<LimitReached | undefined> {
    const l = config.limits;
    const any = l.daily_tokens ?? l.daily_cost ?? l.monthly_cost ?? (conversation ? (l.conversation_daily_tokens ?? l.conversation_daily_cost) : undefined);
    if (any === undefined) return undefined;
    return this.read((db) => limitReached(db, config.limits, config.prices, now, conversation));
  }

  /** True the first time `key` is asked for (a limit and its period): the owner is told once. */
  async firstNotice(key: string): Promise<boolean> {
    return this.read((db) => db.query("INSERT OR IGNORE INTO notices(key, at) VALUES (?, ?)").run(key, Date.now()).changes === 1);
  }

  /** Reads every session file again (the ledger keeps entries of sessions whose files are gone). */
  async reindex(): Promise<SyncResult> {
    const { sync } = await this.ready();
    sync.forgetSessions();
    return this.sweep(sync);
  }

  /**
   * Records an entry. Never throws and never waits long: the entry is queued and written at once when the index
   * is free, else retried later (it is also in its session file, which the next catch-up reads).
   */
  record(entry: LedgerEntry): void {
    this.queue.push(entry);
    void this.ready().then(
      ({ db }) => this.flushSoon(db),
      (e) => this.warn(`usage ledger unavailable (${(e as Error).message}); usage stays in the session files and is indexed later`),
    );
  }

  private flushSoon(db: Database): void {
    try {
      db.run(`PRAGMA busy_timeout = ${WRITE_WAIT_MS}`);
      this.flushNow(db);
    } catch (e) {
      if (!isBusy(e)) return this.warn(`could not write the usage ledger: ${(e as Error).message}`);
      this.retry ??= setTimeout(() => {
        this.retry = undefined;
        this.flushSoon(db);
      }, RETRY_MS);
      this.retry.unref?.();
    }
  }

  private flushNow(db: Database): void {
    if (this.queue.length === 0) return;
    const insert = ledgerInsert(db);
    const batch = this.queue.slice();
    db.transaction(() => {
      for (const e of batch) insertEntry(insert, e);
    }).immediate();
    this.queue.splice(0, batch.length);
  }

  private report(r: SyncResult): void {
    for (const p of r.problems) this.warn(`session index: skipped ${p}`);
  }

  /** Writes what is queued (waiting for the index if needed) and closes it. */
  async close(): Promise<void> {
    if (!this.opened) return;
    const { db } = await this.opened;
    if (this.retry) clearTimeout(this.retry);
    try {
      db.run(`PRAGMA busy_timeout = ${READ_WAIT_MS}`);
      this.flushNow(db);
    } catch {
      // left in the session files for the next catch-up
    }
    db.close();
    this.opened = undefined;
  }
}

const ledgers = new Map<string, Ledger>();

/** This process's ledger of `home`. */
export function ledgerFor(home: string, opts: Omit<LedgerOptions, "home"> = {}): Ledger {
  let l = ledgers.get(home);
  if (!l) ledgers.set(home, (l = new Ledger({ home, ...opts })));
  return l;
}

/**
 * A store's sessions from the index, newest activity first; a scan of the session files when the index cannot
 * be used (say, a state directory SQLite cannot lock), so a listing never fails for it.
 */
export async function listSessions(store: SessionStore, opts: { workspace?: string; limit?: number } = {}): Promise<SessionSummary[]> {
  try {
    return await ledgerFor(store.home).list(opts);
  } catch (e) {
    indexUnusable(e);
    return store.list(opts);
  }
}

/** Earlier turns holding every word of `query`, newest first: from the index, or a scan when it cannot be used. */
export async function searchSessions(store: SessionStore, query: string, opts: { limit: number; exclude?: string }): Promise<SearchHit[]> {
  try {
    return await ledgerFor(store.home).search(query, opts);
  } catch (e) {
    indexUnusable(e);
    return store.search(query, opts);
  }
}

function indexUnusable(e: unknown): void {
  process.stderr.write(`scv: the session index cannot be used (${(e as Error).message}); scanning the session files instead\n`);
}
