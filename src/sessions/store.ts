// The session store: one append-only JSONL file per session under $SCV_HOME/state/sessions (directory 0700,
// files 0600). A server is handed a store as context; it creates a session's file when the session starts and
// appends to it as things happen. Resume loads a file back and continues appending to it.
import { randomHex } from "../digest";
import { existsSync, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { ensurePrivateDir, tryUnlink } from "../fs/private-file";
import { listSessions, searchSessions, type SearchHit, type SessionSummary } from "./catalog";
import { loadSession, type LoadedSession } from "./load";
import { FORMAT_VERSION, type RecordInput, SESSION_ID } from "./records";
import { lockHolder, SessionLockedError, takeLock } from "./lock";
import { createSessionFile, reopenSessionFile, type SessionRecorder, SessionWriter } from "./writer";

export class SessionStoreError extends Error {
  constructor(
    message: string,
    /** `in_use`: another process (or this one) has the session open; `unknown`: no such session. */
    readonly kind: "in_use" | "unknown",
  ) {
    super(message);
    this.name = "SessionStoreError";
  }
}

export interface NewSession {
  workspace: string;
  provider: string;
  model: string;
  tools: boolean;
  channel?: object;
}

export interface SessionStoreOptions {
  /** $SCV_HOME. */
  home: string;
  /** Where problems writing a session go (the server's stderr); never fatal. */
  warn?: (message: string) => void;
}

const DAY_MS = 86_400_000;

export class SessionStore {
  readonly dir: string;
  /** $SCV_HOME. */
  readonly home: string;
  private readonly open = new Set<string>();
  private readonly warn: (message: string) => void;

  constructor(opts: SessionStoreOptions) {
    this.home = opts.home;
    this.dir = join(opts.home, "state", "sessions");
    this.warn = opts.warn ?? ((m) => process.stderr.write(`scv: ${m}\n`));
  }

  /** The sessions this process has open now. */
  openIds(): ReadonlySet<string> {
    return this.open;
  }

  fileOf(id: string): string {
    if (!SESSION_ID.test(id)) throw new SessionStoreError(`"${id}" is not a session ID (they look like s-1a2b3c4d; see scv sessions list)`, "unknown");
    return join(this.dir, `${id}.jsonl`);
  }

  /** Starts a new session file with its header; the returned recorder appends to it. */
  create(session: NewSession, opts: { secrets?: readonly string[] } = {}): SessionRecorder {
    ensurePrivateDir(this.dir);
    for (;;) {
      const id = `s-${randomHex(4)}`;
      const file = this.fileOf(id);
      let fd: number;
      try {
        fd = createSessionFile(file);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "EEXIST") continue;
        throw e;
      }
      takeLock(this.lockOf(id), `session ${id}`);
      const writer = this.writer(id, file, fd, false, opts.secrets);
      writer.append({ type: "session", v: FORMAT_VERSION, id, ...session });
      return writer;
    }
  }

  /**
   * Loads a session to continue it and opens it for appending. Turns cut off by a crash are recorded as
   * `interrupted` first. `choose` picks the provider profile and model to continue with (it may refuse by
   * throwing, before anything is written). Refused while another live process (or this one) has the session open.
   */
  resume(id: string, choose: (loaded: LoadedSession) => { provider: string; model: string; secrets?: readonly string[] }): { loaded: LoadedSession; recorder: SessionRecorder } {
    const file = this.fileOf(id);
    if (this.open.has(id)) throw new SessionStoreError(`session ${id} is already open in this SCV process; use it there, or close it first`, "in_use");
    if (!existsSync(file)) throw new SessionStoreError(`no session ${id} in ${this.dir}; see scv sessions list --all`, "unknown");
    // The lock comes first: a second process never loads (and later truncates to) a length the first one moved on from.
    try {
      takeLock(this.lockOf(id), `session ${id}`);
    } catch (e) {
      if (e instanceof SessionLockedError) throw new SessionStoreError(e.message, "in_use");
      throw e;
    }
    let writer: SessionWriter;
    let loaded: LoadedSession;
    try {
      loaded = this.load(id);
      const { secrets, ...now } = choose(loaded);
      writer = this.writer(id, file, reopenSessionFile(file, loaded.completeBytes), true, secrets);
      for (const t of loaded.turns) {
        if (t.ended_at !== undefined) continue;
        writer.append({ type: "turn_ended", turn: t.turn_id, status: "interrupted", reply: "", usage: { input_tokens: 0, output_tokens: 0, cached_input_tokens: 0 } });
      }
      writer.append({ type: "resumed", ...now });
    } catch (e) {
      if (!this.open.has(id)) tryUnlink(this.lockOf(id));
      throw e;
    }
    return { loaded, recorder: writer };
  }

  /** Reads a session without opening it for writing. */
  load(id: string): LoadedSession {
    const file = this.fileOf(id);
    try {
      return loadSession(file);
    } catch (e) {
      if ((e as { reason?: string }).reason === "missing") throw new SessionStoreError(`no session ${id} in ${this.dir}; see scv sessions list --all`, "unknown");
      throw e;
    }
  }

  /** Sessions, newest activity first; only those of `workspace` when given, and at most `limit`. A scan of every file: src/ledger answers from its index. */
  list(opts: { workspace?: string; limit?: number } = {}): SessionSummary[] {
    return listSessions(this.dir, this.warn, opts);
  }

  /** Past turns containing every word of `query` (case-insensitive), newest first. A scan of every file: src/ledger answers from its index. */
  search(query: string, opts: { limit: number; exclude?: string }): SearchHit[] {
    return searchSessions(this.dir, query, opts, this.warn);
  }

  /**
   * Runs `fn` on a session no process has open, holding its lock so none opens it meanwhile; `append` adds
   * records to its file (a conversation rewind from `scv sessions rewind`).
   */
  async whileClosed<T>(id: string, fn: (loaded: LoadedSession, append: (record: RecordInput) => void) => T | Promise<T>): Promise<T> {
    const file = this.fileOf(id);
    if (this.open.has(id)) throw new SessionStoreError(`session ${id} is open in this SCV process; rewind it there`, "in_use");
    if (!existsSync(file)) throw new SessionStoreError(`no session ${id} in ${this.dir}; see scv sessions list --all`, "unknown");
    try {
      takeLock(this.lockOf(id), `session ${id}`);
    } catch (e) {
      if (e instanceof SessionLockedError) throw new SessionStoreError(`${e.message}; rewind it there (/rewind) or close it first`, "in_use");
      throw e;
    }
    try {
      const loaded = this.load(id);
      let writer: SessionWriter | undefined;
      try {
        return await fn(loaded, (record) => {
          writer ??= new SessionWriter(id, file, reopenSessionFile(file, loaded.completeBytes), this.lockOf(id), this.warn, () => {}, true);
          writer.append(record);
        });
      } finally {
        writer?.close();
      }
    } finally {
      tryUnlink(this.lockOf(id));
    }
  }

  /** Deletes a session that no process has open. */
  remove(id: string): void {
    const file = this.fileOf(id);
    if (this.open.has(id) || lockHolder(this.lockOf(id))) throw new SessionStoreError(`session ${id} is open in a running SCV process; close it first`, "in_use");
    if (!tryUnlink(file)) throw new SessionStoreError(`no session ${id} in ${this.dir}; see scv sessions list --all`, "unknown");
    tryUnlink(this.lockOf(id));
  }

  /** Removes sessions with no activity for `keepDays` days (none that is open); returns how many. */
  prune(keepDays: number, now = Date.now()): number {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return 0;
    }
    let removed = 0;
    for (const name of names) {
      const id = name.endsWith(".jsonl") ? name.slice(0, -6) : undefined;
      if (!id || !SESSION_ID.test(id)) continue;
      try {
        const st = lstatSync(join(this.dir, name));
        if (now - st.mtimeMs <= keepDays * DAY_MS || this.open.has(id) || lockHolder(this.lockOf(id))) continue;
      } catch {
        continue;
      }
      if (tryUnlink(join(this.dir, name))) removed++;
      tryUnlink(this.lockOf(id));
    }
    return removed;
  }

  private lockOf(id: string): string {
    return join(this.dir, `${id}.lock`);
  }

  /** The writer of a session whose lock this process has just taken. */
  private writer(id: string, file: string, fd: number, resumed: boolean, secrets?: readonly string[]): SessionWriter {
    this.open.add(id);
    return new SessionWriter(id, file, fd, this.lockOf(id), this.warn, () => this.open.delete(id), resumed, secrets);
  }
}

export function openSessionStore(opts: SessionStoreOptions): SessionStore {
  return new SessionStore(opts);
}
