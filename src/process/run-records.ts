// Run records ($SCV_HOME/state/runs/<id>.json): every process group the runner starts is written down before the
// child exists (owner identity, run tag) and again once it does (its group), and removed when the run has been
// cleaned up. A record whose owner is gone (SIGKILLed SCV) lets the next start-up reconcile stop the group and
// everything still carrying the tag, the same way as an orphaned delegation.
//
// Cost matters (one bash call = one file created, one write in place, one unlink), so records are not fsynced:
// a record only has to outlive its SCV process, and nothing it names survives a power loss anyway.
import { closeSync, constants, lstatSync, mkdirSync, openSync, readdirSync, renameSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { tryUnlink } from "../fs/private-file";
import { bootId, currentBtime, ownerIdentity, readStateJson } from "./delegation-records";
import { isAlive } from "./procfs";
import type { ProcessIdentity } from "./types";
import { deathWatch } from "./watchdog";

// Built at its first use (lazySchema), not when a server starts (docs/architecture.md, start-up).
export const RunRecord = lazySchema((z) => z.object({
  /** The SCV_RUN_TAG every descendant inherits. */
  run_tag: z.string().min(1),
  /** The leader, whose PID is also the group and session id (absent until the spawn returned). */
  pid: z.number().int().positive().optional(),
  start_time: z.string().optional(),
  owner_pid: z.number().int(),
  owner_start_time: z.string(),
  boot_id: z.string().optional(),
  btime: z.number().optional(),
  started_unix: z.number(),
  /** The program's name only: arguments can hold secrets. */
  program: z.string().optional(),
  /** Processes of the run that left its group and session (found by parentage; they may lack the tag). */
  members: z.array(z.object({ pid: z.number().int().positive(), start_time: z.string() })).optional(),
}));
export type RunRecord = z.infer<typeof RunRecord>;

const ID = /^[0-9a-f]{16}$/;

export const runsDir = (scvHome: string) => join(scvHome, "state", "runs");

/** The file name part of a tag: its last link (the runner's random 16 hex digits). */
export function recordId(tag: string): string | undefined {
  const id = tag.slice(tag.lastIndexOf("/") + 1);
  return ID.test(id) ? id : undefined;
}

/** A record being kept: the open file, so the update after the spawn is one write in place. */
export interface OpenRunRecord {
  record: RunRecord;
  file: string;
  fd: number | undefined;
  length: number;
}

/** Writes and removes the records of one SCV process's runs in one directory. */
export class RunRecorder {
  private dirReady = false;
  constructor(readonly dir: string) {}

  /**
   * Before the spawn: owner and tag, in a new file. Throws when it cannot be written (the run must not start).
   * Written in place: a writer killed mid-write has started no child yet, so a torn record names nothing alive.
   */
  begin(tag: string, program: string): OpenRunRecord {
    const id = recordId(tag);
    if (!id) throw new Error(`run tag ${JSON.stringify(tag)} does not end in 16 hex digits`);
    const owner = ownerIdentity();
    const record: RunRecord = {
      run_tag: tag,
      owner_pid: owner.pid,
      owner_start_time: owner.startTime,
      boot_id: bootId(),
      btime: currentBtime(),
      started_unix: Math.floor(Date.now() / 1000),
      program: program.slice(program.lastIndexOf("/") + 1).slice(0, 64),
    };
    const file = join(this.dir, `${id}.json`);
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
    let fd: number;
    try {
      if (!this.dirReady) throw Object.assign(new Error("not made yet"), { code: "ENOENT" });
      fd = openSync(file, flags, 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
      mkdirSync(this.dir, { recursive: true, mode: 0o700 }); // first run, or someone removed the directory
      this.dirReady = true;
      fd = openSync(file, flags, 0o600);
    }
    const text = JSON.stringify(record);
    try {
      writeSync(fd, text);
    } catch (e) {
      closeSync(fd);
      tryUnlink(file);
      throw e;
    }
    return { record, file, fd, length: Buffer.byteLength(text) };
  }

  /**
   * After the spawn: the leader (its group), written over the first version in one small write (it only adds
   * fields, so it is longer and covers it). A failure leaves the first version, whose tag still finds the run.
   */
  started(open: OpenRunRecord, leader: ProcessIdentity): void {
    open.record.pid = leader.pid;
    open.record.start_time = leader.startTime;
    // Stopped within 2 s if this process is killed, without waiting for a next start-up (./watchdog.ts).
    deathWatch().started(leader, open.record.run_tag);
    if (open.fd === undefined) return;
    try {
      writeSync(open.fd, JSON.stringify(open.record).padEnd(open.length), 0);
    } catch {
      // the tag alone still finds every descendant that kept its environment
    } finally {
      closeSync(open.fd);
      open.fd = undefined;
    }
  }

  /**
   * A process of the run that left its group and session: told to the death watch, and added to the record (the
   * file rewritten whole; it stays small), so the next start-up's reconcile stops it too.
   */
  member(open: OpenRunRecord, id: ProcessIdentity): void {
    if (open.record.pid === undefined) return;
    deathWatch().member({ pid: open.record.pid, startTime: open.record.start_time ?? "0" }, id);
    (open.record.members ??= []).push({ pid: id.pid, start_time: id.startTime });
    try {
      const tmp = `${open.file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(open.record), { mode: 0o600 });
      renameSync(tmp, open.file);
    } catch {
      // the death watch still knows it
    }
  }

  finish(open: OpenRunRecord): void {
    if (open.record.pid !== undefined) deathWatch().ended({ pid: open.record.pid, startTime: open.record.start_time ?? "0" });
    if (open.fd !== undefined) closeSync(open.fd);
    open.fd = undefined;
    tryUnlink(open.file);
  }
}

/** Every readable run record with its file; unparseable files (see staleRunFiles) are skipped. */
export function listRunRecords(scvHome: string): { file: string; record: RunRecord }[] {
  return scanRuns(scvHome).flatMap((r) => (r.record ? [{ file: r.file, record: r.record }] : []));
}

/** Record files torn by a writer killed before its child started (unparseable for over a minute). */
export function staleRunFiles(scvHome: string, now = Date.now()): string[] {
  return scanRuns(scvHome)
    .filter((r) => !r.record && now - r.mtimeMs > 60_000)
    .map((r) => r.file);
}

function scanRuns(scvHome: string): { file: string; record?: RunRecord; mtimeMs: number }[] {
  const dir = runsDir(scvHome);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: { file: string; record?: RunRecord; mtimeMs: number }[] = [];
  for (const name of names) {
    if (!name.endsWith(".json") || !ID.test(name.slice(0, -5))) continue;
    const file = join(dir, name);
    let mtimeMs: number;
    try {
      mtimeMs = lstatSync(file).mtimeMs;
    } catch {
      continue; // removed meanwhile
    }
    let record: RunRecord | undefined;
    try {
      const parsed = RunRecord.safeParse(readStateJson(file, "run record"));
      if (parsed.success) record = parsed.data;
    } catch {
      // torn, or not a regular file: not a record
    }
    out.push({ file, ...(record ? { record } : {}), mtimeMs });
  }
  return out;
}

/** Whether the SCV process that wrote the record still runs: same PID, same start time, same boot. */
export function runOwnerAlive(rec: RunRecord): boolean {
  if (rec.boot_id && rec.boot_id !== bootId()) return false;
  return isAlive({ pid: rec.owner_pid, startTime: rec.owner_start_time });
}
