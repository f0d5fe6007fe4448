// The launcher's private view of the file system, in a new mount namespace (and, without network, a new network
// namespace with only a down loopback), built from the steps view-plan.ts decides (the same steps the direct start
// hands its PID 1, direct.ts).
//
// As root the namespaces need nothing more; as an ordinary user they come inside a user namespace of the
// launcher's own (enterNamespaces). Where the kernel refuses that, Landlock works alone (see launcher.ts).
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  AT_FDCWD,
  AT_RECURSIVE,
  CLONE_NEWNET,
  CLONE_NEWNS,
  CLONE_NEWUSER,
  check,
  cstr,
  MOUNT_ATTR_RDONLY,
  MS_BIND,
  MS_NODEV,
  MS_NOSUID,
  MS_PRIVATE,
  MS_RDONLY,
  MS_REC,
  MS_REMOUNT,
  mount,
  O_CLOEXEC,
  O_DIRECTORY,
  O_PATH,
  ptr,
  SYS,
  sys,
} from "./sys";
import type { SandboxPolicy } from "./policy";
import { exists } from "./paths";
import { planView } from "./view-plan";

/**
 * Enters new mount (and, without network, network) namespaces; throws with the reason when the kernel refuses.
 * `asUser`: first a user namespace of its own that maps only this user's uid and gid to themselves (no setgroups),
 * which gives the launcher the capabilities to build its view there while the command still sees its own ids.
 * The kernel gives a user namespace only to a single-threaded process (the launcher runs without the concurrent
 * JIT for that: policy.ts LAUNCHER_ENV), so this is the launcher's first work.
 */
export function enterNamespaces(network: boolean, asUser: boolean, join?: { pid: number; startTime: string }): void {
  const net = network ? 0 : CLONE_NEWNET;
  if (asUser) singleThreaded();
  if (join && !network) {
    joinSessionNetwork(join, asUser);
  } else if (asUser) {
    const uid = process.getuid!();
    const gid = process.getgid!();
    check(sys().unshare(CLONE_NEWUSER | CLONE_NEWNS | net), "unshare of a user, mount and network namespace");
    writeIdMap("/proc/self/setgroups", "deny");
    writeIdMap("/proc/self/uid_map", `${uid} ${uid} 1`);
    writeIdMap("/proc/self/gid_map", `${gid} ${gid} 1`);
  } else {
    check(sys().unshare(CLONE_NEWNS | net), "unshare of a mount and network namespace");
  }
  // Nothing done here may reach the machine's own mounts.
  mount(null, "/", null, MS_REC | MS_PRIVATE, null);
}

function singleThreaded(): void {
  const threads = readdirSync("/proc/self/task").length;
  if (threads > 1) throw new Error(`the launcher runs ${threads} threads, and the kernel gives a user namespace only to a single-threaded process`);
}

/**
 * The session's network namespace (session-net.ts), through its holder's /proc entries: its user namespace first
 * (as an ordinary user; the kernel gives the owner's process every capability there), then its network namespace,
 * then a mount namespace of the command's own. The holder's start time is checked after its namespaces are open,
 * so a pid reused meanwhile is refused, never joined.
 */
function joinSessionNetwork(join: { pid: number; startTime: string }, asUser: boolean): void {
  const c = sys();
  const open = (kind: string) => check(c.open(cstr(`/proc/${join.pid}/ns/${kind}`), O_CLOEXEC, 0), `open of the session's ${kind} namespace`);
  const fds = [...(asUser ? [open("user")] : []), open("net")];
  try {
    let stat = "";
    try {
      stat = readFileSync(`/proc/${join.pid}/stat`, "utf8");
    } catch {}
    if (stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] !== join.startTime) throw new Error("the session's network namespace is gone (its holder ended)");
    if (asUser) check(c.syscall(SYS.setns, BigInt(fds[0]!), BigInt(CLONE_NEWUSER), 0n, 0n, 0n, 0n), "setns into the session's user namespace");
    check(c.syscall(SYS.setns, BigInt(fds.at(-1)!), BigInt(CLONE_NEWNET), 0n, 0n, 0n, 0n), "setns into the session's network namespace");
  } finally {
    for (const fd of fds) c.close(fd);
  }
  check(c.unshare(CLONE_NEWNS), "unshare of a mount namespace");
}

/**
 * The session's network namespace holder (`scv __sandbox --hold`): a new network namespace (in a user namespace of
 * its own for an ordinary user) with loopback up, so that the session's commands, which join it, reach each other's
 * servers and nothing else. It says `ready` on stdout and then becomes a shell that waits for its stdin to close
 * (SCV closes it with the session, or dies): a process of a megabyte holds the namespace, not a Bun.
 */
export function holdSessionNetwork(asUser: boolean): void {
  const c = sys();
  if (asUser) {
    singleThreaded();
    const uid = process.getuid!();
    const gid = process.getgid!();
    check(c.unshare(CLONE_NEWUSER | CLONE_NEWNET), "unshare of a user and network namespace");
    writeIdMap("/proc/self/setgroups", "deny");
    writeIdMap("/proc/self/uid_map", `${uid} ${uid} 1`);
    writeIdMap("/proc/self/gid_map", `${gid} ${gid} 1`);
  } else {
    check(c.unshare(CLONE_NEWNET), "unshare of a network namespace");
  }
}

function writeIdMap(file: string, text: string): void {
  try {
    writeFileSync(file, text);
  } catch (e) {
    throw new Error(`writing ${file} failed (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
}



/** Builds the view for `policy` inside the namespaces just entered (view-plan.ts); returns the hidden paths it covered. */
export function buildView(policy: SandboxPolicy, writable: readonly string[]): Set<string> {
  const c = sys();
  const { steps, covered } = planView(policy, writable);
  // Writable places under /tmp are reached through a descriptor once /tmp shows the private directory.
  const held: number[] = [];
  for (const step of steps) {
    switch (step.kind) {
      case "readonly-root": {
        // Everything read-only (also what root could chmod or chown outside the workspace).
        const attr = new BigUint64Array([BigInt(MOUNT_ATTR_RDONLY), 0n, 0n, 0n]);
        check(c.syscall(SYS.mount_setattr, BigInt(AT_FDCWD), BigInt(ptr(cstr("/"))), BigInt(AT_RECURSIVE), BigInt(ptr(attr)), 32n), "mount_setattr (read-only root)");
        break;
      }
      case "hold":
        held[step.hold] = check(c.open(cstr(step.path), O_PATH | O_DIRECTORY | O_CLOEXEC, 0), `open of ${step.path}`);
        break;
      case "bind":
        if (!step.mayBeGone || exists(step.target)) bind(step.source, step.target, step.writable);
        break;
      case "bind-held":
        bind(`/proc/self/fd/${held[step.hold]}`, step.target, true);
        c.close(held[step.hold]!);
        break;
      case "tmpfs":
        if (!step.mayBeGone || exists(step.target)) mount("tmpfs", step.target, "tmpfs", step.flags, step.data);
        break;
      case "mkdir":
        mkdirSync(step.path, { recursive: true });
        break;
    }
  }
  return covered;
}

/** Entries that keep a sealed home's top level and dot entries out of Landlock's write rules (no mount namespace). */
export function sealedExclusions(home: string): string[] {
  let names: string[] = [];
  try {
    names = readdirSync(home);
  } catch {
    return [];
  }
  // The marker makes the home an ancestor of an excluded path even with no dot entry: its top level is not writable.
  return [join(home, ".scv-sealed-top-level"), ...names.filter((n) => n.startsWith(".")).map((n) => join(home, n))];
}

function bind(source: string, target: string, writable: boolean): void {
  mount(source, target, null, MS_BIND | MS_REC, null);
  mount(null, target, null, MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV | (writable ? 0 : MS_RDONLY), null);
}
