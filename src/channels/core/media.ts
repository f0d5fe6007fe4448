// Files chat users send: saved (0600) in the conversation's media directory, removed after channels.keep_days.
import { lstatSync, readdirSync, rmdirSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import type { LoggedFile } from "../../chatlog/log";
import { createPrivateFile, ensurePrivateDir, tryUnlink } from "../../fs/private-file";
import { MiB, readBoundedBytes } from "../../fs/safe-read";
import type { InboundFile } from "./adapter";

/** The largest file SCV saves from a chat. */
export const MAX_INBOUND_FILE = 100 * MiB;

export function safeFileName(name: string): string {
  const cleaned = name.replace(/[\u0000-\u001f/\\]/g, "_").replace(/^\.+/, "_").slice(-120);
  return cleaned || "file";
}

/** Copies each fetched file into `mediaDir`; one that cannot be saved is logged `not_saved` with the reason. */
export function saveInboundFiles(files: InboundFile[], mediaDir: string): LoggedFile[] {
  return files.map((f) => {
    const name = safeFileName(f.name);
    if (!f.path) return { name, state: "not_saved", reason: f.error ?? "the platform did not deliver it" };
    try {
      const bytes = readBoundedBytes(f.path, { what: "attached file", maxBytes: MAX_INBOUND_FILE });
      ensurePrivateDir(mediaDir);
      const path = join(mediaDir, `${randomBytes(3).toString("hex")}-${name}`);
      createPrivateFile(path, bytes);
      return { name, path, state: "saved" };
    } catch (e) {
      return { name, state: "not_saved", reason: (e as Error).message };
    }
  });
}

/** Removes media files older than keepDays under `root` (not the outbox, whose copies belong to records). */
export function expireMedia(root: string, keepDays: number, now = Date.now()): number {
  const cutoff = now - keepDays * 86_400_000;
  let removed = 0;
  const walk = (dir: string, depth: number) => {
    let entries: import("node:fs").Dirent[] = [];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(dir, e.name);
      if (depth === 0 && e.name === "outbox") continue;
      if (e.isDirectory() && depth < 3) walk(p, depth + 1);
      else if (e.isFile() || e.isSymbolicLink()) {
        try {
          if ((lstatSync(p, { throwIfNoEntry: false })?.mtimeMs ?? 0) < cutoff) {
            if (tryUnlink(p)) removed++;
          }
        } catch {}
      }
    }
    if (depth === 3) {
      try {
        rmdirSync(dir); // only when empty
      } catch {}
    }
  };
  walk(root, 0);
  return removed;
}
