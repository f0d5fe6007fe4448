// Telling the daemon that the schedules changed, and saying plainly when no daemon will run them.
import { existsSync } from "node:fs";
import { daemonFetch, probeDaemon } from "../daemon/client";
import { unitPath } from "../daemon/systemd";

export type DaemonAnswer =
  | { running: true; next: { id: string; at: string }[] }
  /** `advice`: what will (not) happen and how to start the daemon, in words. */
  | { running: false; advice: string };

/** Asks a running daemon to read schedule `id` (or all) again; otherwise says that nothing fires until it runs. */
export async function reloadDaemon(scvHome: string, id?: string, env: Readonly<Record<string, string | undefined>> = process.env): Promise<DaemonAnswer> {
  const probe = await probeDaemon(scvHome);
  if (probe.state === "running") {
    try {
      const res = await daemonFetch(scvHome, `/schedules/reload${id ? `?id=${encodeURIComponent(id)}` : ""}`, { method: "POST" });
      if (res.ok) return { running: true, next: ((await res.json()) as { next: { id: string; at: string }[] }).next };
      if (res.status === 404) return { running: false, advice: `The running daemon (pid ${probe.health.pid}, version ${probe.health.version}) does not run schedules; restart it with \`scv daemon restart\`.` };
    } catch {}
    return { running: false, advice: `The daemon (pid ${probe.health.pid}) did not take the change; restart it with \`scv daemon restart\`.` };
  }
  const installed = existsSync(unitPath(env));
  return {
    running: false,
    advice: installed
      ? "The daemon is installed but not running, so nothing fires until it runs: start it with `systemctl --user start scv` (or `scv daemon start`)."
      : "The daemon is not running and not installed, so nothing fires until it runs: start it with `scv daemon start`, or `scv daemon install` to have it start with your session.",
  };
}

/** Asks the running daemon to fire a schedule now. */
export async function runOnDaemon(scvHome: string, id: string): Promise<{ ok: true; fire: string } | { ok: false; error: string }> {
  const probe = await probeDaemon(scvHome);
  if (probe.state !== "running") return { ok: false, error: "the daemon is not running; start it with `scv daemon start` (fires are the daemon's to run)" };
  const res = await daemonFetch(scvHome, `/schedules/${encodeURIComponent(id)}/run`, { method: "POST" });
  const body = (await res.json().catch(() => ({}))) as { fire?: string; error?: string };
  return res.ok && body.fire ? { ok: true, fire: body.fire } : { ok: false, error: body.error ?? `the daemon answered HTTP ${res.status}` };
}
