// Where the daemon keeps its socket, lock and log inside $SCV_HOME.
import { join } from "node:path";

export interface DaemonPaths {
  runDir: string;
  socket: string;
  /** Held only while a starting daemon probes, replaces and binds the socket. */
  lock: string;
  logDir: string;
  log: string;
}

export function daemonPaths(scvHome: string): DaemonPaths {
  const runDir = join(scvHome, "run");
  const logDir = join(scvHome, "log");
  return { runDir, socket: join(runDir, "scv.sock"), lock: join(runDir, "daemon.lock"), logDir, log: join(logDir, "daemon.log") };
}
