// Listing and searching stored sessions through the index: the same answers a scan of every session file gives
// (sessions/catalog.ts holds the one match rule and excerpt both use), in time that does not grow with the
// number of sessions kept. Search narrows with the full-text index (trigram FTS5: substrings, case-insensitive)
// and checks each candidate with the scan's own rule, so a candidate the index over-matches is dropped and the
// results stay exactly the scan's.
import type { Database } from "bun:sqlite";
import { matchTurn, searchWords, type SearchHit, type SessionSummary } from "../sessions/catalog";

/** Shorter words cannot use the trigram index; a query of only such words checks every turn. */
const TRIGRAM = 3;

export function listIndexed(db: Database, opts: { workspace?: string; limit?: number }): SessionSummary[] {
  const where = opts.workspace === undefined ? "" : "AND workspace = ?";
  const rows = db
    .query(`SELECT id, workspace, started_at, mtime, turns, first_prompt, model, channel FROM sessions WHERE listed = 1 ${where} ORDER BY mtime DESC LIMIT ?`)
    .all(...(opts.workspace === undefined ? [] : [opts.workspace]), opts.limit ?? -1) as {
    id: string;
    workspace: string;
    started_at: number;
    mtime: number;
    turns: number;
    first_prompt: string | null;
    model: string;
    channel: string | null;
  }[];
  return rows.map((r) => ({
    id: r.id,
    workspace: r.workspace,
    started_at: r.started_at,
    last_activity: r.mtime,
    turns: r.turns,
    first_prompt: r.first_prompt ?? "",
    model: r.model,
    ...(r.channel ? { channel: JSON.parse(r.channel) as SessionSummary["channel"] } : {}),
  }));
}

export function searchIndexed(db: Database, query: string, opts: { limit: number; exclude?: string }): SearchHit[] {
  const words = searchWords(query);
  if (words.length === 0) return [];
  // The index is asked for the longest word only (usually the rarest): intersecting it with a common word's
  // long list of turns costs more than checking the few candidates for the other words.
  const longest = words.filter(usesIndex).sort((a, b) => [...b].length - [...a].length)[0];
  if (longest === undefined) return collect(db, words, opts).hits;
  const trigrams = new Set(trigramsOf(longest));
  // A common word is found among the newest turns at once, sooner than the full-text index lists every turn that
  // holds it; a rarer one is looked up in the index.
  const probe = collect(db, words, opts, undefined, PROBE);
  if (probe.complete) return probe.hits;
  return collect(db, words, opts, [...trigrams].map((t) => `"${t.replaceAll('"', '""')}"`).join(" AND ")).hits;
}

/** Newest turns checked before the full-text index is asked. */
const PROBE = 300;

/**
 * Turns matching `words`, newest first, read in the time index's order (so the read stops at the limit) from
 * the candidates `match` (a full-text query) allows, or from every turn, or from the newest `cap` turns.
 * `complete`: the hits are final (the limit was reached, or every candidate was read).
 */
function collect(db: Database, words: string[], opts: { limit: number; exclude?: string }, match?: string, cap?: number): { hits: SearchHit[]; complete: boolean } {
  // With a full-text query the few turns it allows are read first and sorted; otherwise the time index is read
  // in order, so the read stops at the limit.
  const candidates = match
    ? db.query(
        `SELECT t.id, t.session, t.turn, t.at, t.seq, s.workspace, s.mtime FROM turn_text x JOIN turns t ON t.id = x.rowid JOIN sessions s ON s.id = t.session
         WHERE turn_text MATCH ? AND t.session <> ? ORDER BY t.at DESC`,
      )
    : db.query(
        `SELECT t.id, t.session, t.turn, t.at, t.seq, s.workspace, s.mtime FROM turns t JOIN sessions s ON s.id = t.session
         WHERE t.session <> ? ORDER BY t.at DESC ${cap === undefined ? "" : `LIMIT ${cap + 1}`}`,
      );
  const textOf = db.query("SELECT text FROM turn_text WHERE rowid = ?");
  const hits: SearchHit[] = [];
  // Turns of the same time are ordered as a scan orders them (the session with newer activity first, then turn
  // order): a group of equal times is complete only when a row with another time follows.
  let group: (Candidate & SearchHit)[] = [];
  const flush = () => {
    group.sort((a, b) => b.mtime - a.mtime || a.seq - b.seq);
    for (const g of group) if (hits.length < opts.limit) hits.push({ session_id: g.session_id, turn_id: g.turn_id, workspace: g.workspace, at: g.at, excerpt: g.excerpt });
    group = [];
  };
  let read = 0;
  const params = match ? [match, opts.exclude ?? ""] : [opts.exclude ?? ""];
  for (const c of candidates.iterate(...params) as IterableIterator<Candidate>) {
    if (group.length && group[0]!.at !== c.at) {
      flush();
      if (hits.length >= opts.limit) return { hits, complete: true };
    }
    if (cap !== undefined && ++read > cap) return { hits, complete: false };
    const text = (textOf.get(c.id) as { text: string } | null)?.text;
    const hit = text === undefined ? undefined : matchTurn(text, words);
    if (hit) group.push({ ...c, session_id: c.session, turn_id: c.turn, ...hit });
  }
  flush();
  return { hits, complete: true };
}

interface Candidate {
  id: number;
  session: string;
  turn: string;
  at: number;
  seq: number;
  workspace: string;
  mtime: number;
}

/** The distinct three-character runs of a word (what the trigram index holds). */
function trigramsOf(word: string): string[] {
  const chars = [...word];
  const out: string[] = [];
  for (let i = 0; i + TRIGRAM <= chars.length; i++) out.push(chars.slice(i, i + TRIGRAM).join(""));
  return out;
}

/**
 * A word the trigram index can find without missing a turn the scan finds: three characters or more, each one
 * ASCII or without case (as CJK), since SQLite's case folding of other letters need not be JavaScript's.
 */
function usesIndex(word: string): boolean {
  const chars = [...word];
  return chars.length >= TRIGRAM && chars.every((c) => c.charCodeAt(0) < 128 || c.toLowerCase() === c.toUpperCase());
}
