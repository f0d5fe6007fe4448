// Reading one conversation's chat log for chat_history: search, episodes and read. Every answer is JSON that
// fits the caller's byte limit, dropping list entries (with `more`) until it does.
import { existsSync, statSync } from "node:fs";
import { EPISODE_ID, episodeFile } from "./paths";
import { LOG_READ_LIMIT, listEpisodes, type LoggedFile, type MessageEntry, readEpisode, readKept } from "./log";

/** The most log bytes one search reads. */
const SEARCH_SCAN_BYTES = LOG_READ_LIMIT;
const TEXT_LIMIT = 8000;
const EXCERPT = 200;

export interface ShownFile {
  name: string;
  /** In the chat media (`media`), moved to the kept files (`kept`), expired (`gone`), never saved, or sent by SCV. */
  state: "media" | "kept" | "gone" | "not_saved" | "sent";
  path?: string;
}

function showFiles(logDir: string, files: LoggedFile[] | undefined, kept = readKept(logDir)): ShownFile[] | undefined {
  if (!files?.length) return undefined;
  return files.map((f) => {
    if (f.state === "sent") return { name: f.name, state: "sent" };
    if (f.state === "not_saved" || !f.path) return { name: f.name, state: "not_saved" };
    const k = kept.find((r) => r.from === f.path);
    if (k) return { name: f.name, state: "kept", path: k.to };
    return existsSync(f.path) ? { name: f.name, state: "media", path: f.path } : { name: f.name, state: "gone" };
  });
}

function haystack(m: MessageEntry): string {
  return [m.text, m.quote ?? "", m.transcript ?? "", ...(m.files ?? []).map((f) => f.name)].join("\n").toLowerCase();
}

function excerpt(text: string, word: string): string {
  const at = Math.max(0, text.toLowerCase().indexOf(word));
  const start = Math.max(0, at - EXCERPT / 2);
  const piece = text.slice(start, start + EXCERPT);
  return `${start > 0 ? "…" : ""}${piece}${start + EXCERPT < text.length ? "…" : ""}`;
}

export function searchLog(logDir: string, query: string, limit: number, scanBytes = SEARCH_SCAN_BYTES) {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const results: { episode: string; index: number; time: string; author: string; excerpt: string }[] = [];
  let budget = scanBytes;
  let more = false;
  outer: for (const episode of listEpisodes(logDir)) {
    const size = statSync(episodeFile(logDir, episode), { throwIfNoEntry: false })?.size ?? 0;
    if (size > budget) {
      more = true; // the scan bound: stop before reading past it
      break;
    }
    budget -= size;
    const messages = readEpisode(logDir, episode).filter((e): e is MessageEntry => e.type === "message");
    for (const m of messages.reverse()) {
      const hay = haystack(m);
      if (!words.every((w) => hay.includes(w))) continue;
      if (results.length === limit) {
        more = true;
        break outer;
      }
      const source = m.text.toLowerCase().includes(words[0] ?? "") ? m.text : hay;
      results.push({ episode, index: m.index, time: m.time, author: m.author, excerpt: excerpt(source, words[0] ?? "") });
    }
  }
  return { query, results, ...(more ? { more: true } : {}) };
}

export function listLogEpisodes(logDir: string, opts: { before?: string; after?: string; limit: number }) {
  const ids = listEpisodes(logDir).filter((id) => {
    const date = EPISODE_ID.exec(id)![4]!.slice(0, 10);
    return (!opts.before || date < opts.before) && (!opts.after || date >= opts.after);
  });
  const episodes = ids.slice(0, opts.limit).map((id) => {
    const entries = readEpisode(logDir, id);
    const messages = entries.filter((e): e is MessageEntry => e.type === "message");
    const firstOwner = messages.find((m) => m.author === "owner");
    return {
      episode: id,
      first: messages[0]?.time,
      last: messages.at(-1)?.time,
      messages: messages.length,
      ...(firstOwner ? { owner_start: firstOwner.text.slice(0, 120) } : {}),
      ended_by_new: entries.at(-1)?.type === "end",
    };
  });
  return { episodes, ...(ids.length > opts.limit ? { more: true } : {}) };
}

export function readLogEpisode(logDir: string, episode: string, offset: number, limit: number) {
  if (!existsSync(episodeFile(logDir, episode))) throw new Error(`no episode "${episode}" in this chat's log; list them with {"action":"episodes"}`);
  const messages = readEpisode(logDir, episode).filter((e): e is MessageEntry => e.type === "message");
  const kept = readKept(logDir);
  const page = messages.slice(offset, offset + limit).map((m) => {
    const files = showFiles(logDir, m.files, kept);
    return {
      index: m.index,
      time: m.time,
      author: m.author,
      text: m.text.length > TEXT_LIMIT ? `${m.text.slice(0, TEXT_LIMIT)}…[cut at ${TEXT_LIMIT} characters]` : m.text,
      ...(m.quote ? { quote: m.quote.slice(0, TEXT_LIMIT) } : {}),
      ...(files ? { files } : {}),
      ...(m.transcript ? { transcript: m.transcript.slice(0, TEXT_LIMIT) } : {}),
    };
  });
  return { episode, offset, total: messages.length, messages: page, ...(offset + page.length < messages.length ? { more: true } : {}) };
}

/** JSON of `value` within `limitBytes`: entries of its `key` list are dropped from the end (setting `more`). */
export function fitJson(value: Record<string, unknown>, key: string, limitBytes: number): string {
  const list = value[key] as unknown[];
  let text = JSON.stringify(value, null, 1);
  while (Buffer.byteLength(text) > limitBytes && list.length > 0) {
    list.splice(Math.max(0, Math.floor(list.length * 0.9) - (list.length > 10 ? 0 : 1)), list.length);
    value.more = true;
    text = JSON.stringify(value, null, 1);
  }
  return text;
}
