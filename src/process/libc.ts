// The few libc calls Bun does not expose: pipe2 (a real pipe, not Bun's socketpair), fcntl (non-blocking
// write end), prctl (child subreaper) and waitpid on one specific pid. Loaded lazily, Linux only.
import type * as Ffi from "bun:ffi";

let ffiModule: typeof Ffi | undefined;
/**
 * bun:ffi, loaded with libc: loading the module costs about 0.6 ms of every server start, and nothing here is
 * needed before the runner starts its first child.
 */
export const ffi = (): typeof Ffi => (ffiModule ??= require("bun:ffi") as typeof Ffi);

const symbols = {
  pipe2: { args: ["ptr", "i32"], returns: "i32" },
  fcntl: { args: ["i32", "i32", "i32"], returns: "i32" },
  prctl: { args: ["i32", "u64", "u64", "u64", "u64"], returns: "i32" },
  waitpid: { args: ["i32", "ptr", "i32"], returns: "i32" },
  __errno_location: { args: [], returns: "ptr" },
} as const;

type Libc = ReturnType<typeof Ffi.dlopen<typeof symbols>>["symbols"];

// glibc first; musl names its libc after the architecture.
const CANDIDATES = ["libc.so.6", `libc.musl-${process.arch === "arm64" ? "aarch64" : "x86_64"}.so.1`];

let loaded: Libc | null | undefined;

/** The libc bindings, or null when not on Linux or no known libc could be opened. */
export function libc(): Libc | null {
  if (loaded === undefined) loaded = openLibc(symbols);
  return loaded;
}

/** Binds `wanted` from the system's libc (glibc or musl); null when not on Linux or none opens. */
export function openLibc<T extends Record<string, Ffi.FFIFunction>>(wanted: T): ReturnType<typeof Ffi.dlopen<T>>["symbols"] | null {
  if (process.platform !== "linux") return null;
  for (const name of CANDIDATES) {
    try {
      return ffi().dlopen(name, wanted).symbols;
    } catch {
      // try the next name
    }
  }
  return null;
}

export function errno(): number {
  const c = libc();
  const at = c?.__errno_location();
  return at ? ffi().read.i32(at, 0) : 0;
}

const O_CLOEXEC = 0o2000000;
const O_NONBLOCK = 0o4000;
const F_GETFL = 3;
const F_SETFL = 4;

/** A real pipe (both ends close-on-exec in this process); throws when pipe2 is unavailable or fails. */
export function makePipe(): { read: number; write: number } {
  const c = libc();
  if (!c) throw new Error("pipe2 is unavailable: the process runner needs Linux with glibc or musl");
  const fds = new Int32Array(2);
  if (c.pipe2(ffi().ptr(fds), O_CLOEXEC) !== 0) throw new Error(`pipe2 failed (errno ${errno()})`);
  return { read: fds[0]!, write: fds[1]! };
}

/** Sets O_NONBLOCK on one open file description (the other end of a pipe keeps its own flags). */
export function setNonBlocking(fd: number): void {
  const c = libc()!;
  const flags = c.fcntl(fd, F_GETFL, 0);
  if (flags < 0 || c.fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) throw new Error(`fcntl failed (errno ${errno()})`);
}

export const PR_SET_CHILD_SUBREAPER = 36;
export const PR_GET_CHILD_SUBREAPER = 37;
export const WNOHANG = 1;
export const ECHILD = 10;
