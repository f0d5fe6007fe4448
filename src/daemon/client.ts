// Talking to the daemon over its Unix socket, and telling a live daemon from a stale socket file.
import { lstatSync } from "node:fs";
import { daemonPaths } from "./paths";
import { HealthResponse } from "./wire";

export type Probe =
  | { state: "running"; health: HealthResponse }
  | { state: "absent" }
  /** A socket file nobody listens on (a crashed daemon): safe to replace. */
  | { state: "stale" }
  | { state: "not-socket" }
  /** Something accepted the connection but gave no valid answer in time: never replaced. */
  | { state: "unresponsive"; error: string };

export async function daemonFetch(scvHome: string, path: string, init: RequestInit & { timeoutMs?: number } = {}): Promise<Response> {
  const { timeoutMs = 5000, ...rest } = init;
  return fetch(`http://scv${path}`, { ...rest, unix: daemonPaths(scvHome).socket, signal: AbortSignal.timeout(timeoutMs) });
}

/** Connects first; only a refused connection marks the socket stale. */
export async function probeDaemon(scvHome: string, timeoutMs = 2000): Promise<Probe> {
  const { socket } = daemonPaths(scvHome);
  try {
    if (!lstatSync(socket).isSocket()) return { state: "not-socket" };
  } catch {
    return { state: "absent" };
  }
  try {
    const res = await daemonFetch(scvHome, "/health", { timeoutMs });
    const parsed = HealthResponse.safeParse(await res.json());
    if (parsed.success) return { state: "running", health: parsed.data };
    return { state: "unresponsive", error: `unexpected /health answer (HTTP ${res.status})` };
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === "ECONNREFUSED") return { state: "stale" };
    if (code === "ENOENT") return { state: "absent" };
    return { state: "unresponsive", error: (e as Error).message };
  }
}
