// A PID namespace for each sandboxed command, so that when the command ends, is cancelled or SCV dies, the kernel
// ends everything it started (`setsid env -i` daemons too) and the command cannot signal, renice or prlimit a
// process outside. The launcher unshares CLONE_NEWPID after building the view; the namespace's first process is
// SCV's own: a routine of machine code (pid1/x86_64.S, bytes in pid1-code.ts) mapped into the launcher and called
// through bun:ffi. It forks, and the child, PID 1, confines itself, mounts the namespace's /proc, starts the
// command, reaps orphans, and when the command ends kills what is left and reports. Why machine code: the kernel
// refuses a thread to a process whose children go to another PID namespace, so Bun (threads) cannot spawn there,
// a fork from FFI cannot go on running JavaScript, and a helper program would be a second file to install.
// x86_64 only for now; elsewhere the launcher executes the command in place, without the PID namespace.
import { PID1_X86_64 } from "./pid1-code";
import { ffi } from "../process/libc";
import { check, cstr, defaultSignals, ptr, SIGNALS_BUN_IGNORES, SYS, sys, sysError } from "./sys";

export const pid1Supported = process.platform === "linux" && process.arch === "x64";

const PROT_READ = 1n;
const PROT_WRITE = 2n;
const PROT_EXEC = 4n;
const MAP_PRIVATE = 2n;
const MAP_ANONYMOUS = 0x20n;
const O_CLOEXEC = 0o2000000;
const __WALL = 0x40000000n;
const EINTR = -4;

/** How the command is started: what PID 1 executes and how it confines itself first. */
export interface Pid1Start {
  file: string;
  argv: BigUint64Array;
  envp: BigUint64Array;
  /** A Landlock ruleset PID 1 restricts itself with (the launcher keeps its own copy); -1: none. */
  landlockFd: number;
  /** The Landlock rights PID 1 grants on the /proc it mounts (the ruleset's rules for the one it covers lapse). */
  procRights: number;
  /** Called in the launcher once PID 1 runs: the launcher confines itself too. */
  started?: () => void;
}

/** How the command ended, as PID 1 reported it. */
export type Pid1Outcome =
  | { kind: "ended"; status: number; stopped: number }
  | { kind: "not-run"; why: string };

const STEPS: Record<number, string> = { 1: "Landlock could not be applied", 2: "capabilities could not be dropped", 3: "the command could not be started (fork)" };

let routine: ((block: Buffer) => bigint) | undefined;

function spawnRoutine(): (block: Buffer) => bigint {
  if (routine) return routine;
  const c = sys();
  const code = Buffer.from(PID1_X86_64, "hex");
  const addr = c.syscall(SYS.mmap, 0n, 4096n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1n, 0n);
  if (addr < 0n || addr === -1n) throw sysError("mmap (for the sandbox's PID 1)");
  new Uint8Array(ffi().toArrayBuffer(Number(addr) as never, 0, code.length)).set(code);
  check(c.syscall(SYS.mprotect, addr, 4096n, PROT_READ | PROT_EXEC, 0n, 0n, 0n), "mprotect (for the sandbox's PID 1)");
  const fn = ffi().CFunction({ ptr: Number(addr) as never, args: ["ptr"], returns: "i64" });
  return (routine = (block) => fn(ptr(block)) as bigint);
}

/**
 * Starts the command as the child of a new PID 1 (CLONE_NEWPID must already be unshared) and waits for it; the
 * launcher ignores the signals meant for the command meanwhile. Returns what PID 1 reported.
 */
export function runUnderPid1(start: Pid1Start): Pid1Outcome {
  const c = sys();
  const pipe = new Int32Array(2);
  check(c.syscall(SYS.pipe2, BigInt(ptr(pipe)), BigInt(O_CLOEXEC), 0n, 0n, 0n, 0n), "pipe2 (for the sandbox's PID 1)");
  const [readEnd, writeEnd] = [pipe[0]!, pipe[1]!];
  const proc = cstr("proc");
  const procDir = cstr("/proc");
  const message = Buffer.from(`scv sandbox: the command could not be executed\n`);
  const file = cstr(start.file);
  const block = Buffer.alloc(216);
  const set = (offset: number, value: bigint) => block.writeBigInt64LE(value, offset);
  set(0, BigInt(ptr(file)));
  set(8, BigInt(ptr(start.argv)));
  set(16, BigInt(ptr(start.envp)));
  set(24, BigInt(writeEnd));
  set(32, BigInt(start.landlockFd));
  set(40, 1n); // PID 1 always drops every capability (the field lets the assembly skip it)
  set(48, 1n);
  set(56, BigInt(ptr(proc)));
  set(64, BigInt(ptr(procDir)));
  set(72, BigInt(ptr(message)));
  set(80, BigInt(message.length));
  set(104, -1n);
  block.writeUInt32LE(0x20080522, 112);
  set(168, BigInt(start.procRights));
  // Ignored before PID 1 exists, so a TERM to the run's group can never find the launcher still at its default
  // (it would die and take the namespace with it while the command's trap runs); the command gets them back.
  ignoreStopSignals();
  set(160, [...STOP_SIGNALS, ...SIGNALS_BUN_IGNORES].reduce((mask, sig) => mask | (1n << BigInt(sig)), 0n));
  const pid = Number(spawnRoutine()(block));
  c.close(writeEnd);
  if (pid < 0) throw new Error(`starting the sandbox's PID 1 failed (errno ${-pid})`);
  start.started?.();
  const status = new Int32Array(1);
  for (;;) {
    const r = Number(c.syscall(SYS.wait4, BigInt(pid), BigInt(ptr(status)), __WALL, 0n, 0n, 0n));
    if (r === pid) break;
    if (r !== -1 && r !== EINTR) throw new Error(`waiting for the sandbox's PID 1 failed (${r})`);
  }
  const note = new Uint32Array(3);
  const got = Number(c.syscall(SYS.read, BigInt(readEnd), BigInt(ptr(note)), 12n, 0n, 0n, 0n));
  c.close(readEnd);
  if (got === 12 && note[0] === 1) return { kind: "ended", status: note[2]!, stopped: note[1]! };
  if (got === 12 && note[0] === 2) return { kind: "not-run", why: STEPS[note[1]!] ?? `step ${note[1]} failed` };
  // PID 1 ended without a note: killed (SIGKILL from SCV's cancel or the death watch) before the command ended.
  return { kind: "ended", status: status[0]!, stopped: 0 };
}

/** SIGHUP, SIGINT, SIGQUIT and SIGTERM: sent to the run's group, they are for the command. */
const STOP_SIGNALS = [1, 2, 3, 15];

/** The launcher ignores the stop signals while it waits (the command gets them, its traps run). */
function ignoreStopSignals(): void {
  const c = sys();
  const ignore = new BigUint64Array([1n, 0n, 0n, 0n]); // struct kernel_sigaction: SIG_IGN, no flags, no restorer, empty mask
  for (const sig of STOP_SIGNALS) c.syscall(SYS.rt_sigaction, BigInt(sig), BigInt(ptr(ignore)), 0n, 8n, 0n, 0n);
}

/**
 * Ends the launcher the way the command ended: the same exit status, or the same signal (default action restored
 * and unblocked first), so the runner sees what it would have seen had the command been its child.
 */
export function endLike(status: number): never {
  const c = sys();
  const signal = status & 0x7f;
  if (signal) {
    defaultSignals([signal]);
    const mask = new BigUint64Array([1n << BigInt(signal - 1)]);
    c.syscall(SYS.rt_sigprocmask, 1n /* SIG_UNBLOCK */, BigInt(ptr(mask)), 0n, 8n, 0n, 0n);
    c.syscall(SYS.kill, BigInt(process.pid), BigInt(signal), 0n, 0n, 0n, 0n);
  }
  c.syscall(SYS.exit_group, BigInt(signal ? 128 + signal : (status >> 8) & 0xff), 0n, 0n, 0n, 0n, 0n);
  process.exit(signal ? 128 + signal : (status >> 8) & 0xff);
}
