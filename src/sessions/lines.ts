// Reading a session file line by line, in bounded memory. A session file is the one input SCV reads back whole
// that an agent, a model or a hostile workspace may have filled: a 200 MB line or an item nested 100,000 levels
// deep must cost neither gigabytes nor a stack overflow. Lines are split from 1 MiB reads; a line longer than
// MAX_SESSION_LINE_BYTES or nested deeper than MAX_SESSION_DEPTH (checked on the bytes as they arrive, as the
// protocol reader does) is skipped without being buffered or parsed, and reported.
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { kindOf, MiB, SafeReadError } from "../fs/safe-read";
import { MAX_NESTING_DEPTH } from "../protocol/constants";
import { ShapeScanner } from "../protocol/jsonl";

/** The most a session file may hold; a larger one is refused, never read in part. */
export const MAX_SESSION_FILE_BYTES = 512 * MiB;
/** The longest record accepted back: a 16 MiB tool output (the largest `output_limit_bytes`) with room for its escaping. */
export const MAX_SESSION_LINE_BYTES = 64 * MiB;
export const MAX_SESSION_DEPTH = MAX_NESTING_DEPTH;

const READ_BYTES = MiB;

export interface LineScan {
  /** Bytes up to the end of the last complete line; a torn tail lies beyond. */
  completeBytes: number;
  /** Bytes after the last newline (a record cut off while it was written). */
  tornBytes: number;
  /** Lines skipped unread, by their 0-based index, with why. */
  skipped: { index: number; bytes: number; reason: string }[];
}

export interface ScanOptions {
  /** Decides from a line's first bytes (up to 64) whether it is wanted; unwanted lines are never decoded. */
  wanted?: (head: Buffer) => boolean;
  /** Stop reading after this many complete lines (a header read). */
  maxLines?: number;
}

/** Calls `visit` with each complete line's text and 0-based index (its newline excluded). */
export function scanSessionLines(file: string, visit: (text: string, index: number) => void, opts: ScanOptions = {}): LineScan {
  const fd = openSession(file);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new SafeReadError(file, "not_regular", `session file ${file} is ${kindOf(st)}, not a regular file; replace it with a regular file`);
    if (st.size > MAX_SESSION_FILE_BYTES) {
      throw new SafeReadError(file, "too_large", `session file ${file} is larger than ${MAX_SESSION_FILE_BYTES / MiB} MiB, the most SCV reads for it; make it smaller`);
    }
    return scanOpened(fd, visit, opts);
  } finally {
    closeSync(fd);
  }
}

function openSession(file: string): number {
  try {
    return openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") throw new SafeReadError(file, "missing", `session file ${file} does not exist`);
    if (code === "ELOOP") throw new SafeReadError(file, "symlink", `session file ${file} is a symbolic link, which SCV does not follow here`);
    throw new SafeReadError(file, "unreadable", `cannot read session file ${file}: ${(e as Error).message}`);
  }
}

function scanOpened(fd: number, visit: (text: string, index: number) => void, opts: ScanOptions): LineScan {
  const scanner = new ShapeScanner({ maxDepth: MAX_SESSION_DEPTH, maxValues: Number.MAX_SAFE_INTEGER });
  const result: LineScan = { completeBytes: 0, tornBytes: 0, skipped: [] };
  let parts: Buffer[] = [];
  let size = 0;
  /** Why the line in progress is refused; "" while it is not. */
  let refused = "";
  /** The line in progress is not wanted: counted, never kept or scanned. */
  let ignored = false;
  let decided = !opts.wanted;
  let index = 0;
  let offset = 0;
  const decide = (complete: boolean) => {
    const first = head(parts);
    if (first.length < HEAD_BYTES && !complete) return;
    decided = true;
    if (opts.wanted!(first)) return;
    ignored = true;
    parts = [];
  };
  const endLine = () => {
    if (!decided && !refused) decide(true);
    if (refused) result.skipped.push({ index, bytes: size, reason: refused });
    else if (!ignored) visit(parts.length === 1 ? parts[0]!.toString("utf8") : Buffer.concat(parts).toString("utf8"), index);
    index++;
    parts = [];
    size = 0;
    refused = "";
    ignored = false;
    decided = !opts.wanted;
    scanner.reset();
  };
  // One read buffer; a line's pieces are copied out of it (a whole line within one read is decoded in place).
  const buffer = Buffer.allocUnsafe(READ_BYTES);
  for (;;) {
    for (let k = 0; k < parts.length; k++) if (parts[k]!.buffer === buffer.buffer) parts[k] = Buffer.from(parts[k]!);
    const n = readSync(fd, buffer, 0, READ_BYTES, null);
    if (n === 0) break;
    const chunk = buffer.subarray(0, n);
    let start = 0;
    while (start < n) {
      const nl = chunk.indexOf(10, start);
      const end = nl === -1 ? n : nl;
      const piece = chunk.subarray(start, end);
      if (!refused && !ignored && piece.length) {
        if (size + piece.length > MAX_SESSION_LINE_BYTES) refused = `longer than ${MAX_SESSION_LINE_BYTES / MiB} MiB`;
        else {
          parts.push(piece);
          if (!decided) decide(end !== n);
          if (!ignored) refused = scanner.scan(piece) ?? "";
        }
        if (refused) parts = [];
      }
      size += piece.length;
      offset += piece.length;
      if (end === n) break;
      offset += 1;
      endLine();
      result.completeBytes = offset;
      if (opts.maxLines !== undefined && index >= opts.maxLines) return result;
      start = nl + 1;
    }
  }
  result.tornBytes = size;
  return result;
}

const HEAD_BYTES = 64;

function head(parts: Buffer[]): Buffer {
  if (parts.length === 0) return Buffer.alloc(0);
  if (parts[0]!.length >= HEAD_BYTES || parts.length === 1) return parts[0]!.subarray(0, HEAD_BYTES);
  return Buffer.concat(parts).subarray(0, HEAD_BYTES);
}
