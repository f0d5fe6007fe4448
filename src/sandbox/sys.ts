// The system calls the launcher needs, through libc (bun:ffi): unshare, mount, prctl, the Landlock calls and
// capset through syscall(2), execve. Linux only; x86_64 and arm64 syscall numbers.
import { errno, ffi, openLibc } from "../process/libc";

const symbols = {
  syscall: { args: ["i64", "i64", "i64", "i64", "i64", "i64"], returns: "i64" },
  prctl: { args: ["i32", "u64", "u64", "u64", "u64"], returns: "i32" },
  unshare: { args: ["i32"], returns: "i32" },
  mount: { args: ["ptr", "ptr", "ptr", "u64", "ptr"], returns: "i32" },
  open: { args: ["ptr", "i32", "i32"], returns: "i32" },
  close: { args: ["i32"], returns: "i32" },
  chdir: { args: ["ptr"], returns: "i32" },
  execve: { args: ["ptr", "ptr", "ptr"], returns: "i32" },
} as const;

type Sys = NonNullable<ReturnType<typeof openLibc<typeof symbols>>>;
let loaded: Sys | null | undefined;

export function sys(): Sys {
  loaded ??= openLibc(symbols);
  if (!loaded) throw new Error("libc could not be loaded (Linux with glibc or musl is needed)");
  return loaded;
}

const ARM = process.arch === "arm64";
/** Numbers shared by both architectures for the newer calls (the unified table). */
export const SYS = {
  landlock_create_ruleset: 444n,
  landlock_add_rule: 445n,
  landlock_restrict_self: 446n,
  mount_setattr: 442n,
  capset: ARM ? 91n : 126n,
} as const;

export const CLONE_NEWNS = 0x00020000;
export const CLONE_NEWNET = 0x40000000;
export const MS_RDONLY = 1;
export const MS_NOSUID = 2;
export const MS_NODEV = 4;
export const MS_NOEXEC = 8;
export const MS_REMOUNT = 32;
export const MS_BIND = 4096;
export const MS_REC = 16384;
export const MS_PRIVATE = 1 << 18;
export const O_PATH = 0o10000000;
export const O_CLOEXEC = 0o2000000;
export const O_DIRECTORY = 0o200000;
export const AT_FDCWD = -100;
export const AT_RECURSIVE = 0x8000;
export const MOUNT_ATTR_RDONLY = 1;
export const PR_SET_NO_NEW_PRIVS = 38;
export const PR_CAPBSET_DROP = 24;
export const PR_CAP_AMBIENT = 47;
export const PR_CAP_AMBIENT_CLEAR_ALL = 4;

/** A NUL-terminated copy of `s` for a `ptr` argument. */
export function cstr(s: string): Buffer {
  return Buffer.from(`${s}\0`);
}

export const ptr = (b: NodeJS.TypedArray) => ffi().ptr(b);

const ERRNO_NAMES: Record<number, string> = { 1: "EPERM", 2: "ENOENT", 13: "EACCES", 16: "EBUSY", 20: "ENOTDIR", 22: "EINVAL", 38: "ENOSYS", 95: "EOPNOTSUPP" };

/** `what` failed: the message names the call and errno (`unshare failed (EPERM)`). */
export function sysError(what: string): Error {
  const e = errno();
  return new Error(`${what} failed (${ERRNO_NAMES[e] ?? `errno ${e}`})`);
}

export function check(result: number | bigint, what: string): number {
  if (Number(result) < 0) throw sysError(what);
  return Number(result);
}

export function mount(source: string | null, target: string, fstype: string | null, flags: number, data: string | null): void {
  const c = sys();
  const s = source === null ? null : cstr(source);
  const f = fstype === null ? null : cstr(fstype);
  const d = data === null ? null : cstr(data);
  check(c.mount(s, cstr(target), f, BigInt(flags), d), `mount of ${target}`);
}
