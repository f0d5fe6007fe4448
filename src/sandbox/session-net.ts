// One network namespace per session: every sandboxed command of a session (foreground and background) joins the
// same private namespace, so a server a background job started is reachable from the next call's `curl
// localhost:3000`, while nothing outside the session reaches it and it reaches nothing outside but through the
// egress proxy. A holder process (`scv __sandbox --hold`, launcher.ts) makes the namespace, brings loopback up and
// becomes a waiting shell of a megabyte; commands join it by its pid and start time (mounts.ts). It is started at
// the session's first sandboxed command and ends when the session closes (or SCV dies: its stdin closes).
import type { Subprocess } from "bun";
import { closeSync, openSync, readFileSync } from "node:fs";
import { EGRESS_PORT } from "./egress-env";
import type { SessionNetworkHandle } from "./policy";

/** Ports for the commands' proxy listeners in the shared namespace: one each, while it runs. */
const PORTS = 256;
const READY_TIMEOUT_MS = 10_000;
const RETRY_MS = 60_000;

export class SessionNetwork implements SessionNetworkHandle {
  private holder: { proc: Subprocess<"pipe", "pipe", "pipe">; pid: number; startTime: string; fds?: { user?: number; net: number } } | undefined;
  private starting: Promise<void> | undefined;
  /** When the holder last failed to start: it is tried again after RETRY_MS (meanwhile each command has its own). */
  private failedAt: number | undefined;
  private closed = false;
  private readonly used = new Set<number>();

  /** `argv`: the holder's command (`scv __sandbox --hold`, then `asUser()`'s 0 or 1); `env` its environment. */
  constructor(
    private readonly argv: string[],
    private readonly env: Record<string, string>,
    private readonly asUser: () => "0" | "1",
  ) {}

  current(): { pid: number; startTime: string } | undefined {
    const h = this.holder;
    if (!h || h.proc.exitCode !== null || h.proc.signalCode !== null) return undefined;
    return { pid: h.pid, startTime: h.startTime };
  }

  /**
   * The namespaces' descriptors, opened once when the holder came up (its start time checked after), for the
   * direct start (direct.ts) to setns into; undefined when the holder is not up.
   */
  namespaceFds(): { user?: number; net: number } | undefined {
    return this.current() ? this.holder?.fds : undefined;
  }

  ready(): Promise<void> {
    const failedRecently = this.failedAt !== undefined && Date.now() - this.failedAt < RETRY_MS;
    if (this.closed || failedRecently || this.current()) return Promise.resolve();
    return (this.starting ??= this.start().finally(() => (this.starting = undefined)));
  }

  takePort(): number {
    for (let i = 0; i < PORTS; i++) {
      const port = EGRESS_PORT + i;
      if (!this.used.has(port)) {
        this.used.add(port);
        return port;
      }
    }
    return EGRESS_PORT + PORTS; // more commands at once than ports: they share the last one's number (a bind fails, said)
  }

  releasePort(port: number): void {
    this.used.delete(port);
  }

  close(): void {
    this.closed = true;
    const h = this.holder;
    this.holder = undefined;
    if (!h) return;
    for (const fd of [h.fds?.user, h.fds?.net]) if (fd !== undefined) closeQuietly(fd);
    try {
      h.proc.stdin.end();
    } catch {
      // already gone
    }
    h.proc.kill("SIGKILL");
  }

  /**
   * Starts the holder and waits for its `ready`. A holder that cannot start leaves each command a namespace of its
   * own, as before (the reason is on the holder's stderr; the commands still run confined).
   */
  private async start(): Promise<void> {
    const proc = Bun.spawn([...this.argv, this.asUser()], { cwd: "/", env: this.env, stdin: "pipe", stdout: "pipe", stderr: "pipe", detached: true });
    const reader = proc.stdout.getReader();
    let said = "";
    const timer = setTimeout(() => proc.kill("SIGKILL"), READY_TIMEOUT_MS);
    try {
      while (!said.includes("\n")) {
        const { value, done } = await reader.read();
        if (done) break;
        said += new TextDecoder().decode(value);
      }
    } finally {
      clearTimeout(timer);
      reader.releaseLock();
    }
    const startTime = startTimeOf(proc.pid);
    if (!said.startsWith("ready") || !startTime || this.closed) {
      proc.kill("SIGKILL");
      if (!this.closed) this.failedAt = Date.now();
      return;
    }
    // A holder that ended (killed from outside) leaves its descriptors: they would hold its namespaces.
    for (const fd of [this.holder?.fds?.user, this.holder?.fds?.net]) if (fd !== undefined) closeQuietly(fd);
    this.holder = { proc, pid: proc.pid, startTime, fds: openNamespaces(proc.pid, startTime, this.asUser() === "1") };
    proc.unref();
  }
}

/** The holder's user (as an ordinary user) and network namespaces, or undefined when they cannot be opened as its. */
function openNamespaces(pid: number, startTime: string, asUser: boolean): { user?: number; net: number } | undefined {
  const fds: number[] = [];
  try {
    if (asUser) fds.push(openSync(`/proc/${pid}/ns/user`, "r"));
    fds.push(openSync(`/proc/${pid}/ns/net`, "r"));
    // Checked after opening: a pid reused meanwhile is never taken for the holder.
    if (startTimeOf(pid) !== startTime) throw new Error("the holder ended");
    return asUser ? { user: fds[0]!, net: fds[1]! } : { net: fds[0]! };
  } catch {
    for (const fd of fds) closeQuietly(fd);
    return undefined;
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
}

/** A process's start time in clock ticks (/proc/PID/stat field 22), what the launcher checks before joining. */
function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}
