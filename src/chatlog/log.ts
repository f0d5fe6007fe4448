// The chat log: one JSONL file per episode, one line per message (index, local time, author, text, quote,
// files, voice transcript) and a closing line when `/new` ends the episode. Appended with fsync, 0600.
import { closeSync, constants, existsSync, fsyncSync, openSync, readdirSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { ensurePrivateDir } from "../fs/private-file";
import { MiB, readBoundedTextIfExists } from "../fs/safe-read";
import { EPISODE_ID, episodeFile, episodeIdFor, localTime } from "./paths";

/** `user` is anyone in a conversation who is not the account owner. */
export type Author = "owner" | "user" | "scv" | "system";

export interface LoggedFile {
  name: string;
  /** Where it was saved in the chat media (a user's file) or nothing (a file SCV sent). */
  path?: string;
  state: "saved" | "not_saved" | "sent";
  reason?: string;
}

/** A tool call of the turn a reply ends, as the chat shows it: `$ ls (exit 0, 0.1 s)`, denied with the reason. */
export interface LoggedTool {
  label: string;
  status: "ran" | "denied" | "failed";
  display?: string;
  reason?: string;
}

export interface MessageEntry {
  type: "message";
  index: number;
  time: string;
  author: Author;
  text: string;
  quote?: string;
  files?: LoggedFile[];
  transcript?: string;
  /** SCV's reply: the tool calls of its turn (web chat keeps them after the turn and a reload). */
  tools?: LoggedTool[];
}

export interface EndEntry {
  type: "end";
  time: string;
  reason: "new";
}

export type LogEntry = MessageEntry | EndEntry;

/** The most of one episode file SCV reads at once (the chat_history scan bound). */
export const LOG_READ_LIMIT = 64 * MiB;

export function appendLine(file: string, value: unknown): void {
  ensurePrivateDir(dirname(file));
  const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, `${JSON.stringify(value)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export function parseLines<T>(text: string | undefined): T[] {
  const out: T[] = [];
  for (const line of (text ?? "").split("\n")) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line) as T);
    } catch {
      // a line cut by a crash mid-append is skipped, not fatal
    }
  }
  return out;
}

export function readEpisode(logDir: string, episode: string, maxBytes = LOG_READ_LIMIT): LogEntry[] {
  return parseLines<LogEntry>(readBoundedTextIfExists(episodeFile(logDir, episode), { what: "chat log", maxBytes, followSymlink: false }));
}

/** Episode IDs in the log, newest first. */
export function listEpisodes(logDir: string): string[] {
  const ids: string[] = [];
  const dirs = (dir: string) => {
    try {
      return readdirSync(dir, { withFileTypes: true });
    } catch {
      return [];
    }
  };
  for (const year of dirs(logDir)) {
    if (!year.isDirectory() || !/^\d{4}$/.test(year.name)) continue;
    for (const week of dirs(join(logDir, year.name))) {
      if (!week.isDirectory()) continue;
      for (const f of dirs(join(logDir, year.name, week.name))) {
        if (!f.isFile() || !f.name.endsWith(".jsonl")) continue;
        const id = `${year.name}/${week.name}/${f.name.slice(0, -6)}`;
        if (EPISODE_ID.test(id)) ids.push(id);
      }
    }
  }
  return ids.sort((a, b) => (a.split("/")[2]! < b.split("/")[2]! ? 1 : -1));
}

/** Appends to one conversation's log, continuing its open episode after a restart. */
export class ChatLog {
  private episode?: string;
  private nextIndex = 0;

  constructor(readonly dir: string) {
    const latest = listEpisodes(dir)[0];
    if (!latest) return;
    const entries = readEpisode(dir, latest);
    if (entries.at(-1)?.type === "end") return;
    this.episode = latest;
    this.nextIndex = entries.filter((e) => e.type === "message").length;
  }

  get currentEpisode(): string | undefined {
    return this.episode;
  }

  add(entry: Omit<MessageEntry, "type" | "index" | "time">, at = new Date()): { episode: string; index: number } {
    if (!this.episode) {
      let id = episodeIdFor(at);
      // Two episodes in one second (a quick /new): the next second names the new one.
      for (let s = 1; existsSync(episodeFile(this.dir, id)); s++) id = episodeIdFor(new Date(at.getTime() + s * 1000));
      this.episode = id;
      this.nextIndex = 0;
    }
    const index = this.nextIndex++;
    const line: MessageEntry = { type: "message", index, time: localTime(at), ...entry };
    appendLine(episodeFile(this.dir, this.episode), line);
    return { episode: this.episode, index };
  }

  /** `/new`: the episode is closed; the next message starts another. */
  end(): void {
    if (this.episode) appendLine(episodeFile(this.dir, this.episode), { type: "end", time: localTime(new Date()), reason: "new" } satisfies EndEntry);
    this.episode = undefined;
  }
}

export interface KeptRecord {
  from: string;
  to: string;
}

export function keptRecordsFile(logDir: string): string {
  return join(logDir, "kept.jsonl");
}

export function readKept(logDir: string): KeptRecord[] {
  return parseLines<KeptRecord>(readBoundedTextIfExists(keptRecordsFile(logDir), { what: "kept-files record", maxBytes: 16 * MiB, followSymlink: false }));
}
