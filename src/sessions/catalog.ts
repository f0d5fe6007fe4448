// Listing and searching every session file. Both read only the records they need: a line's first bytes name
// its type (records.ts writes `type` first), so history items, usually most of a file, are never parsed.
import { scrubSecrets } from "../text/scrub";
import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { scanSessionLines } from "./lines";
import { readSessionHeader } from "./load";
import { SESSION_ID, SessionHeader } from "./records";

export interface SessionSummary {
  id: string;
  workspace: string;
  started_at: number;
  last_activity: number;
  turns: number;
  /** The first line of the first user prompt. */
  first_prompt: string;
  model: string;
  /** The chat conversation the session serves, as its client declared it in session.start. */
  channel?: { kind: string; account?: string; conversation?: string };
}

export interface SearchHit {
  session_id: string;
  turn_id: string;
  workspace: string;
  at: number;
  excerpt: string;
}

export const TURN_PREFIX = '{"type":"turn",';
export const ENDED_PREFIX = '{"type":"turn_ended",';
const EXCERPT_CHARS = 240;

export interface SessionFile {
  id: string;
  file: string;
  mtime: number;
  size: number;
  ino: number;
  /** A regular file (reading anything else fails with a warning). */
  regular: boolean;
}

/**
 * The session files of `dir` (or only `only`'s), newest activity first; a symlink is stated itself (the safe
 * reader refuses to read through it).
 */
export function sessionFiles(dir: string, only?: string): SessionFile[] {
  let names: string[];
  try {
    names = only === undefined ? readdirSync(dir) : [`${only}.jsonl`];
  } catch {
    return [];
  }
  const files: SessionFile[] = [];
  for (const name of names) {
    const id = name.endsWith(".jsonl") ? name.slice(0, -6) : "";
    if (!SESSION_ID.test(id)) continue;
    const file = join(dir, name);
    try {
      const st = lstatSync(file);
      files.push({ id, file, mtime: st.mtimeMs, size: st.size, ino: st.ino, regular: st.isFile() });
    } catch {
      // removed meanwhile
    }
  }
  return files.sort((a, b) => b.mtime - a.mtime);
}

/**
 * The header line and the turn records of a session file (the lines starting with one of TURN_PREFIX and
 * ENDED_PREFIX), or undefined (with a warning) when it cannot be read. Other lines are never decoded.
 */
function readLines(f: SessionFile, warn: (m: string) => void): string[] | undefined {
  const lines: string[] = [];
  try {
    scanSessionLines(f.file, (text) => lines.push(text), { wanted: (head) => lines.length === 0 || startsWithAny(head, WANTED) });
    return lines;
  } catch (e) {
    warn((e as Error).message);
    return undefined;
  }
}

const WANTED = [Buffer.from(TURN_PREFIX), Buffer.from(ENDED_PREFIX)];
const startsWithAny = (head: Buffer, prefixes: Buffer[]) => prefixes.some((p) => head.length >= p.length && head.compare(p, 0, p.length, 0, p.length) === 0);

function parse(line: string): any {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/** Sessions, newest activity first; with `workspace`, only its sessions, and at most `limit`. */
export function listSessions(dir: string, warn: (m: string) => void, opts: { workspace?: string; limit?: number } = {}): SessionSummary[] {
  const out: SessionSummary[] = [];
  for (const f of sessionFiles(dir)) {
    if (opts.limit !== undefined && out.length >= opts.limit) break;
    if (opts.workspace !== undefined && readSessionHeader(f.file)?.workspace !== opts.workspace) continue;
    const lines = readLines(f, warn);
    const header = lines && SessionHeader.safeParse(parse(lines[0] ?? ""));
    if (!header?.success) continue;
    let turns = 0;
    let firstPrompt: string | undefined;
    for (const line of lines!) {
      if (!line.startsWith(TURN_PREFIX)) continue;
      turns++;
      if (firstPrompt === undefined) {
        const r = parse(line);
        if (r?.origin?.kind === "user" && typeof r.prompt === "string") firstPrompt = firstPromptLine(r.prompt);
      }
    }
    out.push({
      id: f.id,
      workspace: header.data.workspace,
      started_at: header.data.at,
      last_activity: f.mtime,
      turns,
      first_prompt: firstPrompt ?? "",
      model: header.data.model,
      ...(header.data.channel ? { channel: header.data.channel as SessionSummary["channel"] } : {}),
    });
  }
  return out;
}

/** A search query's words, lower-cased: a turn matches when its text holds every one. */
export function searchWords(query: string): string[] {
  return query.toLowerCase().split(/\s+/).filter(Boolean);
}

/** The hit for a turn's text (`prompt\nreply`), or undefined when it lacks a word. The one match rule of scan and index. */
export function matchTurn(text: string, words: readonly string[]): { excerpt: string } | undefined {
  const lower = text.toLowerCase();
  if (!words.every((w) => lower.includes(w))) return undefined;
  return { excerpt: excerpt(text, lower.indexOf(words[0]!)) };
}

/**
 * The searchable text of a turn: its prompt and its reply, every key masked (scrubSecrets), so neither a search
 * nor the session index ever finds or quotes a key, even from a session stored before keys were scrubbed.
 */
export function turnText(prompt: string, reply: string): string {
  return scrubSecrets(`${searchedPart(prompt)}\n${searchedPart(reply)}`, []);
}

/**
 * Characters of a prompt and of a reply that search reads (a pasted log or a huge reply is found by its start):
 * the index holds no more, so its work per turn is bounded, and the scan reads the same.
 */
export const SEARCHED_CHARS = 32 * 1024;

/** A prompt's or reply's searched start; keys are masked before the cut, so none is left half-masked across it. */
export function searchedPart(text: string): string {
  if (text.length <= SEARCHED_CHARS) return text;
  return scrubSecrets(text.slice(0, SEARCHED_CHARS + 1024), []).slice(0, SEARCHED_CHARS);
}

/** The first line of a session's first user prompt, as listings show it. */
export function firstPromptLine(prompt: string): string {
  const text = prompt.trimStart();
  const nl = text.indexOf("\n");
  return nl < 0 ? text.trimEnd() : text.slice(0, nl);
}

export function searchSessions(dir: string, query: string, opts: { limit: number; exclude?: string }, warn: (m: string) => void): SearchHit[] {
  const words = searchWords(query);
  if (words.length === 0) return [];
  const hits: SearchHit[] = [];
  for (const f of sessionFiles(dir)) {
    if (f.id === opts.exclude) continue;
    const lines = readLines(f, warn);
    if (!lines) continue;
    const header = parse(lines[0] ?? "");
    const turns = new Map<string, { prompt: string; reply: string; at: number }>();
    for (const line of lines) {
      const isTurn = line.startsWith(TURN_PREFIX);
      if (!isTurn && !line.startsWith(ENDED_PREFIX)) continue;
      const r = parse(line);
      if (typeof r?.turn !== "string") continue;
      if (isTurn && typeof r.prompt === "string") turns.set(r.turn, { prompt: r.prompt, reply: "", at: Number(r.at) || 0 });
      else if (!isTurn) {
        const t = turns.get(r.turn);
        if (t && typeof r.reply === "string") Object.assign(t, { reply: r.reply, at: Number(r.at) || t.at });
      }
    }
    for (const [turnId, t] of turns) {
      const hit = matchTurn(turnText(t.prompt, t.reply), words);
      if (hit) hits.push({ session_id: f.id, turn_id: turnId, workspace: String(header?.workspace ?? ""), at: t.at, ...hit });
    }
  }
  return hits.sort((a, b) => b.at - a.at).slice(0, opts.limit);
}

/** About EXCERPT_CHARS characters around `index`, on one line. */
function excerpt(text: string, index: number): string {
  const start = Math.max(0, index - EXCERPT_CHARS / 3);
  const cut = text.slice(start, start + EXCERPT_CHARS).replace(/\s+/g, " ").trim();
  return `${start > 0 ? "…" : ""}${cut}${start + EXCERPT_CHARS < text.length ? "…" : ""}`;
}
