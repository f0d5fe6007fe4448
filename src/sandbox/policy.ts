// What the launcher is told: one plain JSON argument, read without zod (the launcher must start cheaply).
// The parent (src/sandbox/index.ts) builds it; the launcher (launcher.ts) applies it or fails.
import type { EgressRules } from "./egress-rules";

export type SandboxMode = "workspace-write" | "read-only";

export interface SandboxPolicy {
  mode: SandboxMode;
  /** Where the command starts. */
  cwd: string;
  /** Writable in workspace-write mode (except `protect`). */
  workspace: string;
  /**
   * Kept read-only inside the writable places (existing ones): the workspace's `.git` and `.scv`, or, for a git
   * command, only the parts of `.git` git runs programs from (hooks, config, info, modules, worktrees).
   */
  protect: string[];
  /**
   * Homes inside a writable place (the workspace is the home or holds it): their top level and every dot entry
   * (start-up files, `.config`, `.local/bin`, user units, `.gitconfig`) stay read-only, other entries writable.
   */
  sealed: string[];
  /** More writable places the user listed (`[sandbox] writable_roots`). */
  writableRoots: string[];
  /** Neither readable nor writable. */
  hidden: string[];
  /** TCP and UDP allowed (no network namespace, no Landlock TCP rules). */
  network: boolean;
  /**
   * The egress proxy ([sandbox.network] as a table; needs the namespaces): the launcher brings loopback up, listens
   * on 127.0.0.1:`port` and leaves that socket at `fd` for SCV to take from the command (egress-proxy.ts); Landlock
   * lets TCP connect only to that port.
   */
  proxy?: { port: number; fd: number };
  /** The command's private temporary directory (created by the parent, removed after the run). */
  tmpdir: string;
  /**
   * The session's network namespace to enter instead of a new one (session-net.ts): the holder's pid and start
   * time (clock ticks), checked by the launcher, so a reused pid is never joined.
   */
  join?: { pid: number; startTime: string };
  /**
   * What the parent promised to the person (from the probe): the launcher fails rather than do less. `userns`:
   * the namespaces come with a user namespace of the launcher's own (SCV runs as an ordinary user).
   */
  expect: { namespaces: boolean; landlock: boolean; userns?: boolean; pidns?: boolean };
}

/**
 * The launcher's environment: without JavaScriptCore's concurrent JIT and warm-up thread and mimalloc's scavenger
 * thread, the launcher stays one thread until it has entered its namespaces (the kernel gives a user namespace only
 * to a single-threaded process). The launcher removes these variables before the command runs.
 */
export const LAUNCHER_ENV = { BUN_JSC_useConcurrentJIT: "0", BUN_JSC_useWarmUpMarkedBlocks: "0", MIMALLOC_SCAVENGER: "0" } as const;

/** The argument that turns the `scv` binary into the launcher: `scv __sandbox <policy-json> <argv…>`. */
export const LAUNCHER_ARG = "__sandbox";
/** `scv __sandbox --probe`: prints what this kernel lets the launcher enforce (SandboxSupport as JSON). */
export const PROBE_ARG = "--probe";
/** `scv __sandbox --hold <userns: 0|1>`: makes a session's network namespace and holds it (session-net.ts). */
export const HOLD_ARG = "--hold";
/** The launcher's own failure (not the command's): exit status and the first word of its one stderr line. */
export const LAUNCHER_FAILED_EXIT = 125;
export const LAUNCHER_FAILED_PREFIX = "scv sandbox: ";
/**
 * The file in the command's private temporary directory where the launcher says how many processes PID 1 stopped
 * after the command ended (pid1.ts); written once the namespace is empty, read by the parent before removing it.
 */
export const STOPPED_NOTE = ".scv-stopped-after";

/** What the launcher can enforce on this machine, as the probe reports it. */
export interface SandboxSupport {
  /** 0 when Landlock is unavailable. */
  landlockAbi: number;
  /**
   * A private mount and network namespace could be made: directly (root, CAP_SYS_ADMIN) or, for an ordinary
   * user, inside a user namespace of the launcher's own (`userns`).
   */
  namespaces: boolean;
  /** The namespaces need a user namespace (SCV runs as an ordinary user). */
  userns?: boolean;
  /** Each command also gets a PID namespace whose PID 1 is SCV's (pid1.ts; x86_64). */
  pidns?: boolean;
  /** Why not, when namespaces is false, with the one-line fix where there is one. */
  namespacesProblem?: string;
}

export function parsePolicy(text: string): SandboxPolicy {
  const p = JSON.parse(text) as SandboxPolicy;
  const strings = (v: unknown) => Array.isArray(v) && v.every((s) => typeof s === "string" && s.startsWith("/"));
  if (
    (p.mode !== "workspace-write" && p.mode !== "read-only") ||
    typeof p.cwd !== "string" ||
    typeof p.workspace !== "string" ||
    typeof p.tmpdir !== "string" ||
    !p.tmpdir.startsWith("/") ||
    !strings(p.protect) ||
    !strings(p.sealed) ||
    !strings(p.writableRoots) ||
    !strings(p.hidden) ||
    typeof p.network !== "boolean" ||
    typeof p.expect !== "object" ||
    (p.proxy !== undefined && (!Number.isInteger(p.proxy.port) || !Number.isInteger(p.proxy.fd) || p.network)) ||
    (p.join !== undefined && (!Number.isInteger(p.join.pid) || !/^\d+$/.test(p.join.startTime) || p.network))
  ) {
    throw new Error("the policy argument is malformed");
  }
  return p;
}

/** The sandbox for one workspace, resolved from `[sandbox]` (see settings.ts). */
export interface SandboxSettings {
  mode: SandboxMode;
  workspace: string;
  writableRoots: string[];
  hidden: string[];
  /** Every host (no network namespace); false: none, or only through the egress proxy when `egress` is set. */
  network: boolean;
  /** `[sandbox.network]` as a table: the hosts the egress proxy lets a command reach. */
  egress?: EgressRules;
  /** The session the commands belong to (the proxy's log says which). */
  session?: string;
  /** A `prompt` command runs unasked inside the sandbox. */
  autoRun: boolean;
  /** Refuse to run commands rather than run with less than the full sandbox. */
  required: boolean;
  /** `auto_run = "always"`: run unasked even where this machine enforces only part of the sandbox. */
  autoRunPartial?: boolean;
  /** Unix sockets (paths) a command may reach; every other listening socket on the host is hidden. */
  allowUnixSockets?: string[];
  /** The user's home, kept read-only at its top level and in its dot entries when a writable place holds it. */
  home?: string;
  /** For this call only: the workspace's `.git` data writable (a command made only of git commands; see bash.ts). */
  gitData?: boolean;
  /** Where the probe's answer is kept (see sandboxSupport). */
  scvHome?: string;
  /** The session's one network namespace, shared by its commands (session-net.ts); without it each has its own. */
  sessionNetwork?: SessionNetworkHandle;
}

/** What confine needs of a session's network namespace (session-net.ts). */
export interface SessionNetworkHandle {
  /** The holder to join, when it is up; undefined: the command gets a namespace of its own. */
  current(): { pid: number; startTime: string } | undefined;
  /** The holder's namespaces as descriptors SCV keeps (the direct start enters them), when it is up. */
  namespaceFds?(): { user?: number; net: number } | undefined;
  /** Starts the holder when needed; resolves when it is up (or it could not be, said once by the session). */
  ready(): Promise<void>;
  /** A port for one command's proxy listener in the shared namespace, and its release. */
  takePort(): number;
  releasePort(port: number): void;
  close(): void;
}
