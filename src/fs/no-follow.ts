// Reaching files below a folder without following a symbolic link anywhere on the way. Each folder is opened
// with O_DIRECTORY|O_NOFOLLOW through the descriptor of the one above it (`/proc/self/fd/N/name` acts like
// openat()), so a folder swapped for a link to elsewhere fails to open instead of being written through, and a
// new file is created O_EXCL|O_NOFOLLOW (never an existing file or link). Where /proc is not mounted the checked
// path stands in for the descriptor: each part is still refused when it is a link, with a narrow race left.
// Shared by the `write` tool's atomic install (tools/atomic-write.ts) and the checkpoint restore.
import * as fs from "node:fs";

/** Creating a new file: write-only, never an existing name, never through a final symbolic link. */
export const CREATE_EXCLUSIVE = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW;
const FOLDER = fs.constants.O_RDONLY | fs.constants.O_DIRECTORY;

/** Opens a folder; with `follow: false` (the default) a symbolic link at its last part fails (ELOOP). */
export function openFolder(dir: string, opts: { follow?: boolean } = {}): number {
  return fs.openSync(dir, FOLDER | (opts.follow ? 0 : fs.constants.O_NOFOLLOW));
}

/**
 * The path through which names inside the open folder `fd` are reached: `/proc/self/fd/N`, which reaches the
 * folder that was opened and checked even if `dir` is swapped for a link afterwards; `dir` itself without /proc.
 */
export function folderBase(fd: number, dir: string): string {
  return fs.existsSync(`/proc/self/fd/${fd}`) ? `/proc/self/fd/${fd}` : dir;
}

/** An open folder: its descriptor and the base path of names inside it (see folderBase). */
export interface OpenFolder {
  fd: number;
  base: string;
}

/** A part of a path that is no folder (a symbolic link, a file) where one was needed: nothing is written through it. */
export class NotAFolderError extends Error {
  constructor(readonly rel: string, code: string) {
    super(`${JSON.stringify(rel)} is ${code === "ENOENT" ? "gone" : "not a folder (a symbolic link or a file)"} now; refused to write through it`);
    this.name = "NotAFolderError";
  }
}

const MAX_OPEN = 256;

/**
 * The folders below one root, opened on demand one part at a time without following a link, and kept open
 * (up to MAX_OPEN, then all closed and opened again as needed) until close(). Relative paths use `/`.
 */
export class FolderTree {
  private readonly root: OpenFolder;
  private readonly opened = new Map<string, OpenFolder>();

  /** Opens the root (following links in its own path: the root is the caller's choice, not the content's). */
  constructor(rootPath: string) {
    const fd = openFolder(rootPath, { follow: true });
    this.root = { fd, base: folderBase(fd, rootPath) };
  }

  /** The path of `name` inside the folder `rel` ("" is the root). */
  at(rel: string, name: string, opts: { create?: boolean } = {}): string {
    return `${this.folder(rel, opts).base}/${name}`;
  }

  /** The folder `rel` ("" is the root); `create` makes missing folders (0755 before the umask). Throws NotAFolderError. */
  folder(rel: string, opts: { create?: boolean } = {}): OpenFolder {
    if (rel === "") return this.root;
    if (!this.opened.has(rel) && this.opened.size >= MAX_OPEN) this.closeOpened();
    return this.open(rel, opts.create === true);
  }

  /**
   * The content of the regular file `rel` (a path below the root), read without following a link in any part:
   * throws when a folder on the way or the file itself is a link, or the file is no regular file.
   */
  read(rel: string): Buffer {
    const cut = rel.lastIndexOf("/");
    const fd = fs.openSync(this.at(cut === -1 ? "" : rel.slice(0, cut), rel.slice(cut + 1)), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
    try {
      if (!fs.fstatSync(fd).isFile()) throw new Error(`${JSON.stringify(rel)} is not a regular file`);
      return fs.readFileSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Forgets `rel` and every folder below it (after it was removed). */
  forget(rel: string): void {
    for (const [k, f] of this.opened) {
      if (k !== rel && !k.startsWith(`${rel}/`)) continue;
      fs.closeSync(f.fd);
      this.opened.delete(k);
    }
  }

  close(): void {
    this.closeOpened();
    fs.closeSync(this.root.fd);
  }

  private open(rel: string, create: boolean): OpenFolder {
    const known = this.opened.get(rel);
    if (known) return known;
    const cut = rel.lastIndexOf("/");
    const parent = cut === -1 ? this.root : this.open(rel.slice(0, cut), create);
    const path = `${parent.base}/${rel.slice(cut + 1)}`;
    if (create) {
      try {
        fs.mkdirSync(path, 0o755); // mkdir never follows a link at its last part: a link there is EEXIST, then ELOOP below
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      }
    }
    let fd: number;
    try {
      fd = openFolder(path);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? "";
      if (code === "ELOOP" || code === "ENOTDIR" || code === "ENOENT") throw new NotAFolderError(rel, code);
      throw e;
    }
    const folder = { fd, base: this.root.base.startsWith("/proc/self/fd/") ? `/proc/self/fd/${fd}` : path };
    this.opened.set(rel, folder);
    return folder;
  }

  private closeOpened(): void {
    for (const f of this.opened.values()) fs.closeSync(f.fd);
    this.opened.clear();
  }
}

/**
 * Writes a new file at `file`, which must not exist (O_EXCL|O_NOFOLLOW: never an existing file or link): 0600
 * while it is written, then `mode` set through its descriptor (a chmod by path would follow a link); synced
 * unless `durable: false`. Throws the system error (EEXIST when the name is taken); a half-written file is removed.
 */
export function createExclusiveFile(file: string, data: string | Uint8Array, opts: { mode?: number; durable?: boolean } = {}): void {
  const fd = fs.openSync(file, CREATE_EXCLUSIVE, 0o600);
  let written = false;
  try {
    if (typeof data === "string") fs.writeSync(fd, data); // two calls: writeSync has separate overloads for each
    else fs.writeSync(fd, data);
    if (opts.mode !== undefined) fs.fchmodSync(fd, opts.mode);
    if (opts.durable !== false) fs.fsyncSync(fd);
    written = true;
  } finally {
    fs.closeSync(fd);
    if (!written) {
      try {
        fs.unlinkSync(file);
      } catch {
        // already gone
      }
    }
  }
}
