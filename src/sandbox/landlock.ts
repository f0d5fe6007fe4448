// Landlock (kernel documentation, Documentation/userspace-api/landlock.rst): an allow-list of file hierarchies
// with rights, TCP bind/connect by port (ABI 4), and scopes that keep signals and abstract Unix sockets inside
// the sandbox (ABI 6). Rules only add rights, so "everything but these paths" is built by walking down to each
// excluded path and granting its siblings (see grantTree). Best effort by ABI: what the ABI lacks is reported
// by the probe, never claimed.
import { lstatSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { check, cstr, O_CLOEXEC, O_PATH, ptr, SYS, sys, sysError } from "./sys";

export const FS = {
  EXECUTE: 1 << 0,
  WRITE_FILE: 1 << 1,
  READ_FILE: 1 << 2,
  READ_DIR: 1 << 3,
  REMOVE_DIR: 1 << 4,
  REMOVE_FILE: 1 << 5,
  MAKE_CHAR: 1 << 6,
  MAKE_DIR: 1 << 7,
  MAKE_REG: 1 << 8,
  MAKE_SOCK: 1 << 9,
  MAKE_FIFO: 1 << 10,
  MAKE_BLOCK: 1 << 11,
  MAKE_SYM: 1 << 12,
  REFER: 1 << 13,
  TRUNCATE: 1 << 14,
  IOCTL_DEV: 1 << 15,
} as const;

export const READ = FS.EXECUTE | FS.READ_FILE | FS.READ_DIR | FS.IOCTL_DEV;
export const WRITE =
  FS.WRITE_FILE | FS.REMOVE_DIR | FS.REMOVE_FILE | FS.MAKE_DIR | FS.MAKE_REG | FS.MAKE_SOCK | FS.MAKE_FIFO | FS.MAKE_SYM | FS.REFER | FS.TRUNCATE;
/** The rights a rule on a file (not a directory) may carry. */
const FILE_RIGHTS = FS.EXECUTE | FS.WRITE_FILE | FS.READ_FILE | FS.TRUNCATE | FS.IOCTL_DEV;
const NET_BIND_TCP = 1;
const NET_CONNECT_TCP = 2;
export const SCOPE_ABSTRACT_UNIX_SOCKET = 1;
export const SCOPE_SIGNAL = 2;
const RULE_PATH_BENEATH = 1;
const RULE_NET_PORT = 2;
const CREATE_RULESET_VERSION = 1;

/** The ABI the kernel offers; 0 when Landlock is missing or disabled. */
export function landlockAbi(): number {
  try {
    const v = Number(sys().syscall(SYS.landlock_create_ruleset, 0n, 0n, BigInt(CREATE_RULESET_VERSION), 0n, 0n));
    return v > 0 ? v : 0;
  } catch {
    return 0;
  }
}

/** The file system rights an ABI knows. */
export function handledFs(abi: number): number {
  if (abi >= 5) return 0xffff;
  if (abi >= 3) return 0x7fff;
  if (abi >= 2) return 0x3fff;
  return abi >= 1 ? 0x1fff : 0;
}

export interface Ruleset {
  abi: number;
  /** The ruleset's descriptor (PID 1 restricts itself with it: pid1.ts). */
  readonly fd: number;
  /**
   * no_new_privs must already be set. From here on this thread (and what it executes or forks) is confined. The
   * descriptor is closed unless `keepOpen`.
   */
  restrictSelf(keepOpen?: boolean): void;
}

/** One rule: `rights` (already fitted to a file or a folder and to the ABI) on the hierarchy at `path`. */
export interface PathRule {
  path: string;
  rights: number;
}

/** The rules a command gets, and the folders whose listing decided them (a change there may change the rules). */
export interface RulePlan {
  rules: PathRule[];
  listed: string[];
}

/**
 * For each folder that holds a hidden path below it, by device and inode, the hidden paths relative to it: a folder
 * reached through another path (a bind mount the mount table did not show) is then walked, not granted whole.
 */
export function holdersOf(hidden: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const h of hidden) {
    for (let dir = dirname(h); dir !== "/"; dir = dirname(dir)) {
      try {
        const st = lstatSync(dir, { throwIfNoEntry: false });
        if (!st) continue;
        const key = `${st.dev}:${st.ino}`;
        const rest = h.slice(dir.length + 1);
        const list = out.get(key);
        if (list) list.push(rest);
        else out.set(key, [rest]);
      } catch {
        // not there: nothing to reach it through
      }
    }
  }
  return out;
}

/** The attribute landlock_create_ruleset takes for `abi` (and its size), handling TCP unless `network`. */
export function rulesetAttr(abi: number, network: boolean): { attr: BigUint64Array; size: number; tcp: boolean } {
  const net = abi >= 4 && !network ? NET_BIND_TCP | NET_CONNECT_TCP : 0;
  const scoped = abi >= 6 ? SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL : 0;
  // The attribute's size grows with the ABI: 8 bytes (fs), 16 (net, ABI 4), 24 (scoped, ABI 6).
  return { attr: new BigUint64Array([BigInt(handledFs(abi)), BigInt(net), BigInt(scoped)]), size: abi >= 6 ? 24 : abi >= 4 ? 16 : 8, tcp: !!net };
}

/**
 * Plans rules: `grant` a path's hierarchy, or `grantTree` a path with everything below it except the excluded
 * paths (and what lies below them), walking down to each excluded path and granting its siblings. Only file system
 * reads (lstat, readdir): the rules are made later, where the command's view is.
 */
export class RulePlanner {
  readonly rules: PathRule[] = [];
  readonly listed: string[] = [];
  private readonly fsMask: number;

  constructor(
    abi: number,
    private readonly holders?: Map<string, string[]>,
  ) {
    this.fsMask = handledFs(abi);
  }

  grant(path: string, rights: number): void {
    let isDir = false;
    try {
      const st = lstatSync(path, { throwIfNoEntry: false });
      if (!st) return; // a path that does not exist needs no rule
      isDir = st.isDirectory();
    } catch {
      return;
    }
    const allowed = (isDir ? rights : rights & FILE_RIGHTS) & this.fsMask;
    if (allowed) this.rules.push({ path, rights: allowed });
  }

  grantTree(path: string, rights: number, excluded: readonly string[]): void {
    if (excluded.includes(path)) return;
    const prefix = path === "/" ? "/" : `${path}/`;
    let below = excluded.filter((e) => e.startsWith(prefix));
    if (!below.length && this.holders?.size) below = this.heldBelow(path);
    if (!below.length) return this.grant(path, rights);
    // An ancestor of an excluded path: its listing only (read trees), then each entry on its own.
    if (rights & FS.READ_DIR) this.grant(path, FS.READ_DIR);
    let names: string[];
    try {
      names = readdirSync(path);
    } catch {
      return;
    }
    this.listed.push(path);
    for (const name of names) {
      const child = join(path, name);
      try {
        // A symlink's own rule would mean nothing: access is judged where it leads, which has its own rules.
        if (lstatSync(child).isSymbolicLink()) continue;
      } catch {
        continue;
      }
      this.grantTree(child, rights, below);
    }
  }

  /** The hidden paths below `path` by identity: `path` is a folder that holds one (holdersOf). */
  private heldBelow(path: string): string[] {
    try {
      const st = lstatSync(path);
      if (!st.isDirectory()) return [];
      return (this.holders!.get(`${st.dev}:${st.ino}`) ?? []).map((rest) => join(path, rest));
    } catch {
      return [];
    }
  }
}

/** A ruleset made here, now, from `rules` (the launcher's, which applies it to itself). */
export function createRuleset(abi: number, network: boolean, rules: readonly PathRule[], connectPorts: readonly number[] = []): Ruleset {
  const c = sys();
  const { attr, size, tcp } = rulesetAttr(abi, network);
  const fd = check(c.syscall(SYS.landlock_create_ruleset, BigInt(ptr(attr)), BigInt(size), 0n, 0n, 0n), "landlock_create_ruleset");
  // struct landlock_net_port_attr { u64 allowed_access; u64 port; } __attribute__((packed)): TCP connect to a port.
  if (tcp) {
    for (const port of connectPorts) {
      const portRule = new BigUint64Array([BigInt(NET_CONNECT_TCP), BigInt(port)]);
      check(c.syscall(SYS.landlock_add_rule, BigInt(fd), BigInt(RULE_NET_PORT), BigInt(ptr(portRule)), 0n, 0n), `landlock_add_rule for TCP port ${port}`);
    }
  }
  // struct landlock_path_beneath_attr { u64 allowed_access; s32 parent_fd; } __attribute__((packed))
  const rule = new Uint8Array(12);
  const view = new DataView(rule.buffer);
  for (const { path, rights } of rules) {
    const pfd = c.open(cstr(path), O_PATH | O_CLOEXEC, 0);
    if (pfd < 0) continue; // unreachable from here: nothing to grant
    try {
      view.setBigUint64(0, BigInt(rights), true);
      view.setInt32(8, pfd, true);
      if (Number(c.syscall(SYS.landlock_add_rule, BigInt(fd), BigInt(RULE_PATH_BENEATH), BigInt(ptr(rule)), 0n, 0n)) < 0) {
        throw sysError(`landlock_add_rule for ${path}`);
      }
    } finally {
      c.close(pfd);
    }
  }
  return {
    abi,
    fd,
    restrictSelf(keepOpen = false) {
      check(c.syscall(SYS.landlock_restrict_self, BigInt(fd), 0n, 0n, 0n, 0n), "landlock_restrict_self");
      if (!keepOpen) c.close(fd);
    },
  };
}

/** Device nodes a command may read and write: the harmless ones every program expects. */
const DEVICES_RW = ["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx", "/dev/pts"];

/** What a sandboxed command's rules are made of (the launcher's and the direct start's). */
export interface CommandRules {
  /** TCP unrestricted: the network is on, or the command is in a network namespace (only loopback is there). */
  network: boolean;
  /** Neither readable nor writable (those a mount did not cover). */
  hidden: readonly string[];
  /** The command's temporary directory as seen where the rules are made (/tmp in the view, or the private path). */
  tmp: string;
  /** /dev/shm writable: a private tmpfs mounted already where the rules are made. */
  devShm: boolean;
  writable: readonly string[];
  /** Left out of the writable places' rules. */
  notWritable: readonly string[];
  connectPorts?: number[];
}

/**
 * A sandboxed command's rules: reads everywhere except hidden paths and /dev (only the harmless devices), writes
 * in the writable places and the temporary directory, planned where they will be made (see RulePlanner).
 */
export function planCommandRules(abi: number, o: CommandRules): RulePlan {
  const plan = new RulePlanner(abi, holdersOf(o.hidden));
  plan.grantTree("/", READ, [...o.hidden, "/dev"]);
  plan.grant("/dev", FS.READ_DIR);
  for (const d of DEVICES_RW) plan.grant(d, READ | WRITE);
  if (o.devShm) plan.grant("/dev/shm", READ | WRITE);
  plan.grant(o.tmp, READ | WRITE);
  for (const root of o.writable) plan.grantTree(root, READ | WRITE, o.notWritable);
  return { rules: plan.rules, listed: plan.listed };
}

/** The command's ruleset made here, now (the launcher's, in the view it built). */
export function commandRuleset(abi: number, o: CommandRules): Ruleset {
  return createRuleset(abi, o.network, planCommandRules(abi, o).rules, o.connectPorts);
}
