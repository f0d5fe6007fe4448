// `scv agents gc [--dry-run] [--older-than D] [agent]`: removes old CLI transcripts from the agents' private
// homes. Transcripts written in the last hour are always kept, as is any transcript a live conversation's
// marker names; symlinks are never followed.
import { type Dirent, lstatSync, readdirSync, rmdirSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { type AgentDescriptor, DESCRIPTORS } from "../agents/descriptors";
import { agentHome } from "../agents/environment";
import { liveConversationIds } from "../agents/conversations";

export const DEFAULT_OLDER_THAN = "30d";
const MIN_AGE_SECONDS = 3600;
const MAX_DEPTH = 10;
const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };

export interface GcOptions {
  scvHome: string;
  /** Such as "7d" or "12h"; default 30d, never under 1h. */
  olderThan?: string;
  /** Only this agent's transcripts. */
  agent?: string;
  dryRun?: boolean;
  now?: number;
}

export interface GcAgentReport {
  agent: string;
  /** Paths relative to the agent's private home. */
  files: string[];
  bytes: number;
  /** Old transcripts kept because a live conversation names them. */
  keptLive: number;
}

export interface GcReport {
  dryRun: boolean;
  olderThanSeconds: number;
  agents: GcAgentReport[];
}

export class GcUsageError extends Error {}

/** Seconds in a duration like 30d, 12h, 90m, 2w or 3600s. */
export function parseDuration(text: string): number {
  const m = /^(\d+(?:\.\d+)?)([smhdw])$/.exec(text.trim());
  if (!m) throw new GcUsageError(`--older-than ${JSON.stringify(text)}: give a number and a unit s, m, h, d or w, such as 7d or 12h`);
  return Math.round(Number(m[1]) * UNITS[m[2]!]!);
}

function agentsWithTranscripts(): AgentDescriptor[] {
  return (DESCRIPTORS as readonly AgentDescriptor[]).filter(
    (d) => d.session && (d.session.transcripts.length > 0 || (d.session.transcriptFolders?.length ?? 0) > 0),
  );
}

export function agentsGc(opts: GcOptions): GcReport {
  const olderThanSeconds = parseDuration(opts.olderThan ?? DEFAULT_OLDER_THAN);
  if (olderThanSeconds < MIN_AGE_SECONDS) {
    throw new GcUsageError(`--older-than ${opts.olderThan} is under an hour; transcripts written in the last hour are always kept, so give 1h or more`);
  }
  const candidates = agentsWithTranscripts();
  let agents = candidates;
  if (opts.agent !== undefined) {
    agents = candidates.filter((d) => d.name === opts.agent);
    if (agents.length === 0) {
      throw new GcUsageError(`${opts.agent} keeps no transcripts SCV collects; choose one of: ${candidates.map((d) => d.name).join(", ")}`);
    }
  }
  const now = opts.now ?? Date.now();
  const cutoff = now - olderThanSeconds * 1000;
  const live = [...liveConversationIds(opts.scvHome)];
  const report: GcReport = { dryRun: !!opts.dryRun, olderThanSeconds, agents: [] };
  for (const d of agents) {
    const home = agentHome(opts.scvHome, d.name);
    const entry: GcAgentReport = { agent: d.name, files: [], bytes: 0, keptLive: 0 };
    for (const rel of d.session!.transcripts) {
      sweep(join(home, rel), 0, !opts.dryRun, (path, size, mtimeMs) => {
        if (mtimeMs >= cutoff) return false;
        const name = relative(home, path);
        if (live.some((id) => name.includes(id))) {
          entry.keptLive++;
          return false;
        }
        entry.files.push(name);
        entry.bytes += size;
        return !opts.dryRun;
      });
    }
    for (const { path, depth } of d.session!.transcriptFolders ?? []) {
      for (const folder of foldersAtDepth(join(home, path), depth)) {
        const files = filesIn(folder);
        if (files.length === 0 || files.some((f) => f.mtimeMs >= cutoff)) continue;
        if (live.some((id) => relative(home, folder).includes(id))) {
          entry.keptLive++;
          continue;
        }
        for (const f of files) {
          entry.files.push(relative(home, f.path));
          entry.bytes += f.size;
        }
        if (!opts.dryRun) rmSync(folder, { recursive: true, force: true });
      }
    }
    report.agents.push(entry);
  }
  return report;
}

function isRealDir(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Directories exactly `depth` levels below `root`, never through a symlink. */
function foldersAtDepth(root: string, depth: number): string[] {
  let level = isRealDir(root) ? [root] : [];
  for (let i = 0; i < depth; i++) {
    const next: string[] = [];
    for (const dir of level) {
      let entries: Dirent[] = [];
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        // unreadable: nothing to collect there
      }
      for (const e of entries) if (e.isDirectory()) next.push(join(dir, e.name));
    }
    level = next;
  }
  return level;
}

/** Every regular file below a folder (symlinks neither followed nor counted), with size and mtime: sweep's walk, deleting nothing. */
function filesIn(folder: string): { path: string; size: number; mtimeMs: number }[] {
  const out: { path: string; size: number; mtimeMs: number }[] = [];
  sweep(folder, 0, false, (path, size, mtimeMs) => {
    out.push({ path, size, mtimeMs });
    return false;
  });
  return out;
}

/** Walks a directory without following symlinks; `decide` returns true to delete a file. Empty dirs go too. */
function sweep(
  dir: string,
  depth: number,
  removeDirs: boolean,
  decide: (path: string, size: number, mtimeMs: number) => boolean,
): boolean {
  if (depth > MAX_DEPTH) return false;
  try {
    if (!lstatSync(dir).isDirectory()) return false;
  } catch {
    return false;
  }
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return false;
  }
  let remaining = entries.length;
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) {
      if (sweep(path, depth + 1, removeDirs, decide) && removeDirs && removeEmptyDir(path)) remaining--;
    } else if (e.isFile()) {
      let st;
      try {
        st = lstatSync(path);
      } catch {
        continue;
      }
      if (decide(path, st.size, st.mtimeMs)) {
        try {
          rmSync(path);
          remaining--;
        } catch {
          // left in place; the next run tries again
        }
      }
    }
  }
  return remaining === 0 && depth > 0;
}

function removeEmptyDir(path: string): boolean {
  try {
    rmdirSync(path);
    return true;
  } catch {
    return false;
  }
}

function humanBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** The report as the CLI prints it: one line per agent. */
export function formatGcReport(r: GcReport): string {
  const verb = r.dryRun ? "would remove" : "removed";
  const lines = r.agents.map((a) => {
    const kept = a.keptLive ? ` (kept ${a.keptLive} of live conversations)` : "";
    return `${a.agent}: ${verb} ${a.files.length} transcript file${a.files.length === 1 ? "" : "s"}, ${humanBytes(a.bytes)}${kept}`;
  });
  if (r.dryRun) for (const a of r.agents) for (const f of a.files) lines.push(`  ${a.agent}: ${f}`);
  return lines.join("\n");
}
