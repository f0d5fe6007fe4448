// One reader for every file SCV reads from a place a user, a workspace or an agent controls (config files,
// sign-in files, AGENTS.md, skills, session files). A workspace can ship a FIFO or a link to /dev/zero as any
// of these, so a plain readFileSync could hang SCV or grow it without bound. This reader opens without
// blocking, accepts only a regular file, and never reads past a per-kind limit.
import { closeSync, constants, fstatSync, openSync, readlinkSync, readSync } from "node:fs";
import { isAbsolute, relative } from "node:path";

export const KiB = 1024;
export const MiB = 1024 * KiB;

export interface SafeReadOptions {
  /** What the file is, for messages: "config file", "sign-in file", "AGENTS.md". */
  what: string;
  /** The most bytes accepted; a larger file is refused, never cut. */
  maxBytes: number;
  /** false refuses a final symlink (O_NOFOLLOW); directories on the way are still followed. Default true. */
  followSymlink?: boolean;
  /**
   * A real directory the opened file must lie under, checked on the open descriptor (/proc/self/fd), so a
   * directory swapped for a symlink between a caller's check and the open is still caught.
   */
  within?: string;
  /**
   * Why the opened file must not be read, judged on where its descriptor really is (/proc/self/fd), or
   * undefined to read it. For callers whose policy is more than one directory (chat inbound files).
   */
  refuse?: (realPath: string) => string | undefined;
}

export type SafeReadFailure = "missing" | "symlink" | "not_regular" | "too_large" | "unreadable" | "outside";

/** A file that could not be read safely; the message names the file, what was wrong and how to fix it. */
export class SafeReadError extends Error {
  constructor(
    readonly file: string,
    readonly reason: SafeReadFailure,
    message: string,
  ) {
    super(message);
    this.name = "SafeReadError";
  }
}

/** Reads a file as bytes, or throws SafeReadError. */
export function readBoundedBytes(file: string, opts: SafeReadOptions): Buffer {
  const { bytes, truncated } = readOpened(file, opts, false);
  if (truncated) throw tooLarge(file, opts);
  return bytes;
}

/**
 * Reads at most `maxBytes` of a file, for content that may be shown cut (a skill's SKILL.md): a longer file is
 * not refused but returned up to the limit with `truncated`. Never reads more than one byte past the limit.
 */
export function readBoundedPrefix(file: string, opts: SafeReadOptions): { bytes: Buffer; truncated: boolean } {
  return readOpened(file, opts, true);
}

function readOpened(file: string, opts: SafeReadOptions, prefix: boolean): { bytes: Buffer; truncated: boolean } {
  const flags = constants.O_RDONLY | constants.O_NONBLOCK | (opts.followSymlink === false ? constants.O_NOFOLLOW : 0);
  let fd: number;
  try {
    fd = openSync(file, flags);
  } catch (e) {
    throw openFailure(file, opts, e as NodeJS.ErrnoException);
  }
  try {
    if (opts.within !== undefined) assertWithin(fd, file, opts);
    if (opts.refuse) assertAccepted(fd, file, opts.refuse);
    const st = fstatSync(fd);
    if (!st.isFile()) {
      throw new SafeReadError(file, "not_regular", `${opts.what} ${file} is ${kindOf(st)}, not a regular file; replace it with a regular file`);
    }
    if (st.size > opts.maxBytes && !prefix) throw tooLarge(file, opts);
    // Read at most one byte past the limit: a file that grows after fstat is still caught, never buffered whole.
    const buf = Buffer.allocUnsafe(Math.min(opts.maxBytes + 1, Math.max(st.size + 1, 4 * KiB)));
    let total = 0;
    let chunk = buf;
    for (;;) {
      if (total === chunk.length) {
        if (chunk.length > opts.maxBytes) break;
        const bigger = Buffer.allocUnsafe(Math.min(opts.maxBytes + 1, chunk.length * 2));
        chunk.copy(bigger, 0, 0, total);
        chunk = bigger;
      }
      const n = readSync(fd, chunk, total, chunk.length - total, null);
      if (n === 0) break;
      total += n;
    }
    return { bytes: chunk.subarray(0, Math.min(total, opts.maxBytes)), truncated: total > opts.maxBytes };
  } catch (e) {
    if (e instanceof SafeReadError) throw e;
    throw new SafeReadError(file, "unreadable", `cannot read ${opts.what} ${file}: ${(e as Error).message}`);
  } finally {
    closeSync(fd);
  }
}

/** Where /proc is not mounted there is nothing to check against; callers' own path checks still apply. */
function assertWithin(fd: number, file: string, opts: SafeReadOptions): void {
  let actual: string;
  try {
    actual = readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return;
  }
  if (actual === opts.within || !isInside(opts.within!, actual)) {
    throw new SafeReadError(file, "outside", `${opts.what} ${file} is no longer inside ${opts.within} (it was moved or replaced by a symbolic link); refused`);
  }
}

function assertAccepted(fd: number, file: string, refuse: (realPath: string) => string | undefined): void {
  let actual: string;
  try {
    actual = readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    throw new SafeReadError(file, "unreadable", `cannot tell where ${file} really is (/proc is not mounted); refused`);
  }
  const why = refuse(actual);
  if (why) throw new SafeReadError(file, "outside", why);
}

/** Reads a file as UTF-8 text, or throws SafeReadError. */
export function readBoundedText(file: string, opts: SafeReadOptions): string {
  return readBoundedBytes(file, opts).toString("utf8");
}

/** Like readBoundedText, but a missing file is undefined instead of an error. */
export function readBoundedTextIfExists(file: string, opts: SafeReadOptions): string | undefined {
  try {
    return readBoundedText(file, opts);
  } catch (e) {
    if (e instanceof SafeReadError && e.reason === "missing") return undefined;
    throw e;
  }
}

/** True when `candidate` (an absolute path) is `root` or below it, judged lexically. */
export function isInside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate);
  return rel === "" || (rel !== ".." && !rel.startsWith("../") && !isAbsolute(rel));
}

function openFailure(file: string, opts: SafeReadOptions, e: NodeJS.ErrnoException): SafeReadError {
  switch (e.code) {
    case "ENOENT":
    case "ENOTDIR":
      return new SafeReadError(file, "missing", `${opts.what} ${file} does not exist`);
    case "ELOOP":
      return new SafeReadError(file, "symlink", `${opts.what} ${file} is a symbolic link, which SCV does not follow here; replace it with a regular file`);
    case "EACCES":
    case "EPERM":
      return new SafeReadError(file, "unreadable", `cannot read ${opts.what} ${file}: permission denied; check its owner and mode`);
    case "ENXIO":
      // O_NONBLOCK open of a socket-like special file
      return new SafeReadError(file, "not_regular", `${opts.what} ${file} is a special file, not a regular file; replace it with a regular file`);
    default:
      return new SafeReadError(file, "unreadable", `cannot read ${opts.what} ${file}: ${e.message}`);
  }
}

function tooLarge(file: string, opts: SafeReadOptions): SafeReadError {
  return new SafeReadError(file, "too_large", `${opts.what} ${file} is larger than ${formatSize(opts.maxBytes)}, the most SCV reads for it; make it smaller`);
}

export function kindOf(st: import("node:fs").Stats): string {
  if (st.isDirectory()) return "a directory";
  if (st.isFIFO()) return "a FIFO (named pipe)";
  if (st.isCharacterDevice()) return "a character device";
  if (st.isBlockDevice()) return "a block device";
  if (st.isSocket()) return "a socket";
  return "a special file";
}

function formatSize(bytes: number): string {
  if (bytes >= MiB && bytes % MiB === 0) return `${bytes / MiB} MiB`;
  if (bytes >= KiB && bytes % KiB === 0) return `${bytes / KiB} KiB`;
  return `${bytes} bytes`;
}
