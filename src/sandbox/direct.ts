// The direct start: a sandboxed command started by SCV itself, with no launcher process. The launcher is a second
// Bun start (~20 ms) plus its own work, per command; here SCV decides everything beforehand (the view's mounts,
// view-plan.ts; the Landlock rules, rule-cache.ts) and writes it as three short programs of system calls into one
// mapped arena, and machine code (direct/x86_64.S) runs them: an intermediate sharing SCV's memory and descriptors
// enters the session's namespaces (and opens the egress proxy's listening socket there, straight into SCV's
// descriptor table), clones PID 1 into a new PID namespace as SCV's own child, and PID 1 makes its mount
// namespace, builds the view, makes the Landlock ruleset there and starts the command, which confines itself and
// executes. Why the kernel allows it: SCV has threads, so it may not unshare or setns into a user namespace
// itself, but a child it clones has one thread and may (the issue's own reading of clone(2)).
//
// PID 1 shares SCV's memory (no copy of a Bun's page tables per command), so the command must never reach it: it
// has dropped every capability PID 1 keeps and carries a Landlock domain PID 1 lacks, and the kernel refuses
// ptrace and /proc/1/mem on either ground; PID 1 blocks every signal and, as init, SIGKILL from inside is ignored.
// x86_64 only; the launcher serves elsewhere, and where the egress proxy would have to listen in a network
// namespace of the command's own (the session's could not be made).
import { readFileSync } from "node:fs";
import { constants } from "node:os";
import { DIRECT_X86_64 } from "./direct-code";
import { Arena, B, FIRST_SLOT, Program, STACK } from "./direct-program";
import { ffi, makePipe } from "../process/libc";
import { type PathRule, rulesetAttr } from "./landlock";
import { resolveProgram } from "./paths";
import type { ViewStep } from "./view-plan";
import { AT_FDCWD, AT_RECURSIVE, CLONE_NEWNET, CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWUSER, MOUNT_ATTR_RDONLY, MS_BIND, MS_NODEV, MS_NOEXEC, MS_NOSUID, MS_PRIVATE, MS_RDONLY, MS_REC, MS_REMOUNT, O_CLOEXEC, O_PATH, errnoName, SYS, sys, sysError } from "./sys";

export const directSupported = process.platform === "linux" && process.arch === "x64";

/** x86_64 system call numbers the programs use (the direct start is x86_64 only). */
const NR = {
  write: 1, close: 3, rt_sigaction: 13, rt_sigprocmask: 14, socket: 41, bind: 49, listen: 50, setsockopt: 54, execve: 59,
  chdir: 80, setsid: 112, unshare: 272, capset: 126, prctl: 157, mount: 165, openat: 257, mkdirat: 258, dup3: 292, setns: 308,
  landlock_create_ruleset: 444, open_tree: 428, move_mount: 429, close_range: 436, mount_setattr: 442, landlock_add_rule: 445, landlock_restrict_self: 446,
} as const;
const CLONE_VM = 0x100;
const CLONE_PARENT = 0x8000;
const OPEN_TREE_CLONE = 1;
const MOVE_MOUNT_F_EMPTY_PATH = 4;
const EEXIST = 17;
const ENOENT = 2;
const O_WRONLY = 1;
const __WALL = 0x40000000n;
const WNOHANG = 1n;

let code: ((block: bigint) => bigint) | undefined;

function spawnRoutine(): (block: bigint) => bigint {
  if (code) return code;
  const c = sys();
  const bytes = Buffer.from(DIRECT_X86_64, "hex");
  const addr = c.syscall(SYS.mmap, 0n, 4096n, 3n, 0x22n, -1n, 0n);
  if (addr < 0n) throw sysError("mmap (for the sandbox's start)");
  new Uint8Array(ffi().toArrayBuffer(Number(addr) as never, 0, bytes.length)).set(bytes);
  if (c.syscall(SYS.mprotect, addr, 4096n, 5n /* read, execute */, 0n, 0n, 0n) !== 0n) throw sysError("mprotect (for the sandbox's start)");
  const fn = ffi().CFunction({ ptr: Number(addr) as never, args: ["u64"], returns: "i64" });
  return (code = (block) => fn(block) as bigint);
}

/** What the direct start needs besides the command: made by the sandbox room (index.ts) from the policy. */
export interface DirectPlan {
  steps: ViewStep[];
  /** The command's Landlock rules, in the view's paths (planCommandRules with /tmp and /dev/shm). */
  rules: readonly PathRule[];
  abi: number;
  cwd: string;
  /** Enter the session's namespaces through these descriptors (SCV keeps them); else new ones. */
  join?: { user?: number; net: number };
  /** A user namespace of the command's own, mapping only this uid and gid (an ordinary user, no session namespace). */
  ownUserns?: boolean;
  /** A network namespace of the command's own, its loopback down (no session namespace and the network off). */
  ownNetwork?: boolean;
  /** The egress proxy's port: its listening socket is made in the session's namespace, in SCV's descriptor table. */
  proxyPort?: number;
}

/** The started command, as the process runner sees it (its leader is PID 1, SCV's child). */
export interface DirectChild {
  pid: number;
  exited: Promise<void>;
  exitCode: number | null;
  signalCode: string | null;
  /** Why nothing ran (a step of the view or the confinement failed); the command's status is then not real. */
  failure?: string;
  /** Processes the command left running, which PID 1 stopped. */
  stopped: number;
}

/** Starts `argv` under `plan`; `proxyFd` gets the proxy's listening socket (SCV's to accept on). */
export function startDirect(
  plan: DirectPlan,
  child: { argv: string[]; env: Record<string, string>; stdin?: number; stdout: number; stderr: number },
  proxyFd?: (fd: number) => void,
): DirectChild {
  const payload = child.argv.reduce((n, a) => n + a.length * 3 + 16, 0) + Object.entries(child.env).reduce((n, [k, v]) => n + (k.length + v.length) * 3 + 16, 0);
  const arena = Arena.take(3 * STACK + 64 * 1024 + payload + (plan.steps.length + plan.rules.length) * 512);
  const life = makePipe();
  let pid = 0n;
  try {
    buildBlock(arena, plan, child, life.write);
    pid = spawnRoutine()(arena.base);
  } catch (e) {
    // Nothing started (the plan did not fit, say): nothing of this start may stay behind.
    sys().close(life.read);
    arena.release();
    throw e;
  } finally {
    sys().close(life.write);
  }
  const sock = plan.proxyPort ? Number(arena.get64(PROXY_SLOT)) : 0;
  const failure = describeFailure(arena);
  if (pid <= 0n) {
    if (sock > 0) sys().close(sock);
    sys().close(life.read);
    arena.release();
    throw new Error(`the command was not run: ${failure ?? `starting the sandbox's PID 1 failed (errno ${-Number(pid)})`}`);
  }
  if (sock > 0) proxyFd?.(sock);
  const handle: DirectChild = { pid: Number(pid), exited: Promise.resolve(), exitCode: null, signalCode: null, stopped: 0 };
  handle.exited = waitForEnd(handle, arena, life.read);
  return handle;
}

/** Where the intermediate leaves the proxy's socket (the first slot). */
const PROXY_SLOT = FIRST_SLOT;

/** Lays out the block and the three programs; the descriptions of every op stay for the failure message. */
function buildBlock(arena: Arena, plan: DirectPlan, child: { argv: string[]; env: Record<string, string>; stdin?: number; stdout: number; stderr: number }, lifeFd: number): void {
  if (arena.slot() !== PROXY_SLOT) throw new Error("the proxy's slot must be the first");
  const I = new Program();
  const P = new Program();
  const C = new Program();
  if (plan.join?.user !== undefined) I.call("setns into the session's user namespace", NR.setns, [plan.join.user, CLONE_NEWUSER]);
  if (plan.join) I.call("setns into the session's network namespace", NR.setns, [plan.join.net, CLONE_NEWNET]);
  if (plan.proxyPort) proxyListener(arena, I, plan.proxyPort);

  const uid = process.getuid!();
  const gid = process.getgid!();
  if (plan.ownUserns) {
    for (const [file, text] of [["/proc/self/setgroups", "deny"], ["/proc/self/uid_map", `${uid} ${uid} 1`], ["/proc/self/gid_map", `${gid} ${gid} 1`]] as const) {
      const fd = arena.slot();
      P.call(`open of ${file}`, NR.openat, [AT_FDCWD, arena.cstr(file), O_WRONLY | O_CLOEXEC, 0], { store: fd });
      const bytes = Buffer.from(text);
      P.call(`writing ${file}`, NR.write, [{ slot: fd }, arena.put(bytes), bytes.length]);
      P.call(`close of ${file}`, NR.close, [{ slot: fd }]);
    }
  }
  // The mount namespace is PID 1's first work rather than a clone flag: copying the mount table then runs beside
  // SCV's own bookkeeping instead of holding SCV's thread.
  P.call("unshare of a mount namespace", NR.unshare, [CLONE_NEWNS]);
  P.call("prctl(PR_SET_PDEATHSIG)", NR.prctl, [1, 9]);
  P.call("setsid", NR.setsid, []);
  // SCV's descriptors, copied with the clone, all go but these.
  const keep = [...new Set([lifeFd, child.stdout, child.stderr, ...(child.stdin !== undefined ? [child.stdin] : [])])].sort((a, b) => a - b);
  let from = 3;
  for (const fd of [...keep, 0x7fffffff]) {
    if (fd > from) P.call("close_range", NR.close_range, [from, fd - 1, 0]);
    from = Math.max(from, fd + 1);
  }
  P.call("mount of / (private)", NR.mount, [0, arena.cstr("/"), 0, MS_REC | MS_PRIVATE, 0]);
  viewCalls(arena, P, plan.steps);
  P.call("mount of /proc", NR.mount, [arena.cstr("proc"), arena.cstr("/proc"), arena.cstr("proc"), MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, 0], { ignore: true });
  const ruleset = rulesetCalls(arena, P, plan);
  P.call(`chdir to ${plan.cwd}`, NR.chdir, [arena.cstr(plan.cwd)]);

  // The command: the caller's signal mask, every signal at its default, its stdio, then confined and executed.
  C.call("rt_sigprocmask", NR.rt_sigprocmask, [2, arena.addr(B.mask), 0, 8]);
  const dfl = arena.put(new Uint8Array(32));
  // A handler SCV installed is reset by execve; an ignored signal (Bun ignores SIGPIPE and SIGXFSZ) would stay
  // ignored, so every standard signal goes back to its default.
  for (let sig = 1; sig < 32; sig++) if (sig !== 9 && sig !== 19) C.call("rt_sigaction", NR.rt_sigaction, [sig, dfl, 0, 8], { ignore: true });
  if (child.stdin !== undefined) {
    C.call("dup3 of stdin", NR.dup3, [child.stdin, 0, 0]);
  } else {
    const nul = arena.slot();
    C.call("open of /dev/null", NR.openat, [AT_FDCWD, arena.cstr("/dev/null"), 0 | O_CLOEXEC, 0], { store: nul });
    C.call("dup3 of stdin", NR.dup3, [{ slot: nul }, 0, 0]);
  }
  C.call("dup3 of stdout", NR.dup3, [child.stdout, 1, 0]);
  C.call("dup3 of stderr", NR.dup3, [child.stderr, 2, 0]);
  C.call("prctl(PR_SET_NO_NEW_PRIVS)", NR.prctl, [38, 1, 0, 0, 0]);
  C.call("landlock_restrict_self", NR.landlock_restrict_self, [{ slot: ruleset }, 0]);
  for (let cap = 0; cap <= lastCap(); cap++) C.call("prctl(PR_CAPBSET_DROP)", NR.prctl, [24, cap, 0, 0, 0]);
  C.call("prctl(PR_CAP_AMBIENT_CLEAR_ALL)", NR.prctl, [47, 4, 0, 0, 0], { ignore: true });
  const header = arena.put(new Uint8Array(new Uint32Array([0x20080522, 0]).buffer));
  C.call("capset (dropping capabilities)", NR.capset, [header, arena.put(new Uint8Array(24))]);
  C.call("close_range", NR.close_range, [3, 0xffffffff, 0]);
  const file = resolveProgram(child.argv[0]!, child.env.PATH);
  const argv = arena.pointers(child.argv.map((a) => arena.cstr(a)));
  const envp = arena.pointers(Object.entries(child.env).map(([k, v]) => arena.cstr(`${k}=${v}`)));
  C.call(`executing ${child.argv[0]}`, NR.execve, [arena.cstr(file), argv, envp]);

  arena.set64(B.programI, I.write(arena));
  arena.set64(B.programP, P.write(arena));
  arena.set64(B.programC, C.write(arena));
  arena.set64(B.flags, CLONE_VM | CLONE_PARENT | CLONE_NEWPID | (plan.ownUserns ? CLONE_NEWUSER : 0) | (plan.ownNetwork ? CLONE_NEWNET : 0));
  arena.set64(B.stackI, arena.stack());
  arena.set64(B.stackP, arena.stack());
  arena.set64(B.stackC, arena.stack());
  arena.set64(B.allSignals, -1n);
  arena.what = { I: I.what, P: P.what, C: C.what };
}

/**
 * The command's Landlock ruleset, made by PID 1 once the view is built, so each rule takes what its path shows
 * there (the private /tmp, the namespace's /proc and /dev/shm, the bound workspace). A path the view lacks gets no
 * rule (its open fails, so its rule is refused: less access, never more). Returns the ruleset's slot.
 */
function rulesetCalls(arena: Arena, P: Program, plan: DirectPlan): number {
  const { attr, size } = rulesetAttr(plan.abi, true);
  const slot = arena.slot();
  P.call("landlock_create_ruleset", NR.landlock_create_ruleset, [arena.put(new Uint8Array(attr.buffer)), size, 0], { store: slot });
  for (const { path, rights } of plan.rules) {
    // struct landlock_path_beneath_attr { u64 allowed_access; s32 parent_fd; } (packed); the fd stored by the open.
    const rule = arena.cell(16);
    arena.set64(rule, rights);
    arena.set64(rule + 8, -1);
    P.call(`open of ${path}`, NR.openat, [AT_FDCWD, arena.cstr(path), O_PATH | O_CLOEXEC, 0], { ignore: true, store: rule + 8 });
    P.call(`landlock_add_rule for ${path}`, NR.landlock_add_rule, [{ slot: slot }, 1, arena.addr(rule), 0], { ignore: true });
    P.call("close", NR.close, [{ slot: rule + 8 }], { ignore: true });
  }
  return slot;
}

/** The proxy's listener on 127.0.0.1:`port` in the session's namespace, left in SCV's table (PROXY_SLOT). */
function proxyListener(arena: Arena, I: Program, port: number): void {
  const addr = new Uint8Array(16); // struct sockaddr_in: family, port and 127.0.0.1 in network order
  const v = new DataView(addr.buffer);
  v.setUint16(0, 2, true);
  v.setUint16(2, port, false);
  v.setUint32(4, 0x7f000001, false);
  I.call("socket (for the network proxy)", NR.socket, [2, 1 | O_CLOEXEC, 0], { store: PROXY_SLOT });
  // SO_REUSEADDR: an earlier command's connections to this port may linger in TIME_WAIT.
  I.call("setsockopt SO_REUSEADDR (for the network proxy)", NR.setsockopt, [{ slot: PROXY_SLOT }, 1, 2, arena.put(new Uint8Array(new Int32Array([1]).buffer)), 4]);
  I.call(`bind of 127.0.0.1:${port} (for the network proxy)`, NR.bind, [{ slot: PROXY_SLOT }, arena.put(addr), 16]);
  I.call("listen (for the network proxy)", NR.listen, [{ slot: PROXY_SLOT }, 512]);
}

/** The view's steps (view-plan.ts) as PID 1's system calls. */
function viewCalls(arena: Arena, P: Program, steps: ViewStep[]): void {
  const held: number[] = [];
  const remount = (target: string, writable: boolean, gone: boolean) =>
    P.call(`mount of ${target}`, NR.mount, [0, arena.cstr(target), 0, MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV | (writable ? 0 : MS_RDONLY), 0], gone ? { ok: ENOENT } : {});
  for (const step of steps) {
    switch (step.kind) {
      case "readonly-root": {
        const attr = arena.put(new Uint8Array(new BigUint64Array([BigInt(MOUNT_ATTR_RDONLY), 0n, 0n, 0n]).buffer));
        P.call("mount_setattr (read-only root)", NR.mount_setattr, [AT_FDCWD, arena.cstr("/"), AT_RECURSIVE, attr, 32]);
        break;
      }
      case "hold":
        held[step.hold] = arena.slot();
        P.call(`open_tree of ${step.path}`, NR.open_tree, [AT_FDCWD, arena.cstr(step.path), OPEN_TREE_CLONE | O_CLOEXEC | AT_RECURSIVE], { store: held[step.hold] });
        break;
      case "bind":
        P.call(`mount of ${step.target}`, NR.mount, [arena.cstr(step.source), arena.cstr(step.target), 0, MS_BIND | MS_REC, 0], step.mayBeGone ? { ok: ENOENT } : {});
        remount(step.target, step.writable, !!step.mayBeGone);
        break;
      case "bind-held":
        P.call(`mount of ${step.target}`, NR.move_mount, [{ slot: held[step.hold]! }, arena.cstr(""), AT_FDCWD, arena.cstr(step.target), MOVE_MOUNT_F_EMPTY_PATH]);
        remount(step.target, true, false);
        P.call("close", NR.close, [{ slot: held[step.hold]! }]);
        break;
      case "tmpfs":
        P.call(`mount of ${step.target}`, NR.mount, [arena.cstr("tmpfs"), arena.cstr(step.target), arena.cstr("tmpfs"), step.flags, arena.cstr(step.data)], step.mayBeGone ? { ok: ENOENT } : {});
        break;
      case "mkdir":
        P.call(`mkdir of ${step.path}`, NR.mkdirat, [AT_FDCWD, arena.cstr(step.path), 0o755], { ok: EEXIST });
        break;
    }
  }
}

let capLast: number | undefined;
function lastCap(): number {
  if (capLast !== undefined) return capLast;
  try {
    capLast = Number(readFileSync("/proc/sys/kernel/cap_last_cap", "utf8").trim());
  } catch {
    capLast = 40;
  }
  return capLast!;
}

/** The failure the block records, as a sentence; undefined when nothing failed. */
function describeFailure(arena: Arena): string | undefined {
  const program = arena.get32(B.failure);
  const what = arena.what;
  if (!program) return undefined;
  const op = arena.get32(B.failure + 4);
  const errno = -arena.get32(B.failure + 8);
  const list = program === 1 ? what.I : program === 2 ? what.P : what.C;
  const name = op < 0 ? "the command could not be started (clone)" : (list[op] ?? `step ${op}`);
  return `${name} failed (${errnoName(errno)})`;
}

const SIGNAL_NAMES = Object.fromEntries(Object.entries(constants.signals).map(([name, n]) => [n, name]));

/** Waits for the life pipe's end (PID 1 gone), reaps PID 1 and reads its outcome from the block. */
async function waitForEnd(handle: DirectChild, arena: Arena, lifeRead: number): Promise<void> {
  const reader = Bun.file(lifeRead).stream().getReader();
  try {
    while (!(await reader.read()).done) {}
  } catch {
    // a read error ends it like EOF; the reap below says what happened
  }
  reader.releaseLock();
  sys().close(lifeRead);
  const status = new Int32Array(1);
  for (let wait = 0; ; wait = Math.min(wait + 1, 10)) {
    const r = Number(sys().syscall(SYS.wait4, BigInt(handle.pid), BigInt(ffi().ptr(status)), WNOHANG | __WALL, 0n, 0n, 0n));
    if (r === handle.pid || (r < 0 && r !== -1)) break;
    if (r === -1) break; // libc's -1 (ECHILD): someone else reaped it
    await Bun.sleep(wait);
  }
  const kind = arena.get32(B.outcome);
  const failure = describeFailure(arena);
  const commandStatus = kind === 1 ? arena.get32(B.outcome + 8) : status[0]!;
  handle.stopped = kind === 1 ? arena.get32(B.outcome + 4) : 0;
  if (failure) {
    handle.failure = failure;
    handle.exitCode = 125;
  } else if (commandStatus & 0x7f) {
    handle.signalCode = SIGNAL_NAMES[commandStatus & 0x7f] ?? `SIG${commandStatus & 0x7f}`;
  } else {
    handle.exitCode = (commandStatus >> 8) & 0xff;
  }
  arena.release();
}
