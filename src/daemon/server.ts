// The daemon: one per SCV_HOME, serving Hono on $SCV_HOME/run/scv.sock (0600). On Linux it is a child
// subreaper and collects orphaned descendants it did not spawn; it reconciles orphans at start and every 60 s.
// A planned stop waits (bounded) for running turns and delegations; a forced one kills them the tracked way.
import { closeSync, constants, mkdirSync, openSync, statSync, unlinkSync, writeSync } from "node:fs";
import { Hono } from "hono";
import { delegationState, ensurePrivateDir, listRecords, ownerIdentity, readStateJson } from "../process/delegation-records";
import { handleExitSignals, liveDelegations, stopAllDelegations } from "../process/delegations";
import { isAlive } from "../process/procfs";
import { readReconcileStats } from "../process/reconcile";
import { reconcileAll } from "../agents/reconcile";
import { becomeSubreaper, defaultRunner, recordRunsIn } from "../process/index";
import { VERSION } from "../version";
import { probeDaemon } from "./client";
import { daemonPaths } from "./paths";
import { summarize } from "./status";
import { type HealthResponse, ShutdownRequest, type StatusResponse } from "./wire";

export interface DaemonOptions {
  scvHome: string;
  reconcileIntervalMs?: number;
  reapIntervalMs?: number;
  /** How long a planned stop waits by default before it kills what still runs. */
  shutdownTimeoutMs?: number;
  log?: (line: string) => void;
  /** Running turns of sessions the daemon serves (later issues); a planned stop waits for them too. */
  busyTurns?: () => number;
  /** Extra routes (sessions, channels) mounted by later issues. */
  extend?: (app: Hono) => void;
  /**
   * Binds the daemon's other listeners (the web page) once this daemon is sure to be the only one, before its
   * socket answers: a throw fails the start with its message, before any channel or schedule starts.
   */
  bind?: () => void;
  /** A stop began: start no new work (chat messages stay queued for the next start). */
  onStopping?: () => void;
  /** After the wait, before delegations are killed: close what the daemon hosts (chat sessions). */
  beforeExit?: () => Promise<void>;
}

export interface DaemonHandle {
  pid: number;
  socket: string;
  subreaper: boolean;
  /** Begins a stop (idempotent; a forced request upgrades a planned one) and resolves once stopped. */
  shutdown(opts?: { force?: boolean; timeoutMs?: number }): Promise<void>;
  stopped: Promise<void>;
  orphansStopped(): number;
}

export class DaemonStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DaemonStartError";
  }
}

const SUN_PATH_MAX = 107;

/** What the daemon's routes and its stop share while it runs. */
interface DaemonState {
  readonly started: number;
  orphansStopped: number;
  stopping: boolean;
  force: boolean;
  waitingFor: number;
}

type Shutdown = (req?: { force?: boolean; timeoutMs?: number }) => Promise<void>;

export async function runDaemon(opts: DaemonOptions): Promise<DaemonHandle> {
  const log = opts.log ?? ((line: string) => console.log(`${new Date().toISOString()} ${line}`));
  const paths = daemonPaths(opts.scvHome);
  if (Buffer.byteLength(paths.socket) > SUN_PATH_MAX) {
    throw new DaemonStartError(`socket path ${paths.socket} is longer than ${SUN_PATH_MAX} bytes; choose a shorter SCV_HOME`);
  }
  mkdirSync(opts.scvHome, { recursive: true, mode: 0o700 });
  ensurePrivateDir(paths.runDir);

  const state: DaemonState = { started: Date.now(), orphansStopped: 0, stopping: false, force: false, waitingFor: 0 };
  const busy = () =>
    liveDelegations().filter((r) => delegationState(r, true) !== "idle").length + (opts.busyTurns?.() ?? 0);
  const shutdownTimeoutMs = opts.shutdownTimeoutMs ?? 300_000;

  const app = daemonApp(opts, state, { busy, shutdownTimeoutMs, shutdown: (req) => shutdown(req) });
  const server = await claimAndListen(opts.scvHome, app, opts.bind);
  const subreaper = process.platform === "linux" && becomeSubreaper();
  handleExitSignals(false); // this process decides how its runs end on a signal
  recordRunsIn(opts.scvHome);
  log(`scv daemon ${VERSION} pid ${process.pid} listening on ${paths.socket}${subreaper ? " (child subreaper)" : ""}`);
  const stopHousekeeping = startHousekeeping(opts, state, subreaper, log);

  let resolveStopped!: () => void;
  const stopped = new Promise<void>((r) => (resolveStopped = r));
  let stopTask: Promise<void> | undefined;

  const shutdown: Shutdown = (req = {}) => {
    if (req.force) state.force = true;
    if (stopTask) return stopped;
    state.stopping = true;
    opts.onStopping?.();
    stopTask = (async () => {
      const deadline = Date.now() + (req.timeoutMs ?? shutdownTimeoutMs);
      let announced = -1;
      while (!state.force && Date.now() < deadline && (state.waitingFor = busy()) > 0) {
        if (state.waitingFor !== announced) log(`stopping: waiting for ${(announced = state.waitingFor)} running turn(s) or delegation(s)`);
        await Bun.sleep(100);
      }
      if (busy() > 0) log(state.force ? "stopping: forced, killing running delegations" : "stopping: wait bound reached, killing running delegations");
      state.waitingFor = 0;
      try {
        await opts.beforeExit?.();
      } catch (e) {
        log(`stopping: ${(e as Error).message}`);
      }
      await stopAllDelegations();
      stopHousekeeping();
      for (const s of ["SIGTERM", "SIGINT"] as const) process.off(s, onSignal);
      server.stop(true);
      log("stopped");
      resolveStopped();
    })();
    return stopped;
  };

  const onSignal = (signal: NodeJS.Signals) => {
    log(`${signal}: ${state.stopping ? "forcing the stop" : "planned stop"}`);
    void shutdown({ force: state.stopping });
  };
  for (const s of ["SIGTERM", "SIGINT"] as const) process.on(s, onSignal);

  return { pid: process.pid, socket: paths.socket, subreaper, shutdown, stopped, orphansStopped: () => state.orphansStopped };
}

/** The daemon's own routes (`/health`, `/status`, `/shutdown`), then those the options mount. */
function daemonApp(opts: DaemonOptions, state: DaemonState, stop: { busy: () => number; shutdownTimeoutMs: number; shutdown: Shutdown }): Hono {
  const app = new Hono();
  app.get("/health", (c) => c.json({ ok: true, pid: process.pid, start_time: ownerIdentity().startTime, version: VERSION } satisfies HealthResponse));
  app.get("/status", (c) => {
    const counts = summarize(listRecords(opts.scvHome));
    const body: StatusResponse = {
      pid: process.pid,
      version: VERSION,
      started_unix: Math.floor(state.started / 1000),
      uptime_seconds: Math.floor((Date.now() - state.started) / 1000),
      delegations: { running: counts.running, idle: counts.idle },
      orphans_stopped: state.orphansStopped,
      orphans_stopped_total: readReconcileStats(opts.scvHome).orphans_stopped_total,
      orphans_awaiting: counts.orphans,
      stopping: state.stopping,
      waiting_for: state.stopping ? state.waitingFor : 0,
    };
    return c.json(body);
  });
  app.post("/shutdown", async (c) => {
    const text = await c.req.text();
    let raw: unknown = {};
    try {
      if (text.trim()) raw = JSON.parse(text);
    } catch {
      return c.json({ error: "the body must be JSON like {\"force\": false}" }, 400);
    }
    const parsed = ShutdownRequest.safeParse(raw);
    if (!parsed.success) {
      return c.json({ error: `invalid shutdown request: ${parsed.error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; ")}` }, 400);
    }
    const timeoutMs = parsed.data.timeout_seconds !== undefined ? parsed.data.timeout_seconds * 1000 : stop.shutdownTimeoutMs;
    const waiting = parsed.data.force ? 0 : stop.busy();
    // Answer first, then stop: the response must leave before the socket closes.
    setTimeout(() => void stop.shutdown({ force: parsed.data.force, timeoutMs }), 10);
    return c.json({ stopping: true, force: parsed.data.force, waiting_for: waiting, timeout_seconds: timeoutMs / 1000 }, 202);
  });
  opts.extend?.(app);
  app.notFound((c) => c.json({ error: `no route ${c.req.method} ${c.req.path}` }, 404));
  return app;
}

/** Reconcile at once and every interval; as a subreaper, reap foreign zombies. Returns what stops both timers. */
function startHousekeeping(opts: DaemonOptions, state: DaemonState, subreaper: boolean, log: (line: string) => void): () => void {
  let reconciling = false;
  const reconcilePass = async () => {
    if (reconciling || state.stopping) return;
    reconciling = true;
    try {
      const r = await reconcileAll(opts.scvHome);
      state.orphansStopped += r.stopped.length;
      if (r.stopped.length) log(`reconcile: stopped orphans ${r.stopped.join(", ")}`);
      if (r.runsStopped.length) log(`reconcile: stopped ${r.runsStopped.length} run(s) left by SCV processes that died`);
      if (r.markersRemoved) log(`reconcile: removed ${r.markersRemoved} stale conversation marker(s)`);
    } catch (e) {
      log(`reconcile failed: ${(e as Error).message}`);
    } finally {
      reconciling = false;
    }
  };
  void reconcilePass();
  const reconcileTimer = setInterval(reconcilePass, opts.reconcileIntervalMs ?? 60_000);
  const reapTimer = subreaper
    ? setInterval(() => {
        try {
          defaultRunner().reap(); // waitpid on specific foreign zombies only, never -1
        } catch {}
      }, opts.reapIntervalMs ?? 2000)
    : undefined;
  return () => {
    clearInterval(reconcileTimer);
    if (reapTimer) clearInterval(reapTimer);
  };
}

/** Single instance: probe the socket, replace it only when the connection is refused, bind with umask 0177. */
async function claimAndListen(scvHome: string, app: Hono, bind?: () => void): Promise<ReturnType<typeof Bun.serve>> {
  const paths = daemonPaths(scvHome);
  const release = takeStartLock(paths.lock);
  try {
    const probe = await probeDaemon(scvHome);
    if (probe.state === "running") throw new DaemonStartError(`a daemon is already running for ${scvHome} (pid ${probe.health.pid})`);
    if (probe.state === "unresponsive") {
      throw new DaemonStartError(`${paths.socket} accepts connections but does not answer (${probe.error}); stop that process first`);
    }
    if (probe.state === "not-socket") throw new DaemonStartError(`${paths.socket} exists and is not a socket; move it away and retry`);
    if (probe.state === "stale") unlinkSync(paths.socket); // refused: left by a crashed daemon
    try {
      bind?.();
    } catch (e) {
      throw new DaemonStartError((e as Error).message);
    }
    const old = process.umask(0o177);
    try {
      return Bun.serve({ unix: paths.socket, fetch: app.fetch });
    } catch (e) {
      throw new DaemonStartError(`cannot listen on ${paths.socket}: ${(e as Error).message}`);
    } finally {
      process.umask(old);
    }
  } finally {
    release();
  }
}

// Two daemons starting at once must not both see "stale" and unlink each other's fresh socket.
function takeStartLock(file: string): () => void {
  const me = ownerIdentity();
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
      writeSync(fd, JSON.stringify({ pid: me.pid, start_time: me.startTime }));
      closeSync(fd);
      return () => {
        try {
          unlinkSync(file);
        } catch {}
      };
    } catch (e) {
      if ((e as { code?: string }).code !== "EEXIST") throw new DaemonStartError(`cannot create ${file}: ${(e as Error).message}`);
    }
    let holder: { pid?: number; start_time?: string } = {};
    try {
      holder = readStateJson(file, "daemon lock") as typeof holder;
    } catch {
      // Empty: its holder may be between create and write, unless the file is old.
      if (Date.now() - (statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0) < 5000) {
        throw new DaemonStartError("another daemon is starting for this SCV_HOME");
      }
    }
    if (holder.pid && holder.start_time && isAlive({ pid: holder.pid, startTime: holder.start_time })) {
      throw new DaemonStartError(`another daemon (pid ${holder.pid}) is starting for this SCV_HOME`);
    }
    try {
      unlinkSync(file); // its holder died mid-start
    } catch {}
  }
  throw new DaemonStartError(`could not take ${file}`);
}
