// Delegation records ($SCV_HOME/state/delegations/<handle>.json): schema, private atomic files, cancel
// markers, and the identities (owner PID + start time + boot) that tell a live owner from an orphan's.
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { KiB, readBoundedText } from "../fs/safe-read";
import { ensurePrivateDir, tryUnlink, writePrivateFileAtomic } from "../fs/private-file";
import { join } from "node:path";
import type { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { isAlive, ownIdentity } from "./procfs";
import type { ProcessIdentity } from "./types";

// Built at its first use (lazySchema), not when a server starts (docs/architecture.md, start-up).
export const DelegationRecord = lazySchema((z) => z.object({
  handle: z.string(),
  agent: z.string(),
  /** What runs: absent for a delegated agent, `mcp` for an MCP server a session started (agent is then its name). */
  // `command`: a background `bash` command kept past its session (bash `keep`).
  kind: z.enum(["mcp", "command"]).optional(),
  /** instanceId and sessionId of the SCV session that started it. */
  instance: z.string(),
  session: z.string(),
  cwd: z.string(),
  depth: z.number().int(),
  /** The SCV_PARENT value the agent got; its descendants carry it or extend it with ":". */
  scv_parent: z.string(),
  /** The runner's SCV_RUN_TAG for this run. */
  run_tag: z.string(),
  pid: z.number().int(),
  start_time: z.string(),
  owner_pid: z.number().int(),
  owner_start_time: z.string(),
  /** Kernel boot the PIDs belong to; after a reboot none of them can be ours. */
  boot_id: z.string().optional(),
  /** /proc/stat btime when written: if it moved, the wall clock was stepped and scans skip their time filter. */
  btime: z.number().optional(),
  started_unix: z.number(),
  conversation: z.string().optional(),
  turn: z.number().int().optional(),
  idle_since_unix: z.number().optional(),
  background_jobs: z.number().int().positive().optional(),
}));
export type DelegationRecord = z.infer<typeof DelegationRecord>;

const HANDLE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
export const validHandle = (h: string) => HANDLE.test(h);

export const stateDir = (scvHome: string) => join(scvHome, "state");
export const delegationsDir = (scvHome: string) => join(scvHome, "state", "delegations");
const recordPath = (scvHome: string, handle: string) => join(delegationsDir(scvHome), `${handle}.json`);
const cancelPath = (scvHome: string, handle: string) => join(delegationsDir(scvHome), `${handle}.cancel-requested`);

export { ensurePrivateDir, tryUnlink, writePrivateFileAtomic };

/**
 * A JSON state file under $SCV_HOME/state (records, markers, stats): anything there could have been replaced
 * by whatever runs as the user, so it is read without blocking or following a final link, and bounded.
 */
export function readStateJson(file: string, what: string): unknown {
  return JSON.parse(readBoundedText(file, { what, maxBytes: 256 * KiB, followSymlink: false }));
}

export function writeRecord(scvHome: string, record: DelegationRecord): void {
  ensurePrivateDir(stateDir(scvHome));
  ensurePrivateDir(delegationsDir(scvHome));
  writePrivateFileAtomic(recordPath(scvHome, record.handle), `${JSON.stringify(record, null, 2)}\n`);
}

export function readRecord(scvHome: string, handle: string): DelegationRecord | undefined {
  if (!validHandle(handle)) return undefined;
  try {
    const parsed = DelegationRecord.safeParse(readStateJson(recordPath(scvHome, handle), "delegation record"));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Every readable record, oldest first. Unreadable files are skipped (a writer never leaves half a record). */
export function listRecords(scvHome: string): DelegationRecord[] {
  let names: string[];
  try {
    names = readdirSync(delegationsDir(scvHome));
  } catch {
    return [];
  }
  const out: DelegationRecord[] = [];
  for (const name of names) {
    if (!name.endsWith(".json") || name.startsWith(".")) continue;
    const rec = readRecord(scvHome, name.slice(0, -5));
    if (rec) out.push(rec);
  }
  return out.sort((a, b) => a.started_unix - b.started_unix || a.handle.localeCompare(b.handle));
}

/** True when this call removed the record (so concurrent reconcilers count an orphan once). */
export function removeRecord(scvHome: string, handle: string): boolean {
  return tryUnlink(recordPath(scvHome, handle));
}

/** Left by `scv agents kill` before it signals, so the owning SCV reports the run as cancelled. */
export function requestCancel(scvHome: string, handle: string): void {
  ensurePrivateDir(delegationsDir(scvHome));
  writePrivateFileAtomic(cancelPath(scvHome, handle), `${JSON.stringify({ by_pid: process.pid, at_unix: Date.now() / 1000 })}\n`);
}
export function cancelRequested(scvHome: string, handle: string): boolean {
  try {
    return lstatSync(cancelPath(scvHome, handle)).isFile(); // its presence is the request; nothing is read
  } catch {
    return false;
  }
}
export const clearCancelRequest = (scvHome: string, handle: string) => tryUnlink(cancelPath(scvHome, handle));

let cachedOwner: ProcessIdentity | undefined;
/** This SCV process's identity, as recorded in its delegations. */
export function ownerIdentity(): ProcessIdentity {
  cachedOwner ??= ownIdentity() ?? { pid: process.pid, startTime: "0" };
  return cachedOwner;
}

let cachedBoot: string | undefined;
export function bootId(): string {
  if (cachedBoot === undefined) {
    try {
      cachedBoot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    } catch {
      cachedBoot = "";
    }
  }
  return cachedBoot;
}

/** Boot time in Unix seconds from /proc/stat (it moves when the wall clock is stepped). */
export function currentBtime(): number | undefined {
  try {
    const m = /^btime (\d+)$/m.exec(readFileSync("/proc/stat", "utf8"));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the SCV process that owns the record still runs: same PID, same start time, same boot. */
export function ownerAlive(rec: DelegationRecord): boolean {
  if (rec.boot_id && rec.boot_id !== bootId()) return false;
  return isAlive({ pid: rec.owner_pid, startTime: rec.owner_start_time });
}


export type DelegationState = "running" | "idle" | "background" | "orphan";

/** How `scv agents ps` and `scv status` describe a record: a live agent between turns is idle, or background
 * while a nested SCV's own jobs still count; a record whose owner is gone is an orphan. */
export function delegationState(rec: DelegationRecord, owner: boolean = ownerAlive(rec)): DelegationState {
  if (!owner) return "orphan";
  if (rec.idle_since_unix === undefined) return "running";
  return rec.background_jobs ? "background" : "idle";
}
