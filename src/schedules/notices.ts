// What schedules could not tell the owner in a chat (no channel, or it is logged out or paused): kept as one
// private file per notice, shown (and then removed) by the next interactive session or `scv schedules list`,
// counted by `scv status`.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { ensurePrivateDir, tryUnlink, writePrivateFileAtomic } from "../fs/private-file";
import { readBoundedTextIfExists } from "../fs/safe-read";
import { ellipsize } from "../text/cut";
import { schedulesDir } from "./store";

export interface Notice {
  id: string;
  schedule: string;
  text: string;
  at?: string;
}

const MAX_TEXT = 2000;

function noticesDir(scvHome: string): string {
  return join(schedulesDir(scvHome), "notices");
}

/** Keeps a notice; the same `id` is kept once. */
export function addNotice(scvHome: string, notice: Notice): void {
  const dir = noticesDir(scvHome);
  ensurePrivateDir(dir);
  const text = ellipsize(notice.text, MAX_TEXT);
  writePrivateFileAtomic(join(dir, `${notice.id.replace(/[^\w.@-]/g, "_")}.json`), JSON.stringify({ ...notice, text, at: notice.at ?? new Date().toISOString() }));
}

function names(scvHome: string): string[] {
  try {
    return readdirSync(noticesDir(scvHome)).filter((n) => n.endsWith(".json") && !n.startsWith("."));
  } catch {
    return [];
  }
}

/** Cheap enough for a start-up path: one directory read, nothing parsed. */
export function hasNotices(scvHome: string): boolean {
  return names(scvHome).length > 0;
}

export function countNotices(scvHome: string): number {
  return names(scvHome).length;
}

/** The notices, oldest first, removed once read. */
export function takeNotices(scvHome: string): Notice[] {
  const out: Notice[] = [];
  for (const name of names(scvHome)) {
    const file = join(noticesDir(scvHome), name);
    try {
      const text = readBoundedTextIfExists(file, { what: "schedule notice", maxBytes: 64 * 1024, followSymlink: false });
      if (text) out.push(JSON.parse(text) as Notice);
    } catch {}
    tryUnlink(file);
  }
  return out.sort((a, b) => ((a.at ?? "") < (b.at ?? "") ? -1 : 1));
}
