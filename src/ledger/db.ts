// The index file: one SQLite database at $SCV_HOME/state/index.sqlite (0600, WAL) holding the usage ledger and a
// full-text index of the stored sessions. It is derived data: the session files are the source of truth, so a
// missing, outdated or corrupt index is rebuilt from them, never fatal. bun:sqlite is loaded at the first use
// (dynamic import), so commands that never touch the index start as fast as before.
import type { Database } from "bun:sqlite";
import { chmodSync, existsSync, renameSync } from "node:fs";
import { join } from "node:path";
import { ensurePrivateDir, tryUnlink } from "../fs/private-file";

/** Bumped when the tables change: an index of another version is rebuilt from the session files. */
export const INDEX_VERSION = 2;

/** How long a write waits for another SCV process's transaction; a turn never waits longer (its entry is queued). */
export const WRITE_WAIT_MS = 50;
/** How long a reader (`scv usage`, listing, search) waits for another process's transaction. */
export const READ_WAIT_MS = 2000;

const SCHEMA = [
  "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)",
  // One row per session file; `indexed` is how many bytes of it (whole records) the index holds.
  `CREATE TABLE sessions(
     id TEXT PRIMARY KEY, listed INTEGER NOT NULL, workspace TEXT NOT NULL, started_at REAL NOT NULL, model TEXT NOT NULL,
     channel TEXT, turns INTEGER NOT NULL, first_prompt TEXT, mtime REAL NOT NULL, size INTEGER NOT NULL, ino INTEGER NOT NULL,
     indexed INTEGER NOT NULL)`,
  "CREATE INDEX sessions_by_activity ON sessions(mtime DESC)",
  "CREATE INDEX sessions_by_workspace ON sessions(workspace, mtime DESC)",
  // A turn's prompt and reply live in turn_text (same rowid); `seq` keeps a session's turn order for ties.
  `CREATE TABLE turns(
     id INTEGER PRIMARY KEY, session TEXT NOT NULL, turn TEXT NOT NULL, at REAL NOT NULL, seq INTEGER NOT NULL, prompt_len INTEGER NOT NULL,
     UNIQUE(session, turn))`,
  "CREATE INDEX turns_by_time ON turns(at DESC)",
  // detail=none keeps only which turns hold each trigram (a third of the size, and faster to build): a query
  // asks for every trigram of its words, and each candidate is then checked with the scan's own rule.
  "CREATE VIRTUAL TABLE turn_text USING fts5(text, tokenize='trigram', detail='none')",
  // The ledger: one row per model request of SCV's own loop (kind 'model') and per delegated call (kind 'agent').
  // `entry` is the record's own ID, so the same entry written directly and caught up from its session file counts once.
  `CREATE TABLE ledger(
     session TEXT NOT NULL, entry TEXT NOT NULL, at REAL NOT NULL, kind TEXT NOT NULL, origin TEXT NOT NULL, conversation TEXT,
     turn TEXT, provider TEXT, agent TEXT, model TEXT, transport TEXT,
     input INTEGER NOT NULL, cached INTEGER NOT NULL, output INTEGER NOT NULL, reasoning INTEGER NOT NULL,
     cache_write INTEGER NOT NULL DEFAULT 0, cache_write_1h INTEGER NOT NULL DEFAULT 0,
     PRIMARY KEY(session, entry))`,
  "CREATE INDEX ledger_by_time ON ledger(at)",
  // Budget notices already given (limit and period), so the owner is told once.
  "CREATE TABLE notices(key TEXT PRIMARY KEY, at REAL NOT NULL)",
];

export interface IndexDb {
  db: Database;
  file: string;
  /** Why the index is being built from scratch (missing, another version, corrupt), for a notice; undefined when it was usable. */
  rebuilt?: string;
}

let sqlite: typeof import("bun:sqlite") | undefined;

/** bun:sqlite, loaded at the first call. */
export async function loadSqlite(): Promise<typeof import("bun:sqlite")> {
  return (sqlite ??= await import("bun:sqlite"));
}

export function indexFile(home: string): string {
  return join(home, "state", "index.sqlite");
}

/** Opens (creating or rebuilding when needed) the index of `home`. Throws only when the state directory is unusable. */
export async function openIndexDb(home: string): Promise<IndexDb> {
  const { Database } = await loadSqlite();
  const file = indexFile(home);
  ensurePrivateDir(join(home, "state"));
  const existed = existsSync(file);
  let db: Database | undefined;
  try {
    db = open(Database, file);
    const version = (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
    if (version === INDEX_VERSION) return { db, file };
    if (version !== 0 || tableCount(db) > 0) {
      db.close();
      discard(file);
      return { db: create(Database, file), file, rebuilt: `the session index was made by another SCV version (${version}); rebuilding it from the session files` };
    }
    initialise(db);
    return { db, file, ...(existed ? { rebuilt: "the session index was empty; building it from the session files" } : {}) };
  } catch (e) {
    if (!isCorruption(e)) throw e;
    db?.close();
    discard(file, true);
    return { db: create(Database, file), file, rebuilt: `the session index was unreadable (${(e as Error).message}); rebuilding it from the session files` };
  }
}

function open(Database: typeof import("bun:sqlite").Database, file: string): Database {
  const db = new Database(file, { create: true, strict: true });
  chmodSync(file, 0o600);
  db.run(`PRAGMA busy_timeout = ${READ_WAIT_MS}`);
  db.run("PRAGMA journal_mode = WAL");
  // WAL with NORMAL: a commit is not fsync'ed; a power cut may lose the last commits, which the next start catches up from the session files.
  db.run("PRAGMA synchronous = NORMAL");
  return db;
}

function create(Database: typeof import("bun:sqlite").Database, file: string): Database {
  const db = open(Database, file);
  initialise(db);
  return db;
}

function initialise(db: Database): void {
  db.transaction(() => {
    for (const sql of SCHEMA) db.run(sql);
    db.run(`PRAGMA user_version = ${INDEX_VERSION}`);
  }).immediate();
}

function tableCount(db: Database): number {
  return (db.query("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get() as { n: number }).n;
}

/** Moves an unusable index out of the way (kept once as .corrupt for a look), with its WAL and shared-memory files. */
export function discard(file: string, corrupt = false): void {
  if (corrupt) {
    try {
      renameSync(file, `${file}.corrupt`);
    } catch {
      tryUnlink(file);
    }
  } else tryUnlink(file);
  tryUnlink(`${file}-wal`);
  tryUnlink(`${file}-shm`);
}

/** SQLite saying the file is not a database or is damaged. */
export function isCorruption(e: unknown): boolean {
  const code = String((e as { code?: string }).code ?? "");
  return code.startsWith("SQLITE_CORRUPT") || code.startsWith("SQLITE_NOTADB") || /malformed|not a database/i.test(String((e as Error).message));
}

/** Another process holds the write lock past the wait. */
export function isBusy(e: unknown): boolean {
  const code = String((e as { code?: string }).code ?? "");
  return code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED") || /database is locked/i.test(String((e as Error).message));
}
