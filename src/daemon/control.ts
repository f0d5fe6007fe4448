// `scv daemon start|stop|restart`: start re-executes this binary detached with `daemon run`, logging to
// $SCV_HOME/log/daemon.log, and waits for /health; stop asks POST /shutdown and waits for that process to exit.
import { closeSync, constants, fstatSync, openSync, readSync, statSync, unlinkSync } from "node:fs";
import { ensurePrivateDir } from "../process/delegation-records";
import { isAlive } from "../process/procfs";
import { daemonFetch, probeDaemon } from "./client";
import { daemonPaths } from "./paths";
import { ShutdownResponse } from "./wire";

export class DaemonControlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DaemonControlError";
  }
}

/** How to run this SCV again: the compiled binary itself, or `bun <entry script>` from source. */
export function selfCommand(): string[] {
  const compiled = Bun.main.startsWith("/$bunfs/");
  return compiled ? [process.execPath] : [process.execPath, Bun.main];
}

/** The environment for a re-executed SCV: BUN_OPTIONS/BUN_BE_BUN would change what the binary does. */
export function childEnv(env: Readonly<Record<string, string | undefined>>, scvHome: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && k !== "BUN_OPTIONS" && k !== "BUN_BE_BUN") out[k] = v;
  out.SCV_HOME = scvHome;
  return out;
}

export interface StartOptions {
  scvHome: string;
  /** Defaults to selfCommand(); `daemon run` is appended. */
  command?: string[];
  env?: Readonly<Record<string, string | undefined>>;
  waitMs?: number;
}

export type StartOutcome = { started: true; pid: number; log: string } | { started: false; pid: number; reason: "already running" };

export async function startDaemon(opts: StartOptions): Promise<StartOutcome> {
  const probe = await probeDaemon(opts.scvHome);
  if (probe.state === "running") return { started: false, pid: probe.health.pid, reason: "already running" };
  if (probe.state === "unresponsive") {
    throw new DaemonControlError(`${daemonPaths(opts.scvHome).socket} accepts connections but does not answer (${probe.error})`);
  }
  if (probe.state === "not-socket") {
    throw new DaemonControlError(`${daemonPaths(opts.scvHome).socket} exists and is not a socket; move it away and retry`);
  }
  const paths = daemonPaths(opts.scvHome);
  ensurePrivateDir(opts.scvHome);
  ensurePrivateDir(paths.logDir);
  const logFd = openSync(paths.log, constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_NOFOLLOW, 0o600);
  const logStart = logSize(paths.log);
  let child: ReturnType<typeof Bun.spawn>;
  try {
    child = Bun.spawn([...(opts.command ?? selfCommand()), "daemon", "run"], {
      cwd: opts.scvHome, // a compiled SCV reads no .env or bunfig.toml from a random project directory
      env: childEnv(opts.env ?? process.env, opts.scvHome),
      detached: true,
      stdin: "ignore",
      stdout: logFd,
      stderr: logFd,
    });
  } finally {
    closeSync(logFd);
  }
  child.unref();
  const deadline = Date.now() + (opts.waitMs ?? 10_000);
  while (Date.now() < deadline) {
    const p = await probeDaemon(opts.scvHome, 500);
    if (p.state === "running") {
      if (p.health.pid === child.pid) return { started: true, pid: child.pid, log: paths.log };
      return { started: false, pid: p.health.pid, reason: "already running" }; // another start won the race
    }
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new DaemonControlError(`the daemon exited during start-up:\n${logTail(paths.log, logStart)}`);
    }
    await Bun.sleep(50);
  }
  throw new DaemonControlError(`the daemon did not answer on ${paths.socket} within ${opts.waitMs ?? 10_000} ms; see ${paths.log}`);
}

export interface StopOptions {
  scvHome: string;
  force?: boolean;
  /** Bound for a planned stop (the daemon kills what still runs after it). */
  timeoutSeconds?: number;
  onWaiting?(count: number): void;
}

export type StopOutcome = { stopped: true; pid: number } | { stopped: false; reason: string };

export async function stopDaemon(opts: StopOptions): Promise<StopOutcome> {
  const probe = await probeDaemon(opts.scvHome);
  if (probe.state === "stale") {
    try {
      unlinkSync(daemonPaths(opts.scvHome).socket);
    } catch {}
    return { stopped: false, reason: "not running (removed a stale socket left by a crash)" };
  }
  if (probe.state === "absent") return { stopped: false, reason: "not running" };
  if (probe.state !== "running") return { stopped: false, reason: `cannot reach the daemon: ${probe.state === "unresponsive" ? probe.error : probe.state}` };
  const id = { pid: probe.health.pid, startTime: probe.health.start_time };
  const body = JSON.stringify({ force: !!opts.force, ...(opts.timeoutSeconds ? { timeout_seconds: opts.timeoutSeconds } : {}) });
  const res = await daemonFetch(opts.scvHome, "/shutdown", { method: "POST", body, headers: { "content-type": "application/json" } });
  const answer = ShutdownResponse.safeParse(await res.json().catch(() => undefined)); // not JSON: safeParse fails and the refusal below names the HTTP status
  if (!answer.success) throw new DaemonControlError(`the daemon refused to stop (HTTP ${res.status})`);
  if (answer.data.waiting_for > 0) opts.onWaiting?.(answer.data.waiting_for);
  // The daemon bounds its own wait; allow it that long plus the 2 s kill grace and some slack.
  const deadline = Date.now() + answer.data.timeout_seconds * 1000 + 15_000;
  while (isAlive(id)) {
    if (Date.now() > deadline) throw new DaemonControlError(`the daemon (pid ${id.pid}) is still running; try \`scv daemon stop --force\``);
    await Bun.sleep(50);
  }
  return { stopped: true, pid: id.pid };
}

function logSize(file: string): number {
  try {
    return statSync(file).size; // a daemon log grows for months: never read it whole
  } catch {
    return 0;
  }
}

/** The last lines written since `from`, reading at most the log's last 64 KiB (non-blocking, regular file only). */
function logTail(file: string, from: number): string {
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    const st = fstatSync(fd);
    if (!st.isFile()) return "(no log)";
    const start = Math.max(from, st.size - 64 * 1024);
    const buf = Buffer.alloc(Math.max(0, st.size - start));
    const n = buf.length ? readSync(fd, buf, 0, buf.length, start) : 0;
    const text = buf.subarray(0, n).toString("utf8").trim();
    return text.split("\n").slice(-20).join("\n") || "(no output)";
  } catch {
    return "(no log)";
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
