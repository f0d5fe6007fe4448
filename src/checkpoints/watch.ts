// Which folders of the workspace changed since the last recording: an inotify watch on every folder the walk
// enters (Linux, through libc), drained before each recording. A recording lists again only the folders events
// name; everything else is taken from the last walk. When the kernel's queue overflowed, a folder moved, an
// ignore file changed, a watch could not be added (the user's watch limit) or inotify is not there, the answer
// is "all" (a full walk), so the watch only ever saves work, never decides what is recorded on its own.
// Not seen by inotify: writes through a shared memory mapping and changes on another host of a network file
// system; the recorder walks everything now and then (FULL_WALK_EVERY) for those.
import type * as Ffi from "bun:ffi";
import { ffi, openLibc } from "../process/libc";

const IN_MODIFY = 0x2;
const IN_ATTRIB = 0x4;
const IN_CLOSE_WRITE = 0x8;
const IN_MOVED_FROM = 0x40;
const IN_MOVED_TO = 0x80;
const IN_CREATE = 0x100;
const IN_DELETE = 0x200;
const IN_DELETE_SELF = 0x400;
const IN_MOVE_SELF = 0x800;
const IN_UNMOUNT = 0x2000;
const IN_Q_OVERFLOW = 0x4000;
const IN_IGNORED = 0x8000;
const IN_ONLYDIR = 0x1000000;
const IN_DONT_FOLLOW = 0x2000000;
const IN_EXCL_UNLINK = 0x4000000;
const IN_NONBLOCK = 0o4000;
const IN_CLOEXEC = 0o2000000;
const MASK = IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW | IN_EXCL_UNLINK;
const IGNORE_FILES = new Set([".gitignore", ".ignore"]);

const symbols = {
  inotify_init1: { args: ["i32"], returns: "i32" },
  inotify_add_watch: { args: ["i32", "ptr", "u32"], returns: "i32" },
  read: { args: ["i32", "ptr", "u64"], returns: "i64" },
  close: { args: ["i32"], returns: "i32" },
} as const;
type Inotify = ReturnType<typeof Ffi.dlopen<typeof symbols>>["symbols"];
let bound: Inotify | null | undefined;
const inotify = (): Inotify | null => (bound === undefined ? (bound = openLibc(symbols)) : bound);

export class FolderWatch {
  private readonly byWd = new Map<number, string>();
  private broken = false;
  private readonly buf = new Uint8Array(64 * 1024);

  private constructor(
    private fd: number,
    private readonly c: Inotify,
  ) {}

  /** A watch, or undefined where inotify is not available (or the user's instance limit is reached). */
  static open(): FolderWatch | undefined {
    const c = inotify();
    if (!c) return undefined;
    const fd = c.inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    return fd < 0 ? undefined : new FolderWatch(fd, c);
  }

  /** Watches one folder (before the walk lists it); a failure makes the next drain answer "all". */
  add(abs: string, rel: string): void {
    if (this.fd < 0 || this.broken) return;
    const path = Buffer.from(`${abs}\0`);
    const wd = this.c.inotify_add_watch(this.fd, ffi().ptr(path), MASK);
    if (wd < 0) this.broken = true;
    else this.byWd.set(wd, rel);
  }

  /** The folders changed since the last drain, or "all" when the events cannot say. */
  drain(): Set<string> | "all" {
    if (this.fd < 0 || this.broken) return "all";
    const dirty = new Set<string>();
    let all = false;
    const view = new DataView(this.buf.buffer);
    for (;;) {
      const n = Number(this.c.read(this.fd, ffi().ptr(this.buf), BigInt(this.buf.length)));
      if (n <= 0) break; // EAGAIN: nothing more queued
      for (let at = 0; at + 16 <= n; ) {
        const wd = view.getInt32(at, true);
        const mask = view.getUint32(at + 4, true);
        const len = view.getUint32(at + 12, true);
        let name = "";
        if (len) {
          const end = this.buf.indexOf(0, at + 16);
          name = Buffer.from(this.buf.subarray(at + 16, end < 0 || end > at + 16 + len ? at + 16 + len : end)).toString("utf8");
        }
        at += 16 + len;
        if (mask & (IN_Q_OVERFLOW | IN_MOVE_SELF | IN_UNMOUNT)) all = true;
        const rel = this.byWd.get(wd);
        if (rel === undefined) continue;
        if (IGNORE_FILES.has(name)) all = true; // the rules of a whole subtree changed
        dirty.add(rel);
        if (mask & (IN_DELETE_SELF | IN_IGNORED)) {
          if (mask & IN_IGNORED) this.byWd.delete(wd);
          dirty.add(parentOf(rel));
        }
      }
    }
    return all ? "all" : dirty;
  }

  close(): void {
    if (this.fd >= 0) this.c.close(this.fd);
    this.fd = -1;
    this.byWd.clear();
  }
}

function parentOf(rel: string): string {
  const cut = rel.lastIndexOf("/");
  return cut < 0 ? "" : rel.slice(0, cut);
}
