// The launcher: `scv __sandbox <policy> <argv…>`, the scv binary re-executed by startSandboxed. It applies the
// policy to itself (namespaces where the kernel lets it, no_new_privs, capabilities dropped, Landlock) and then
// either starts the command as the child of the PID 1 of a new PID namespace (pid1.ts), waits and ends as the
// command ended, or, without a mount namespace (or off x86_64), executes the command in place. Either way the
// command keeps the launcher's group and session. It loads nothing but bun:ffi and node:fs (cli/main.ts sends it
// here before config, zod or the CLI load). When it cannot apply what the policy expects it prints one line and
// exits with LAUNCHER_FAILED_EXIT: the command never runs unconfined.
import { accessSync, constants, readFileSync, writeSync } from "node:fs";
import { resolveProgram } from "./paths";
import { commandRuleset, handledFs, landlockAbi, READ } from "./landlock";
import { bringLoopbackUp, listenInside } from "./loopback";
import { buildView, enterNamespaces, holdSessionNetwork, sealedExclusions } from "./mounts";
import { endLike, pid1Supported, runUnderPid1 } from "./pid1";
import { HOLD_ARG, LAUNCHER_ENV, LAUNCHER_FAILED_EXIT, LAUNCHER_FAILED_PREFIX, parsePolicy, PROBE_ARG, STOPPED_NOTE, type SandboxPolicy, type SandboxSupport } from "./policy";
import { CLONE_NEWPID, check, cstr, defaultSignals, O_CLOEXEC, SIGNALS_BUN_IGNORES, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, ptr, SYS, sys, sysError } from "./sys";

export function runLauncher(args: string[]): never {
  if (args[0] === PROBE_ARG) {
    writeSync(1, `${JSON.stringify(probe())}\n`);
    process.exit(0);
  }
  if (args[0] === HOLD_ARG) hold(args[1] === "1");
  let policy: SandboxPolicy;
  let argv: string[];
  try {
    policy = parsePolicy(args[0] ?? "");
    argv = args.slice(1);
    if (!argv.length) throw new Error("no command was given");
    const confined = confine(policy);
    if (confined.pid1) runAsChild(argv, confined.env, confined.pid1);
    exec(argv, confined.env);
  } catch (e) {
    fail(e instanceof Error ? e.message : String(e));
  }
}

/** `scv __sandbox --hold 0|1`: the session's network namespace (mounts.ts holdSessionNetwork), then a waiting shell. */
function hold(asUser: boolean): never {
  try {
    holdSessionNetwork(asUser);
    bringLoopbackUp();
    const c = sys();
    if (c.prctl(PR_SET_NO_NEW_PRIVS, 1n, 0n, 0n, 0n) !== 0) throw sysError("prctl(PR_SET_NO_NEW_PRIVS)");
    dropCapabilities();
    writeSync(1, "ready\n");
    exec(["/bin/sh", "-c", "read -r _ || :"], { PATH: "/usr/bin:/bin" });
  } catch (e) {
    fail(e instanceof Error ? e.message : String(e));
  }
}

function fail(reason: string): never {
  writeSync(2, `${LAUNCHER_FAILED_PREFIX}the command was not run: ${reason}\n`);
  process.exit(LAUNCHER_FAILED_EXIT);
}

/** What confine leaves for the start: the command's environment; with `pid1`, what PID 1 applies itself. */
interface Confined {
  env: Record<string, string>;
  /** The command runs under a PID 1 (pid1.ts), which restricts itself with this Landlock ruleset (-1: none). */
  pid1?: { landlockFd: number; procRights: number; restrict: () => void };
}

/**
 * Applies the policy to this process (with a PID namespace, all but Landlock and the capabilities, which PID 1
 * applies to itself after mounting its /proc, and the launcher after starting it).
 */
function confine(policy: SandboxPolicy): Confined {
  const c = sys();
  const abi = landlockAbi();
  if (policy.expect.landlock && !abi) throw new Error("Landlock is not available on this kernel");
  const writable = policy.mode === "workspace-write" ? [policy.workspace, ...policy.writableRoots] : [...policy.writableRoots];
  let namespaces = false;
  // Hidden paths the mount namespace covered need no Landlock exclusion (which walks every directory above them).
  let covered = new Set<string>();
  if (policy.expect.namespaces) {
    enterNamespaces(policy.network, !!policy.expect.userns, policy.join);
    covered = buildView(policy, writable);
    namespaces = true;
    // A session's shared namespace has loopback up already (its holder brought it up).
    if (policy.proxy && !policy.join) bringLoopbackUp();
    // Last, since from here on the kernel gives this process no new thread (its children go to another namespace).
    if (policy.expect.pidns) check(c.unshare(CLONE_NEWPID), "unshare of a PID namespace");
  } else if (policy.proxy) {
    throw new Error("the network proxy needs a network namespace, and none was made");
  }
  const hidden = policy.hidden.filter((p) => !covered.has(p));
  const env = { ...(process.env as Record<string, string>) };
  // The launcher's own engine settings (LAUNCHER_ENV) are not the command's.
  for (const key of Object.keys(LAUNCHER_ENV)) delete env[key];
  // /tmp is the private directory in the namespace; without one the command is told the private path itself.
  const tmp = namespaces ? "/tmp" : policy.tmpdir;
  env.TMPDIR = tmp;
  env.TMP = tmp;
  env.TEMP = tmp;
  if (abi) {
    // In a network namespace (only loopback, and the session's own) TCP needs no Landlock rule: a server one call
    // starts is reached by the next, and nothing else is there to reach. Without one, TCP only to the proxy's port.
    // Writes: the workspace (its .git/.scv are read-only mounts, or, without a mount namespace, left out of the
    // rules, which also leaves new entries at the workspace's top level not creatable) and the user's roots.
    const notWritable = [...hidden, ...(namespaces ? [] : [...policy.protect, ...policy.sealed.flatMap(sealedExclusions)])];
    const rules = commandRuleset(abi, {
      network: policy.network || namespaces,
      hidden,
      tmp: namespaces ? "/tmp" : policy.tmpdir,
      devShm: namespaces, // a private tmpfs in the namespace
      writable,
      notWritable,
      ...(policy.proxy ? { connectPorts: [policy.proxy.port] } : {}),
    });
    if (c.prctl(PR_SET_NO_NEW_PRIVS, 1n, 0n, 0n, 0n) !== 0) throw sysError("prctl(PR_SET_NO_NEW_PRIVS)");
    // The proxy's port is bound before Landlock forbids binding; the launcher keeps the socket for SCV to take.
    if (policy.proxy) listenInside(policy.proxy.port, policy.proxy.fd);
    if (c.chdir(cstr(policy.cwd)) !== 0) throw sysError(`chdir to ${policy.cwd}`);
    if (policy.expect.pidns) return { env, pid1: { landlockFd: rules.fd, procRights: READ & handledFs(abi), restrict: () => (rules.restrictSelf(), dropCapabilities()) } };
    dropCapabilities();
    rules.restrictSelf();
    return { env };
  }
  if (c.prctl(PR_SET_NO_NEW_PRIVS, 1n, 0n, 0n, 0n) !== 0) throw sysError("prctl(PR_SET_NO_NEW_PRIVS)");
  if (policy.proxy) listenInside(policy.proxy.port, policy.proxy.fd);
  if (c.chdir(cstr(policy.cwd)) !== 0) throw sysError(`chdir to ${policy.cwd}`);
  if (policy.expect.pidns) return { env, pid1: { landlockFd: -1, procRights: 0, restrict: dropCapabilities } };
  dropCapabilities();
  return { env };
}

/** Root keeps no capability in the command (no module loading, no raw devices, no mounts, no ptrace). */
function dropCapabilities(): void {
  const c = sys();
  for (let cap = 0; cap < 64; cap++) if (c.prctl(PR_CAPBSET_DROP, BigInt(cap), 0n, 0n, 0n) !== 0) break;
  c.prctl(PR_CAP_AMBIENT, BigInt(PR_CAP_AMBIENT_CLEAR_ALL), 0n, 0n, 0n);
  // capset(header {version 3, pid 0}, data[2] all zero): no effective, permitted or inheritable capability.
  const header = new Uint32Array([0x20080522, 0]);
  const data = new Uint32Array(6);
  if (Number(c.syscall(SYS.capset, BigInt(ptr(header)), BigInt(ptr(data)), 0n, 0n, 0n)) !== 0) throw sysError("capset (dropping capabilities)");
}

/**
 * Starts the command under PID 1 in the PID namespace, confines the launcher too, waits, and ends as the command
 * ended. What the command left running was killed by PID 1; how many is told to SCV in the private /tmp
 * (STOPPED_NOTE), written after everything in the namespace is gone, so the command cannot write it.
 */
function runAsChild(argv: string[], env: Record<string, string>, pid1: NonNullable<Confined["pid1"]>): never {
  const { file, argvC, envC } = commandArrays(argv, env);
  try {
    accessSync(file, constants.X_OK);
  } catch (e) {
    throw new Error(`executing ${argv[0]} failed (${(e as NodeJS.ErrnoException).code ?? "not executable"})`);
  }
  const outcome = runUnderPid1({ file, argv: argvC, envp: envC, landlockFd: pid1.landlockFd, procRights: pid1.procRights, started: pid1.restrict });
  if (outcome.kind === "not-run") throw new Error(outcome.why);
  writeStoppedNote(outcome.stopped); // always, over anything the command may have left under that name
  endLike(outcome.status);
}

function writeStoppedNote(count: number): void {
  const c = sys();
  const O_WRONLY = 1;
  const O_CREAT = 0o100;
  const O_TRUNC = 0o1000;
  const O_NOFOLLOW = 0o400000;
  const fd = c.open(cstr(`/tmp/${STOPPED_NOTE}`), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600);
  if (fd < 0) return; // the count is a courtesy: the processes are gone either way
  writeSync(fd, String(count));
  c.close(fd);
}

function exec(argv: string[], env: Record<string, string>): never {
  const c = sys();
  const { file, argvC, envC } = commandArrays(argv, env);
  defaultSignals(SIGNALS_BUN_IGNORES);
  c.execve(cstr(file), argvC, envC);
  throw sysError(`executing ${argv[0]}`);
}

/** The command's program, argv and environment as C arrays (the buffers they point to kept alive with them). */
function commandArrays(argv: string[], env: Record<string, string>) {
  const file = resolveProgram(argv[0]!, env.PATH);
  const keep: Buffer[] = [];
  const array = (items: string[]) => {
    const out = new BigUint64Array(items.length + 1);
    items.forEach((s, i) => {
      const b = cstr(s);
      keep.push(b);
      out[i] = BigInt(ptr(b));
    });
    return out;
  };
  const argvC = array(argv);
  const envC = array(Object.entries(env).map(([k, v]) => `${k}=${v}`));
  return { file, argvC, envC, keep };
}

/**
 * What this kernel lets the launcher enforce; the probe tries the namespaces in its own throwaway process: as root
 * directly, else (or where root lacks CAP_SYS_ADMIN, as in a container) inside a user namespace.
 */
function probe(): SandboxSupport {
  const landlock = landlockAbi();
  const attempts = process.getuid?.() === 0 ? [false, true] : [true];
  let problem = "";
  for (const asUser of attempts) {
    try {
      enterNamespaces(false, asUser);
      const attr = new BigUint64Array([1n, 0n, 0n, 0n]); // the read-only view needs mount_setattr (Linux 5.12)
      if (Number(sys().syscall(SYS.mount_setattr, -100n, BigInt(ptr(cstr("/"))), 0x8000n, BigInt(ptr(attr)), 32n)) !== 0) throw sysError("mount_setattr");
      const pidns = pid1Supported && sys().unshare(CLONE_NEWPID) === 0;
      return { landlockAbi: landlock, namespaces: true, ...(asUser ? { userns: true } : {}), ...(pidns ? { pidns } : {}) };
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      problem = asUser ? `${why}${usernsFix()}` : why;
    }
  }
  return { landlockAbi: landlock, namespaces: false, namespacesProblem: problem };
}

/** Why this kernel refuses an ordinary user a user namespace, with the one-line fix, when it says so. */
function usernsFix(): string {
  const read = (f: string) => {
    try {
      return readFileSync(f, "utf8").trim();
    } catch {
      return undefined;
    }
  };
  if (read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") === "1") {
    return '; Ubuntu\'s AppArmor restricts unprivileged user namespaces: allow them for scv with a profile, e.g. /etc/apparmor.d/scv holding `abi <abi/4.0>, include <tunables/global> profile scv /path/to/scv flags=(unconfined) { userns, }` (the path of your scv), then `sudo apparmor_parser -r /etc/apparmor.d/scv`';
  }
  if (read("/proc/sys/kernel/unprivileged_userns_clone") === "0") return "; unprivileged user namespaces are off: `sudo sysctl -w kernel.unprivileged_userns_clone=1` (and in /etc/sysctl.d/ to keep it)";
  if (read("/proc/sys/user/max_user_namespaces") === "0") return "; user namespaces are off: `sudo sysctl -w user.max_user_namespaces=15000` (and in /etc/sysctl.d/ to keep it)";
  return "";
}
