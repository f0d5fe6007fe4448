// Appending to one session file. Each record is one write(2) of one line to a file opened O_APPEND, so a
// SIGKILL leaves at most the record being written torn (the loader skips it). A write reaches the kernel before
// append returns, which is all a process crash needs; records that close something (a turn's end, a finished
// job) are also fdatasync'ed, so a power cut loses at most what was still in flight. One SCV process writes a
// session at a time: its lock (./lock.ts) is taken before the file is loaded and released when the writer closes.
import { closeSync, constants, fdatasyncSync, fstatSync, ftruncateSync, openSync, writeSync } from "node:fs";
import { tryUnlink } from "../fs/private-file";
import { scrubSecrets } from "../text/scrub";
import { releaseLock } from "./lock";
import type { RecordInput } from "./records";

/**
 * Records whose loss would be noticed: written through to the disk, not only to the kernel. A new session's
 * header is not among them: it reaches the disk with the first of these (fdatasync flushes all the file holds),
 * and a session that never gets that far is worth nothing after a power cut; syncing it would sit between a
 * nested SCV child's spawn and its first model request.
 */
const SYNCED = new Set<string>(["turn_ended", "job_finished", "conversation", "compacted", "resumed", "configured"]);

export interface SessionRecorder {
  readonly id: string;
  /** Appends one record, stamped with the time. Never throws: a failing disk is reported once, then ignored. */
  append(record: RecordInput | HeaderInput): void;
  /**
   * The compaction step's record: `summary` replaced `replaced` (the originals, kept) starting at history index
   * `start`. The replay on resume applies the same replacement.
   */
  compacted(c: { summary: object[]; replaced: object[]; start?: number; turn?: string }): void;
  /** Keeps the session's file even if no turn runs (by default a session closed before its first turn leaves none). */
  keep(): void;
  /** Releases the session (closes the file, removes the lock). */
  close(): void;
}

export type HeaderInput = { type: "session"; v: number; id: string; workspace: string; provider: string; model: string; tools: boolean; channel?: object };

export class SessionWriter implements SessionRecorder {
  private fd: number | undefined;
  private failed = false;
  /** A new session that never ran a turn is not worth keeping: closing it removes its file. */
  private kept: boolean;

  constructor(
    readonly id: string,
    readonly file: string,
    fd: number,
    private readonly lockFile: string,
    private readonly warn: (message: string) => void,
    private readonly onClose: () => void,
    resumed: boolean,
    /** Configured secrets (every profile's key and header values, search keys): never written, even if a tool echoed one. */
    secrets: readonly string[] = [],
  ) {
    this.fd = fd;
    this.kept = resumed;
    this.secrets = secrets.filter((v) => v.length >= 8);
  }

  private readonly secrets: string[];

  append(record: RecordInput | HeaderInput): void {
    if (this.fd === undefined || this.failed) return;
    const { type, ...rest } = record;
    if (type === "turn") this.kept = true;
    try {
      let text = JSON.stringify({ type, at: Date.now(), ...rest });
      text = scrubSecrets(text, this.secrets); // configured and registered secrets (JSON-escaped too), key formats
      const line = Buffer.from(`${text}\n`);
      let written = 0;
      while (written < line.length) written += writeSync(this.fd, line, written, line.length - written);
      if (SYNCED.has(type)) fdatasyncSync(this.fd);
    } catch (e) {
      this.failed = true;
      this.warn(`session ${this.id} is no longer being saved to ${this.file}: ${(e as Error).message}`);
    }
  }

  compacted(c: { summary: object[]; replaced: object[]; start?: number; turn?: string }): void {
    this.append({ type: "compacted", start: c.start ?? 0, summary: c.summary as Record<string, unknown>[], replaced: c.replaced as Record<string, unknown>[], ...(c.turn ? { turn: c.turn } : {}) });
  }

  keep(): void {
    this.kept = true;
  }

  close(): void {
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
    } catch {
      // already closed
    }
    this.fd = undefined;
    if (!this.kept) tryUnlink(this.file);
    releaseLock(this.lockFile);
    this.onClose();
  }
}

const APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW;

/** Creates a new session file (never an existing one); EEXIST says the ID is taken. */
export function createSessionFile(file: string): number {
  return openSync(file, APPEND | constants.O_CREAT | constants.O_EXCL, 0o600);
}

/** Opens an existing session file for appending, cutting off a torn last record past `completeBytes`. */
export function reopenSessionFile(file: string, completeBytes: number): number {
  const fd = openSync(file, APPEND | constants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new Error(`${file} is not a regular file`);
    if (st.size > completeBytes) ftruncateSync(fd, completeBytes);
    return fd;
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}
