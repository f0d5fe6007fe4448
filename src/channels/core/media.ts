// Files chat users send: saved (0600) in the conversation's media directory, removed after channels.keep_days.
import { lstatSync, readdirSync, realpathSync, rmdirSync } from "node:fs";
import { join, relative } from "node:path";
import { randomBytes } from "node:crypto";
import type { LoggedFile } from "../../chatlog/log";
import { createPrivateFile, ensurePrivateDir, tryUnlink } from "../../fs/private-file";
import { isInside, MiB, readBoundedBytes } from "../../fs/safe-read";
import { isSecretLikePath } from "../../fs/workspace-paths";
import type { InboundFile } from "./adapter";

/** The largest file SCV saves from a chat. */
export const MAX_INBOUND_FILE = 100 * MiB;

export function safeFileName(name: string): string {
  const cleaned = name.replace(/[\u0000-\u001f/\\]/g, "_").replace(/^\.+/, "_").slice(-120);
  return cleaned || "file";
}

/** Where a channel's inbound files may come from: its own state directory (downloads) and nothing else of SCV's. */
export interface InboundSources {
  scvHome: string;
  /** The channel account's state directory, where adapters download files. */
  channelDir: string;
}

/** Kernel and device trees: never a file a chat message brings in, whatever the path says. */
const SYSTEM_TREES = ["/proc", "/sys", "/dev"];
/** What SCV keeps at the top of SCV_HOME: a dir channel folder inside SCV_HOME must not be one of these. */
const SCV_OWNED = new Set(["state", "run", "log", "channels", "archive", "agents", "skills", "config.toml", "auth.json"]);

function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** Why the opened inbound file at `real` (where its descriptor really is) is not taken, or undefined. */
export function inboundRefusal(real: string, file: InboundFile, sources: InboundSources): string | undefined {
  const name = safeFileName(file.name);
  if (SYSTEM_TREES.some((t) => isInside(t, real))) return `${name} is a system file (${real}); no chat message brings in files from /proc, /sys or /dev`;
  if (file.within !== undefined && !isInside(realOr(file.within), real)) return `${name} is outside the channel's folder ${file.within}; only files inside it are taken`;
  const home = realOr(sources.scvHome);
  if (isInside(home, real) && !isInside(realOr(sources.channelDir), real) && !ownFolderInsideHome(file.within, home)) {
    return `${name} is inside the SCV instance directory (settings, credentials and state); not taken`;
  }
  if (isSecretLikePath(real)) return `${name} looks like it holds secrets (${real}); not taken`;
  return undefined;
}

/** A dir channel's folder placed inside SCV_HOME (path = "chat") is the channel's own, unless it is SCV's. */
function ownFolderInsideHome(within: string | undefined, home: string): boolean {
  if (within === undefined) return false;
  const rel = relative(home, realOr(within));
  if (!rel || rel.startsWith("..")) return false;
  const first = rel.split("/")[0]!;
  return !first.startsWith(".") && !SCV_OWNED.has(first);
}

/**
 * Copies each fetched file into `mediaDir`; one that cannot be saved, or whose source is refused (judged on the
 * opened file, see inboundRefusal), is logged `not_saved` with the reason.
 */
export function saveInboundFiles(files: InboundFile[], mediaDir: string, sources: InboundSources): LoggedFile[] {
  return files.map((f) => {
    const name = safeFileName(f.name);
    if (!f.path) return { name, state: "not_saved", reason: f.error ?? "the platform did not deliver it" };
    try {
      const bytes = readBoundedBytes(f.path, { what: "attached file", maxBytes: MAX_INBOUND_FILE, refuse: (real) => inboundRefusal(real, f, sources) });
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
