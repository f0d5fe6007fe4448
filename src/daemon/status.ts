// What `scv status` and GET /status report: delegations running and idle, orphans stopped and awaiting.
import { type DelegationRecord, delegationState, listRecords } from "../process/delegation-records";
import { readReconcileStats } from "../process/reconcile";
import { probeDaemon, daemonFetch } from "./client";
import { StatusResponse } from "./wire";

export interface DelegationSummary {
  running: number;
  idle: number;
  orphans: number;
}

/** `background` counts as running: a nested SCV whose own jobs still run is at work. */
export function summarize(records: readonly DelegationRecord[]): DelegationSummary {
  const out = { running: 0, idle: 0, orphans: 0 };
  for (const rec of records) {
    const state = delegationState(rec);
    if (state === "idle") out.idle++;
    else if (state === "orphan") out.orphans++;
    else out.running++;
  }
  return out;
}

export interface StatusReport {
  /** Where the numbers came from: the running daemon, or the state directory. */
  source: "daemon" | "state";
  daemon: { running: false; note?: string } | { running: true; pid: number; version: string; uptime_seconds: number; stopping: boolean };
  delegations: { running: number; idle: number };
  /** Stopped by the daemon since it started (when it runs), else by any SCV process of this home. */
  orphans_stopped: number;
  orphans_stopped_total: number;
  orphans_awaiting: number;
}

export function statusFromState(scvHome: string, note?: string): StatusReport {
  const counts = summarize(listRecords(scvHome));
  const total = readReconcileStats(scvHome).orphans_stopped_total;
  return {
    source: "state",
    daemon: note ? { running: false, note } : { running: false },
    delegations: { running: counts.running, idle: counts.idle },
    orphans_stopped: total,
    orphans_stopped_total: total,
    orphans_awaiting: counts.orphans,
  };
}

export async function collectStatus(scvHome: string): Promise<StatusReport> {
  const probe = await probeDaemon(scvHome);
  if (probe.state === "running") {
    try {
      const parsed = StatusResponse.safeParse(await (await daemonFetch(scvHome, "/status")).json());
      if (parsed.success) {
        const s = parsed.data;
        return {
          source: "daemon",
          daemon: { running: true, pid: s.pid, version: s.version, uptime_seconds: s.uptime_seconds, stopping: s.stopping },
          delegations: s.delegations,
          orphans_stopped: s.orphans_stopped,
          orphans_stopped_total: s.orphans_stopped_total,
          orphans_awaiting: s.orphans_awaiting,
        };
      }
    } catch {}
    return statusFromState(scvHome, `the daemon (pid ${probe.health.pid}) did not report its status`);
  }
  if (probe.state === "unresponsive") return statusFromState(scvHome, `a process holds the socket but does not answer: ${probe.error}`);
  return statusFromState(scvHome);
}

export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  if (s < 86400) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
  return `${Math.floor(s / 86400)}d${String(Math.floor((s % 86400) / 3600)).padStart(2, "0")}h`;
}

export function formatStatus(r: StatusReport): string {
  const lines: string[] = [];
  if (r.daemon.running) {
    const d = r.daemon;
    lines.push(`daemon: running (pid ${d.pid}, up ${formatDuration(d.uptime_seconds)}, version ${d.version}${d.stopping ? ", stopping" : ""})`);
  } else {
    lines.push(`daemon: not running${r.daemon.note ? ` (${r.daemon.note})` : ""}`);
  }
  lines.push(`delegations: ${r.delegations.running} running, ${r.delegations.idle} idle`);
  const by = r.source === "daemon" ? `${r.orphans_stopped} by this daemon, ${r.orphans_stopped_total} in total` : `${r.orphans_stopped_total} in total`;
  lines.push(`orphans stopped: ${by}${r.orphans_awaiting ? `; ${r.orphans_awaiting} awaiting cleanup (scv agents kill --orphans)` : ""}`);
  return lines.join("\n");
}
