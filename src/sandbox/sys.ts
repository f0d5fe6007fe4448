// The system calls the launcher needs, through libc (bun:ffi): unshare, mount, prctl, the Landlock calls and
// capset through syscall(2), execve. Linux only; x86_64 and arm64 syscall numbers.
import { ffi, openLibc } from "../process/libc";

// Two symbols only: binding each libc function through bun:ffi costs start-up time the launcher pays on every
// sandboxed command, so every call below goes through syscall(2).
const symbols = {
  syscall: { args: ["i64", "i64", "i64", "i64", "i64", "i64", "i64"], returns: "i64" },
  __errno_location: { args: [], returns: "ptr" },
} as const;

type Libc = NonNullable<ReturnType<typeof openLibc<typeof symbols>>>;
let loaded: Libc | null | undefined;

function libc(): Libc {
  loaded ??= openLibc(symbols);
  if (!loaded) throw new Error("libc could not be loaded (Linux with glibc or musl is needed)");
  return loaded;
}

const ARM = process.arch === "arm64";
/** Numbers shared by both architectures for the newer calls (the unified table), per architecture for the rest. */
export const SYS = {
  landlock_create_ruleset: 444n,
  landlock_add_rule: 445n,
  landlock_restrict_self: 446n,
  mount_setattr: 442n,
  capset: ARM ? 91n : 126n,
  prctl: ARM ? 167n : 157n,
  unshare: ARM ? 97n : 272n,
  mount: ARM ? 40n : 165n,
  openat: ARM ? 56n : 257n,
  close: ARM ? 57n : 3n,
  chdir: ARM ? 49n : 80n,
  execve: ARM ? 221n : 59n,
  socket: ARM ? 198n : 41n,
  ioctl: ARM ? 29n : 16n,
  dup3: ARM ? 24n : 292n,
  pidfd_open: 434n,
  pidfd_getfd: 438n,
  bind: ARM ? 200n : 49n,
  listen: ARM ? 201n : 50n,
  read: ARM ? 63n : 0n,
  mmap: ARM ? 222n : 9n,
  mprotect: ARM ? 226n : 10n,
  munmap: ARM ? 215n : 11n,
  pipe2: ARM ? 59n : 293n,
  wait4: ARM ? 260n : 61n,
  kill: ARM ? 129n : 62n,
  rt_sigaction: ARM ? 134n : 13n,
  rt_sigprocmask: ARM ? 135n : 14n,
  exit_group: ARM ? 94n : 231n,
  setns: ARM ? 268n : 308n,
  setsockopt: ARM ? 208n : 54n,
} as const;

type Arg = bigint | number | Buffer | NodeJS.TypedArray | null;
const arg = (a: Arg): bigint => (a === null ? 0n : typeof a === "bigint" ? a : typeof a === "number" ? BigInt(a) : BigInt(ffi().ptr(a)));

let api: ReturnType<typeof makeSys> | undefined;

/** The calls the launcher makes, each one syscall(2); results as libc returns them (-1 and errno on failure). */
export function sys() {
  return (api ??= makeSys());
}

function makeSys() {
  const c = libc();
  const call = (n: bigint, a = 0n as Arg, b = 0n as Arg, d = 0n as Arg, e = 0n as Arg, f = 0n as Arg) => Number(c.syscall(n, arg(a), arg(b), arg(d), arg(e), arg(f), 0n));
  return {
    syscall: (n: bigint, a: bigint, b: bigint, d: bigint, e: bigint, f: bigint, g = 0n) => c.syscall(n, a, b, d, e, f, g),
    prctl: (option: number, a: bigint, b: bigint, d: bigint, e: bigint) => call(SYS.prctl, option, a, b, d, e),
    unshare: (flags: number) => call(SYS.unshare, flags),
    mount: (source: Buffer | null, target: Buffer, fstype: Buffer | null, flags: bigint, data: Buffer | null) => call(SYS.mount, source, target, fstype, flags, data),
    open: (path: Buffer, flags: number, mode: number) => call(SYS.openat, -100, path, flags, mode),
    close: (fd: number) => call(SYS.close, fd),
    chdir: (path: Buffer) => call(SYS.chdir, path),
    execve: (file: Buffer, argv: BigUint64Array, envp: BigUint64Array) => call(SYS.execve, file, argv, envp),
  };
}

function errno(): number {
  const at = libc().__errno_location();
  return at ? ffi().read.i32(at, 0) : 0;
}

export const CLONE_NEWNS = 0x00020000;
export const CLONE_NEWUSER = 0x10000000;
export const CLONE_NEWNET = 0x40000000;
export const CLONE_NEWPID = 0x20000000;
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

const ERRNO_NAMES: Record<number, string> = { 1: "EPERM", 2: "ENOENT", 13: "EACCES", 16: "EBUSY", 20: "ENOTDIR", 22: "EINVAL", 38: "ENOSYS", 95: "EOPNOTSUPP", 98: "EADDRINUSE" };

/** An errno by its name where it is a common one (`ENOENT`), else `errno N`. */
export function errnoName(e: number): string {
  return ERRNO_NAMES[e] ?? `errno ${e}`;
}

/** `what` failed: the message names the call and errno (`unshare failed (EPERM)`). */
export function sysError(what: string): Error {
  const e = errno();
  return new Error(`${what} failed (${errnoName(e)})`);
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

/** `signals` back to their default action (SIG_DFL), as a command expects; Bun ignores SIGPIPE and SIGXFSZ. */
export function defaultSignals(signals: readonly number[]): void {
  const dfl = new BigUint64Array(4); // struct kernel_sigaction, all zero: SIG_DFL
  for (const sig of signals) sys().syscall(SYS.rt_sigaction, BigInt(sig), BigInt(ptr(dfl)), 0n, 8n, 0n);
}

/** The signals Bun ignores and a command expects at their default (an ignored signal stays so across execve). */
export const SIGNALS_BUN_IGNORES = [13, 25];
