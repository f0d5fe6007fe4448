// Catching the index up with the session files, which stay the source of truth. Each file's row says how many
// of its bytes (whole records) the index holds; a file that grew is read from there, one that shrank or was
// replaced is read again from the start, one that is gone leaves the index (its ledger entries stay: what was
// spent stays spent). Every file is caught up in its own short transaction, taken before its row is read, so
// several SCV processes catching up at once never index a record twice. A crash between a session write and
// its index update loses nothing: the next catch-up reads what the index lacks.
import type { Database, Statement } from "bun:sqlite";
import { closeSync, constants, openSync, readSync } from "node:fs";
import { ENDED_PREFIX, firstPromptLine, searchedPart, type SessionFile, sessionFiles, TURN_PREFIX, turnText } from "../sessions/catalog";
import { SessionHeader } from "../sessions/records";
import { conversationKey, type LedgerEntry } from "./entries";

const NEWLINE = 0x0a;
const TURN_BYTES = Buffer.from(TURN_PREFIX);
const ENDED_BYTES = Buffer.from(ENDED_PREFIX);
const USAGE_BYTES = Buffer.from('{"type":"usage",');

/** Does the line bytes[pos, nl) start with `prefix`? */
function startsWith(bytes: Buffer, pos: number, nl: number, prefix: Buffer): boolean {
  return nl - pos >= prefix.length && bytes.compare(prefix, 0, prefix.length, pos, pos + prefix.length) === 0;
}
/** A long catch-up lets the event loop run this often. */
const YIELD_AFTER_MS = 20;

/**
 * The one place text enters the index. The session files it reads are already scrubbed of the session's
 * configured secrets (SessionWriter); a scrubber of every configured secret plugs in here (LedgerOptions.scrub).
 */
export type IndexScrub = (text: string) => string;

interface SessionRow {
  listed: number;
  workspace: string;
  started_at: number;
  model: string;
  channel: string | null;
  turns: number;
  first_prompt: string | null;
  mtime: number;
  size: number;
  ino: number;
  indexed: number;
}

export interface SyncResult {
  /** Session files read (in part or whole). */
  read: number;
  /** Sessions whose file is gone, dropped from the index. */
  dropped: number;
  /** Files that could not be read, with why. */
  problems: string[];
}

export class SessionSync {
  private readonly q: ReturnType<typeof statements>;

  constructor(
    private readonly db: Database,
    private readonly dir: string,
    private readonly scrub: IndexScrub,
  ) {
    this.q = statements(db);
  }

  /** Catches every session file up (or only `only`); returns what it did. */
  all(only?: string): SyncResult {
    const steps = this.steps(only);
    for (;;) {
      const next = steps.next();
      if (next.done) return next.value;
    }
  }

  /** As all(), letting the event loop run every few milliseconds: building a large index takes a while. */
  async allYielding(only?: string): Promise<SyncResult> {
    const steps = this.steps(only);
    let slice = performance.now();
    for (;;) {
      const next = steps.next();
      if (next.done) return next.value;
      if (performance.now() - slice > YIELD_AFTER_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        slice = performance.now();
      }
    }
  }

  /** The catch-up, one file at a time (yields after each file it read). */
  private *steps(only?: string): Generator<void, SyncResult> {
    const result: SyncResult = { read: 0, dropped: 0, problems: [] };
    const known = new Map<string, Pick<SessionRow, "mtime" | "size" | "ino" | "indexed">>();
    for (const r of this.q.allRows.all() as ({ id: string } & SessionRow)[]) known.set(r.id, r);
    for (const f of sessionFiles(this.dir, only)) {
      if (!f.regular) continue; // never read (the scan warns about it); a session it replaced leaves the index
      const row = known.get(f.id);
      known.delete(f.id);
      if (row && row.ino === f.ino && row.size === f.size && row.mtime === f.mtime && row.indexed <= f.size) continue;
      try {
        if (this.one(f)) result.read++;
      } catch (e) {
        if (isFileError(e)) result.problems.push(`${f.file}: ${(e as Error).message}`);
        else throw e;
      }
      yield;
    }
    if (only === undefined) {
      for (const id of known.keys()) {
        this.db.transaction(() => this.drop(id)).immediate();
        result.dropped++;
      }
    }
    return result;
  }

  /** Forgets every session (not the ledger) so the next catch-up reads every file from its start. */
  forgetSessions(): void {
    this.db.transaction(() => {
      this.db.run("DELETE FROM turn_text");
      this.db.run("DELETE FROM turns");
      this.db.run("DELETE FROM sessions");
    }).immediate();
  }

  /** Catches one file up; true when it read any of it. */
  private one(f: SessionFile): boolean {
    return this.db.transaction(() => {
      let row = this.q.row.get(f.id) as SessionRow | null;
      if (row && (row.ino !== f.ino || f.size < row.indexed)) {
        this.drop(f.id); // replaced or cut short: read again from the start
        row = null;
      }
      const from = row?.indexed ?? 0;
      if (row && from === f.size) {
        this.q.touch.run(f.mtime, f.size, f.id);
        return false;
      }
      // Only the records search and the ledger need are decoded (a line's first bytes name its type): history
      // items, a tool's whole arguments and output among them, are stepped over, never decoded or parsed.
      const bytes = readFrom(f.file, from, f.size);
      // Uint8Array's indexOf: Buffer's is many times slower at finding one byte.
      const scan = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
      const end = scan.lastIndexOf(NEWLINE) + 1;
      const state: SessionRow = row ?? { listed: 0, workspace: "", started_at: 0, model: "", channel: null, turns: 0, first_prompt: null, mtime: f.mtime, size: f.size, ino: f.ino, indexed: 0 };
      let seq = state.turns;
      // Turns that start in this read are written once, with their reply, at the end: the full-text index is
      // written once per turn, not once for the prompt and again for the reply.
      const fresh = new Map<string, { at: number; seq: number; prompt: string; reply: string }>();
      const fileIsNew = row === null;
      let pos = 0;
      while (pos < end) {
        const nl = scan.indexOf(NEWLINE, pos);
        const is = (prefix: Buffer) => startsWith(bytes, pos, nl, prefix);
        const record = () => parse(bytes.toString("utf8", pos, nl));
        if (from === 0 && pos === 0) readHeader(state, record());
        else if (is(TURN_BYTES)) {
          const r = record();
          state.turns++;
          if (typeof r?.turn === "string" && typeof r.prompt === "string") {
            const at = Number(r.at) || 0;
            const prompt = searchedPart(this.scrub(r.prompt));
            const known = fresh.get(r.turn);
            // A repeated turn record replaces the first (keeping its place), as a scan of the file reads it.
            if (known) Object.assign(known, { at, prompt, reply: "" });
            else if (fileIsNew || !this.restarted(f.id, r.turn, prompt, at)) fresh.set(r.turn, { at, seq: seq++, prompt, reply: "" });
            if (state.first_prompt === null && r.origin?.kind === "user") state.first_prompt = firstPromptLine(r.prompt);
          }
        } else if (is(ENDED_BYTES)) {
          const r = record();
          if (typeof r?.turn === "string" && typeof r.reply === "string") {
            const at = Number(r.at) || 0;
            const known = fresh.get(r.turn);
            if (known) Object.assign(known, { at: at || known.at, reply: searchedPart(this.scrub(r.reply)) });
            else if (!fileIsNew) this.turnEnded(f.id, r.turn, r.reply, at);
          }
        } else if (is(USAGE_BYTES)) {
          const entry = ledgerEntryOf(f.id, record(), state.channel);
          if (entry) insertEntry(this.q.ledger, entry);
        }
        pos = nl + 1;
      }
      for (const [turn, t] of fresh) {
        const { lastInsertRowid } = this.q.turnInsert.run(f.id, turn, t.at, t.seq, t.prompt.length);
        this.q.textInsert.run(lastInsertRowid, turnText(t.prompt, t.reply));
      }
      const indexed = from + end;
      this.q.upsert.run(f.id, state.listed, state.workspace, state.started_at, state.model, state.channel, state.turns, state.first_prompt, f.mtime, f.size, f.ino, indexed);
      return true;
    }).immediate();
  }

  /** A turn record for a turn the index already holds (from an earlier read) replaces it; false when it holds none. */
  /** `shown`: the prompt as the index holds it (scrubbed, its searched part). */
  private restarted(session: string, turn: string, shown: string, at: number): boolean {
    const existing = this.q.turnId.get(session, turn) as { id: number } | null;
    if (!existing) return false;
    this.q.turnUpdate.run(at, shown.length, existing.id);
    this.q.textUpdate.run(turnText(shown, ""), existing.id);
    return true;
  }

  private turnEnded(session: string, turn: string, reply: string, at: number): void {
    const t = this.q.turnWithText.get(session, turn) as { id: number; at: number; prompt_len: number; text: string } | null;
    if (!t) return;
    this.q.turnUpdate.run(at || t.at, t.prompt_len, t.id);
    this.q.textUpdate.run(turnText(t.text.slice(0, t.prompt_len), searchedPart(this.scrub(reply))), t.id);
  }

  private drop(id: string): void {
    this.q.dropText.run(id);
    this.q.dropTurns.run(id);
    this.q.dropSession.run(id);
  }
}

function statements(db: Database) {
  return {
    allRows: db.query("SELECT id, mtime, size, ino, indexed FROM sessions"),
    row: db.query("SELECT * FROM sessions WHERE id = ?"),
    touch: db.query("UPDATE sessions SET mtime = ?, size = ? WHERE id = ?"),
    upsert: db.query(
      "INSERT OR REPLACE INTO sessions(id, listed, workspace, started_at, model, channel, turns, first_prompt, mtime, size, ino, indexed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    ),
    turnId: db.query("SELECT id FROM turns WHERE session = ? AND turn = ?"),
    turnWithText: db.query("SELECT t.id, t.at, t.prompt_len, x.text FROM turns t JOIN turn_text x ON x.rowid = t.id WHERE t.session = ? AND t.turn = ?"),
    turnInsert: db.query("INSERT INTO turns(session, turn, at, seq, prompt_len) VALUES (?, ?, ?, ?, ?)"),
    turnUpdate: db.query("UPDATE turns SET at = ?, prompt_len = ? WHERE id = ?"),
    textInsert: db.query("INSERT INTO turn_text(rowid, text) VALUES (?, ?)"),
    textUpdate: db.query("UPDATE turn_text SET text = ? WHERE rowid = ?"),
    dropText: db.query("DELETE FROM turn_text WHERE rowid IN (SELECT id FROM turns WHERE session = ?)"),
    dropTurns: db.query("DELETE FROM turns WHERE session = ?"),
    dropSession: db.query("DELETE FROM sessions WHERE id = ?"),
    ledger: ledgerInsert(db),
  };
}

export function ledgerInsert(db: Database): Statement {
  return db.query(
    "INSERT OR IGNORE INTO ledger(session, entry, at, kind, origin, conversation, turn, provider, agent, model, transport, input, cached, output, reasoning, cache_write, cache_write_1h) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  );
}

export function insertEntry(stmt: Statement, e: LedgerEntry): void {
  stmt.run(e.session, e.entry, e.at, e.kind, e.origin, e.conversation ?? null, e.turn ?? null, e.provider ?? null, e.agent ?? null, e.model ?? null, e.transport ?? null, e.input, e.cached, e.output, e.reasoning, e.cacheWrite ?? 0, e.cacheWrite1h ?? 0);
}

/** A ledger entry from a session file's `usage` record, checked by hand (a newer or damaged record is skipped). */
function ledgerEntryOf(session: string, r: any, channel: string | null): LedgerEntry | undefined {
  if (typeof r?.entry !== "string" || (r.kind !== "model" && r.kind !== "agent") || typeof r.at !== "number") return undefined;
  const n = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : 0);
  const s = (v: unknown) => (typeof v === "string" ? v : undefined);
  const conversation = channel ? conversationKey(JSON.parse(channel)) : undefined;
  return {
    session,
    entry: r.entry,
    at: r.at,
    kind: r.kind,
    origin: s(r.origin) ?? "unknown",
    ...(conversation ? { conversation } : {}),
    turn: s(r.turn),
    provider: s(r.provider),
    agent: s(r.agent),
    model: s(r.model),
    transport: s(r.transport),
    input: n(r.input_tokens),
    cached: n(r.cached_input_tokens),
    output: n(r.output_tokens),
    reasoning: n(r.reasoning_tokens),
    ...(n(r.cache_write_tokens) ? { cacheWrite: n(r.cache_write_tokens) } : {}),
    ...(n(r.cache_write_1h_tokens) ? { cacheWrite1h: n(r.cache_write_1h_tokens) } : {}),
  };
}

function readHeader(state: SessionRow, raw: any): void {
  const header = SessionHeader.safeParse(raw);
  state.listed = header.success ? 1 : 0;
  state.workspace = String(raw?.workspace ?? "");
  state.started_at = Number(raw?.at) || 0;
  state.model = typeof raw?.model === "string" ? raw.model : "";
  state.channel = header.success && header.data.channel ? JSON.stringify(header.data.channel) : null;
}

/** The bytes [from, to) of a session file (only whole records are used: the last newline bounds them). */
function readFrom(file: string, from: number, to: number): Buffer {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  try {
    const buf = Buffer.allocUnsafe(to - from);
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, from + got);
      if (n === 0) break;
      got += n;
    }
    // A file that shrank meanwhile: only what was read, up to its last whole record.
    return buf.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}

function isFileError(e: unknown): boolean {
  return typeof (e as { code?: unknown }).code === "string" && /^E[A-Z]+$/.test((e as { code: string }).code);
}

function parse(line: string): any {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}
