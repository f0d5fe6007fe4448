// The sandbox room, one contract: run this command under this policy. startSandboxed starts `argv` through the
// process runner as `scv __sandbox <policy> <argv…>` (launcher.ts), so the command is tracked, cancelled and
// cleaned up like any other run, and confined before its first instruction. Everything SCV runs for the model
// goes through here (bash; MCP stdio servers the user sandboxes; later background jobs and hooks).
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, readSync, realpathSync, renameSync, statSync, writeFileSync } from "node:fs";
import { rm, rmdir } from "node:fs/promises";
import { randomHex } from "../digest";
import { ownerTag, PRIVATE_TMP_PREFIX, TEMP_SUFFIX } from "../process/owned-files";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { startProcess, type ChildSpec, type RunningProcess, type RunOptions, type RunResult } from "../process";
import { directSupported, startDirect, type DirectChild, type DirectPlan } from "./direct";
import { planView } from "./view-plan";
import { commandRules } from "./rule-cache";
import { SessionNetwork } from "./session-net";
import { HOLD_ARG, LAUNCHER_ARG, LAUNCHER_ENV, LAUNCHER_FAILED_EXIT, LAUNCHER_FAILED_PREFIX, PROBE_ARG, STOPPED_NOTE, type SandboxPolicy, type SandboxSettings, type SandboxSupport } from "./policy";
import { describeEnforcement, type Enforcement } from "./enforcement";
import { socketsToHide } from "./sockets";
import { egressLogFile, openEgressListener, type EgressEntry } from "./egress-proxy";
import { EGRESS_FD, EGRESS_PORT, egressStatus, proxyEnvironment, refusalNotes } from "./egress-env";
import { exists, under } from "./paths";

export { type SandboxMode, type SandboxSettings, type SandboxSupport } from "./policy";
export { describeEnforcement, type Enforcement } from "./enforcement";
export { ceilingOf, defaultHiddenPaths, sandboxSettings, sandboxSettingsIn, underCeiling, type SandboxCeiling, type SandboxConfig } from "./settings";
export { explainDenial } from "./denial";
export { egressStatus };
export { readEgressLog } from "./egress-log";
import { safeEntry } from "./egress-log";
export type { EgressEntry } from "./egress-proxy";
export { parsePattern, type HostPattern } from "./egress-rules";
export { addNetworkGrant } from "./egress-grants";


/** How to start the launcher: the compiled binary itself, or (from source, in tests) bun with cli/main.ts. */
function launcherPrefix(): string[] {
  return Bun.main.startsWith("/$bunfs/") ? [process.execPath] : [process.execPath, join(import.meta.dir, "launcher-entry.ts")];
}

let support: SandboxSupport | undefined;

/**
 * What this machine lets the launcher enforce: probed in a throwaway launcher (about 10 ms), once per process and,
 * with `scvHome`, once per boot, binary and user (kept in $SCV_HOME/state/sandbox-support.json), so a session's start
 * does not pay for it again.
 */
export function sandboxSupport(scvHome?: string): SandboxSupport {
  if (support) return support;
  const cache = scvHome ? join(scvHome, "state", "sandbox-support.json") : undefined;
  const key = supportKey();
  if (cache && key) {
    try {
      const kept = JSON.parse(readFileSync(cache, "utf8")) as { key: string; support: SandboxSupport };
      if (kept.key === key && typeof kept.support?.landlockAbi === "number") return (support = kept.support);
    } catch {
      // not kept yet, or unreadable: probe
    }
  }
  const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", ...LAUNCHER_ENV };
  const r = Bun.spawnSync([...launcherPrefix(), LAUNCHER_ARG, PROBE_ARG], { cwd: "/", env, stdout: "pipe", stderr: "pipe" });
  try {
    support = JSON.parse(r.stdout.toString()) as SandboxSupport;
  } catch {
    return (support = { landlockAbi: 0, namespaces: false, namespacesProblem: `the launcher did not answer (${r.stderr.toString().trim() || `exit ${r.exitCode}`})` });
  }
  if (cache && key) {
    try {
      mkdirSync(dirname(cache), { recursive: true, mode: 0o700 });
      const tmp = `${cache}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify({ key, support }), { mode: 0o600 });
      renameSync(tmp, cache);
    } catch {
      // a cache only saves the next start a probe
    }
  }
  return support;
}

/** The boot and the binary the probe answered for: a new kernel (reboot) or a new scv probes again. */
function supportKey(): string | undefined {
  try {
    const st = statSync(process.execPath);
    // The uid too: root makes its namespaces directly, anyone else inside a user namespace (a shared SCV_HOME under sudo).
    const uid = process.getuid?.() ?? -1;
    return `${readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim()} ${process.execPath} ${st.size} ${st.mtimeMs} ${Bun.main.startsWith("/$bunfs/") ? "" : Bun.main}${uid === 0 ? "" : ` uid ${uid}`}`;
  } catch {
    return undefined;
  }
}

/** What a run under `settings` would enforce on this machine. */
export function enforcementFor(settings: SandboxSettings): Enforcement {
  return describeEnforcement(settings, sandboxSupport(settings.scvHome));
}

/** One line for status views: how bash commands run here, and what this kernel does not enforce. */
export function sandboxStatusLine(settings: SandboxSettings | undefined): string {
  if (!settings) return 'sandbox: off ([sandbox] mode = "off"): commands run with your permissions';
  const e = enforcementFor(settings);
  if (!e.available) return `sandbox: ${e.summary}${settings.required ? "; [sandbox] required = true, so commands are refused" : "; commands run with your permissions"}`;
  return `sandbox: ${e.summary}${e.missing.length ? `; not enforced on this machine: ${e.missing.join("; ")}` : ""}; ${egressStatus(settings, e.namespaces)}`;
}

/** Said once per session where the sandbox is less than asked for (the session's notices). */
export function sandboxNotice(settings: SandboxSettings | undefined): string | undefined {
  if (!settings) return undefined;
  const e = enforcementFor(settings);
  if (!e.available) {
    return settings.required
      ? `the sandbox is required ([sandbox] required = true) but ${e.summary}: bash commands are refused`
      : `${e.summary}: bash commands run with your permissions and ask as without a sandbox`;
  }
  if (!e.missing.length) return undefined;
  return settings.required
    ? `the sandbox is required ([sandbox] required = true) but this machine cannot enforce ${e.missing.join("; ")}: bash commands are refused`
    : `the sandbox runs with what this machine offers (${e.summary}); not enforced: ${e.missing.join("; ")}${settings.autoRun && !settings.autoRunPartial && !e.whole ? '; so commands the guard asks about ask instead of running unasked ([sandbox] auto_run = "always" runs them anyway)' : ""}`;
}

/** RunOptions rewritten to start through the launcher, and the private temporary directory to remove after. */
export interface ConfinedRun {
  opts: RunOptions;
  /**
   * Removes the command's private temporary directory and sets aside what the command may not create (a new
   * `.git` or `.scv` at the workspace's top); call once the run has ended. Returns a line for each thing set aside.
   */
  done(): string[];
  /** Call with the started process's pid: the egress proxy takes its listening socket from it. */
  started(pid: number): void;
  /** What the egress proxy refused the command (after done()); empty without a [sandbox.network] table. */
  refused(): EgressEntry[];
  /** How many processes the command left running that its PID namespace's PID 1 stopped (after done()). */
  stoppedAfter(): number;
  /** Why the command did not run, when the direct start's PID 1 said so (after the run). */
  launchFailure(): string | undefined;
  /** Settles once done() has removed the private temporary directory (off the event loop). */
  removed(): Promise<void>;
}


/**
 * The one way a command is put in the sandbox: `opts` rewritten so that whatever starts it (the process runner
 * here, the delegation tracker for MCP servers) starts `scv __sandbox <policy> <argv…>` instead. Throws when the
 * sandbox cannot be had (nothing on this kernel, or `required` and a part missing): never hands back options
 * that would run the command unconfined.
 */
export function confine(opts: RunOptions, settings: SandboxSettings): ConfinedRun {
  const enforcement = enforcementFor(settings);
  if (!enforcement.available) throw new Error(`the command was not run: ${enforcement.summary}`);
  if (settings.required && enforcement.missing.length) {
    throw new Error(`the command was not run: [sandbox] required = true, and this machine cannot enforce ${enforcement.missing.join("; ")}`);
  }
  const privateTmp = realpathSync(makePrivateTmp());
  const support = sandboxSupport(settings.scvHome);
  const writable = settings.mode === "workspace-write" ? [settings.workspace, ...settings.writableRoots] : settings.writableRoots;
  const gitData = !!settings.gitData && support.namespaces && settings.mode === "workspace-write" && isDirectory(join(settings.workspace, ".git"));
  const guarded = settings.mode === "workspace-write" ? [join(settings.workspace, ".git"), join(settings.workspace, ".scv")] : [];
  const before = new Set(guarded.filter(exists));
  const gitBefore = gitData ? new Set(GIT_REDIRECTS.filter((n) => exists(join(settings.workspace, ".git", n)))) : undefined;
  // [sandbox.network] as a table: a listener of the egress proxy for this command (it takes the socket the launcher leaves).
  const egress = settings.egress && !settings.network && support.namespaces
    ? openEgressListener(undefined, { rules: settings.egress, logFile: settings.scvHome ? egressLogFile(settings.scvHome) : undefined, session: settings.session, command: opts.argv.at(-1) })
    : undefined;
  // The session's shared network namespace, when its holder is up: each command's proxy listener on a port of its own.
  const shared = !settings.network && support.namespaces ? settings.sessionNetwork?.current() : undefined;
  const port = egress && shared ? settings.sessionNetwork!.takePort() : EGRESS_PORT;
  const policy: SandboxPolicy = {
    mode: settings.mode,
    cwd: opts.cwd,
    workspace: settings.workspace,
    protect: gitData ? gitExecutableParts(settings.workspace) : [join(settings.workspace, ".git"), join(settings.workspace, ".scv")],
    sealed: settings.home && writable.some((w) => under(settings.home!, w)) ? [settings.home] : [],
    writableRoots: settings.writableRoots,
    // With a mount namespace the host's Unix sockets are hidden by path (sockets.ts); Landlock alone cannot stop a connect.
    hidden: support.namespaces ? [...settings.hidden, ...socketsToHide(settings.allowUnixSockets ?? [], [...writable, privateTmp])] : settings.hidden,
    network: settings.network,
    ...(egress ? { proxy: { port, fd: EGRESS_FD } } : {}),
    ...(shared ? { join: shared } : {}),
    tmpdir: privateTmp,
    expect: { namespaces: support.namespaces, landlock: support.landlockAbi > 0, ...(support.userns ? { userns: true } : {}), ...(support.pidns ? { pidns: true } : {}) },
  };
  let refusedEntries: EgressEntry[] = [];
  let stopped = 0;
  let removal: Promise<void> = Promise.resolve();
  // The direct start (direct.ts): no launcher process. It enters the session's namespaces when they are up, or
  // makes the command a network namespace of its own (loopback down) when no proxy must listen in it.
  const fds = shared ? settings.sessionNetwork!.namespaceFds?.() : undefined;
  let direct: DirectChild | undefined;
  const directPlan = directSupported && support.namespaces && support.pidns && support.landlockAbi > 0 && (settings.network || fds || !egress) ? planDirect(policy, writable, support, fds, egress ? port : undefined) : undefined;
  const started = directPlan
    ? {
        ...opts,
        cwd: "/", // PID 1 changes to the command's directory inside the view (a missing one is its failure to tell)
        env: { ...opts.env, ...(egress ? proxyEnvironment(port) : {}), TMPDIR: "/tmp", TMP: "/tmp", TEMP: "/tmp" },
        spawn: (child: ChildSpec) => (direct = startDirect(directPlan, child, (fd) => egress?.serve(fd))),
      }
    : // The launcher starts in / (no bunfig.toml or .env of the workspace is near it) and changes to cwd itself.
      { ...opts, cwd: "/", env: { ...opts.env, ...(egress ? proxyEnvironment(port) : {}), ...LAUNCHER_ENV }, argv: [...launcherPrefix(), LAUNCHER_ARG, JSON.stringify(policy), ...opts.argv] };
  return {
    opts: started,
    refused: () => refusedEntries,
    stoppedAfter: () => stopped,
    launchFailure: () => direct?.failure,
    removed: () => removal,
    started: (pid) => {
      if (!directPlan) egress?.adopt(pid, EGRESS_FD);
    },
    done: () => {
      // Cut and cleaned as the log is: a mismatched Host header or a URL with a token never reaches the result whole.
      refusedEntries = (egress?.refused() ?? []).map((e) => safeEntry(e));
      const refused = refusalNotes(refusedEntries);
      egress?.close();
      if (egress && shared) settings.sessionNetwork!.releasePort(port);
      stopped = direct ? direct.stopped : readStoppedNote(privateTmp);
      removal = removeQuietly(privateTmp);
      const created = guarded.filter((p) => !before.has(p) && exists(p));
      if (gitBefore) created.push(...GIT_REDIRECTS.map((n) => join(settings.workspace, ".git", n)).filter((p) => !gitBefore.has(p.slice(p.lastIndexOf("/") + 1)) && exists(p)));
      return [...refused, ...created.map((p) => setAside(p, settings.scvHome))];
    },
  };
}

/**
 * What the direct start needs (direct.ts): the view's steps and the command's Landlock rules, made here from the
 * policy. The network is on, or the command enters the session's namespaces through `fds`.
 */
function planDirect(policy: SandboxPolicy, writable: readonly string[], support: SandboxSupport, fds: { user?: number; net: number } | undefined, proxyPort: number | undefined): DirectPlan {
  const { steps, covered } = planView(policy, writable);
  const hidden = policy.hidden.filter((p) => !covered.has(p));
  return {
    steps,
    abi: support.landlockAbi,
    cwd: policy.cwd,
    // In the view's paths (PID 1 makes the rules there). In a network namespace (only the session's loopback) or
    // with the network on, TCP needs no Landlock rule.
    rules: commandRules(support.landlockAbi, { network: true, hidden, tmp: "/tmp", devShm: steps.some((s) => s.kind === "tmpfs" && s.target === "/dev/shm"), writable, notWritable: hidden }).rules,
    ...(fds ? { join: fds } : { ownUserns: !!support.userns, ownNetwork: !policy.network }),
    ...(proxyPort ? { proxyPort } : {}),
  };
}

/** Files in `.git` that make git read its config elsewhere: a git command may not create them. */
const GIT_REDIRECTS = ["commondir", "config.worktree"];

/**
 * What stays read-only when a command made only of git commands gets `.git`'s data (objects, refs, index, logs):
 * the parts git runs programs from or reads its config from, created empty when missing so that they can be
 * covered (git itself makes `hooks` and `info` at `git init`), and `.scv`.
 */
function gitExecutableParts(workspace: string): string[] {
  const git = join(workspace, ".git");
  for (const dir of ["hooks", "info"]) {
    try {
      mkdirSync(join(git, dir), { mode: 0o755 });
    } catch {
      // there already, or not creatable (then the command cannot create it either: .git is read-only to it)
    }
  }
  return [...["hooks", "info", "config", "modules", "worktrees", ...GIT_REDIRECTS].map((n) => join(git, n)), join(workspace, ".scv")];
}

const isDirectory = (p: string) => {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
};

/**
 * Moves what a sandboxed command created but may not (a `.git` or `.scv` where none was, git's config redirects)
 * into $SCV_HOME/set-aside, or, across file systems, beside itself under a name nothing reads. Nothing is deleted.
 */
function setAside(path: string, scvHome: string | undefined): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const why = `the command created ${path}, which a sandboxed command may not create (it would change what SCV or git runs later)`;
  const stamp = `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomHex(4)}`;
  if (scvHome) {
    try {
      const dir = join(scvHome, "set-aside");
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const to = join(dir, `${stamp}-${name}`);
      renameSync(path, to);
      return `${why}: moved to ${to}`;
    } catch {
      // another file system: beside itself
    }
  }
  const to = `${path}.set-aside-${stamp}`;
  try {
    renameSync(path, to);
    return `${why}: renamed to ${to}`;
  } catch (e) {
    return `${why}, and it could not be moved (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): remove it before running git or scv there`;
  }
}

/** The launcher could not confine the command, so the command never ran; `why` is the launcher's own line. */
export interface LaunchFailed {
  kind: "launch-failed";
  /** e.g. "the command was not run: chdir to /x failed (ENOENT)". */
  why: string;
  durationMs: number;
}

/**
 * How a sandboxed run ended: the command ran (the runner's result, with the hosts the egress proxy refused it,
 * from the proxy's own record), or the launcher refused to start it.
 */
export type SandboxedResult = (RunResult & { kind: "ran"; egressRefused?: EgressEntry[] }) | LaunchFailed;

/**
 * The one place the launcher's contract with its parent is read: it exits LAUNCHER_FAILED_EXIT after one line on
 * stderr that starts with LAUNCHER_FAILED_PREFIX (launcher.ts). Callers see the typed result only.
 */
export function launchOutcome(r: RunResult): SandboxedResult {
  const err = (r.combined ?? r.stderr).text;
  if (r.exitCode === LAUNCHER_FAILED_EXIT && r.signal === null && err.startsWith(LAUNCHER_FAILED_PREFIX)) {
    return { kind: "launch-failed", why: err.slice(LAUNCHER_FAILED_PREFIX.length).split("\n")[0]!.trim(), durationMs: r.durationMs };
  }
  return { ...r, kind: "ran" };
}

/**
 * Starts `opts.argv` confined by `settings` through the process runner: the reusable sandboxed spawn (bash in
 * the foreground and background; hooks to come). The command's private temporary directory goes with the run.
 * Its result says whether the command ran at all (a launch failure is not the command's exit status).
 */
export function startSandboxed(opts: RunOptions, settings: SandboxSettings): RunningProcess<SandboxedResult> {
  const confined = confine(opts, settings);
  let running: RunningProcess;
  try {
    running = startProcess(confined.opts);
    confined.started(running.identity.pid);
  } catch (e) {
    confined.done();
    throw e;
  }
  return {
    ...running,
    result: running.result.then(
      async (r): Promise<SandboxedResult> => {
        const setAside = confined.done();
        await confined.removed(); // the private /tmp goes with the run
        const refused = confined.refused();
        const stopped = confined.stoppedAfter() + (r.cleanedUp ?? 0);
        const failure = confined.launchFailure();
        if (failure) return { kind: "launch-failed", why: `the command was not run: ${failure}`, durationMs: r.durationMs };
        return launchOutcome({
          ...r,
          ...(stopped ? { cleanedUp: stopped } : {}),
          ...(setAside.length ? { notes: [...(r.notes ?? []), ...setAside] } : {}),
          ...(refused.length ? { egressRefused: refused } : {}),
        });
      },
      async (e) => {
        confined.done();
        await confined.removed();
        throw e;
      },
    ),
  };
}

/** startSandboxed to completion; a signal already aborted gives a `cancelled` result without starting anything. */
export async function runSandboxed(opts: RunOptions, settings: SandboxSettings): Promise<SandboxedResult> {
  await readySandbox(settings);
  if (opts.signal?.aborted) {
    const empty = { text: "", totalBytes: 0, totalLines: 0, truncated: false };
    return { kind: "ran", exitCode: null, signal: null, timedOut: false, cancelled: true, stdout: empty, stderr: empty, durationMs: 0 };
  }
  return startSandboxed(opts, settings).result;
}

/** Call before startSandboxed: the session's shared network namespace up, where the commands get one. */
export async function readySandbox(settings: SandboxSettings): Promise<void> {
  if (settings.network || !settings.sessionNetwork) return;
  if (sandboxSupport(settings.scvHome).namespaces) await settings.sessionNetwork.ready();
}

/**
 * A session's network namespace, shared by its sandboxed commands (session-net.ts); close it with the session.
 * Nothing starts until the first sandboxed command that needs it.
 */
export function openSessionNetwork(scvHome?: string): SessionNetwork {
  const support = () => sandboxSupport(scvHome);
  const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", ...LAUNCHER_ENV };
  return new SessionNetwork([...launcherPrefix(), LAUNCHER_ARG, HOLD_ARG], env, () => (support().userns ? "1" : "0"));
}

/**
 * The command's private temporary directory, named for its owner (`scv-sandbox.<pid>-<start>.<hex>.scv-tmp`), so
 * the reconcile removes one an SCV killed mid-command left behind (process/reconcile.ts).
 */
function makePrivateTmp(): string {
  const dir = join(tmpdir(), `${PRIVATE_TMP_PREFIX}${ownerTag()}.${randomHex(8)}${TEMP_SUFFIX}`);
  mkdirSync(dir, { mode: 0o700 });
  return dir;
}

/** The launcher's count of processes PID 1 stopped (STOPPED_NOTE): a small regular file, read without following links. */
function readStoppedNote(dir: string): number {
  let fd: number | undefined;
  try {
    fd = openSync(join(dir, STOPPED_NOTE), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    if (!fstatSync(fd).isFile()) return 0;
    const buf = Buffer.alloc(16);
    const n = Number(buf.toString("utf8", 0, readSync(fd, buf, 0, 16, 0)).trim());
    return Number.isSafeInteger(n) && n > 0 ? n : 0;
  } catch {
    return 0; // none: nothing was left, or the namespace had no PID 1
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Removes the command's temporary directory off the event loop: the kernel's removal of a folder another mount
 * namespace bound (the command's /tmp) can take a millisecond. A failure leaves it (the name is unique, and the
 * reconcile sweeps what an SCV leaves).
 */
function removeQuietly(dir: string): Promise<void> {
  // Most commands leave it empty: one rmdir, no walk.
  return rmdir(dir).catch(() => rm(dir, { recursive: true, force: true }).catch(() => {}));
}
