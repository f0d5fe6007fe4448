// Where a chat conversation keeps things: its log and kept files under the archive, what its users sent in the
// media directory, and the outbox of files on their way out. Shared by the channel bridge and the chat_* tools.
import { sha256Hex } from "../digest";
import { join } from "node:path";
import type { Config } from "../config/schema";

/** The chat a session serves, as the bridge names it in session.start. */
export interface ChatPlace {
  kind: string;
  account: string;
  conversation: string;
}

/** A conversation's directory name: platform IDs can hold any character, so a short hash stands for them. */
export function conversationDirName(conversation: string): string {
  return sha256Hex(conversation).slice(0, 16);
}

function archiveRoot(config: Config, scvHome: string): string {
  return config.channels.archive_dir ?? join(scvHome, "archive");
}

/** `<archive>/<channel>/<account>/<conversation>/`: episodes by year and week, plus `files/` for kept files. */
export function conversationLogDir(config: Config, scvHome: string, place: ChatPlace): string {
  return join(archiveRoot(config, scvHome), place.kind, place.account, conversationDirName(place.conversation));
}

export function keptFilesDir(logDir: string): string {
  return join(logDir, "files");
}

export function mediaRoot(scvHome: string): string {
  return join(scvHome, "state", "media");
}

/** What this conversation's users sent; files expire after channels.keep_days. */
export function conversationMediaDir(scvHome: string, place: ChatPlace): string {
  return join(mediaRoot(scvHome), place.kind, place.account, conversationDirName(place.conversation));
}

/** Private copies of files on their way out, each tied to a durable delivery record. */
export function outboxMediaDir(scvHome: string): string {
  return join(mediaRoot(scvHome), "outbox");
}

const pad = (n: number, w = 2) => String(n).padStart(w, "0");
const day = (d: Date) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;

/** Local time with its offset, as the log shows it: 2026-09-26T14:04:05+02:00. */
export function localTime(d: Date): string {
  const off = -d.getTimezoneOffset();
  const sign = off >= 0 ? "+" : "-";
  const abs = Math.abs(off);
  return `${day(d)}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** `<year>/<monday>_<sunday>/<start>` in local time, e.g. 2026/2026-09-21_2026-09-27/2026-09-26T14-04-05. */
export function episodeIdFor(start: Date): string {
  const monday = new Date(start.getFullYear(), start.getMonth(), start.getDate() - ((start.getDay() + 6) % 7));
  const sunday = new Date(monday.getFullYear(), monday.getMonth(), monday.getDate() + 6);
  const stamp = `${day(start)}T${pad(start.getHours())}-${pad(start.getMinutes())}-${pad(start.getSeconds())}`;
  return `${start.getFullYear()}/${day(monday)}_${day(sunday)}/${stamp}`;
}

export const EPISODE_ID = /^(\d{4})\/(\d{4}-\d{2}-\d{2})_(\d{4}-\d{2}-\d{2})\/(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2})$/;

/** The episode's log file; the ID must have the log's shape, so it can never name a path outside. */
export function episodeFile(logDir: string, episode: string): string {
  if (!EPISODE_ID.test(episode)) {
    throw new Error(`episode "${episode}" is not an episode ID; use the <year>/<week>/<start> shape chat_history episodes lists, e.g. 2026/2026-09-21_2026-09-27/2026-09-26T14-04-05`);
  }
  return join(logDir, `${episode}.jsonl`);
}
