// What the ledger says: totals since a time, grouped by day, model, agent, origin or session, with costs where
// the user configured a price ([prices."<model>"]), and the limits ([limits]) checked against them.
import type { Database } from "bun:sqlite";
import type { LimitsConfig, PriceConfig } from "../config/schema";
import { priceOf } from "./prices";
import { isoLocal } from "../text/when";

export const GROUPS = ["day", "model", "agent", "origin", "session"] as const;
export type GroupBy = (typeof GROUPS)[number];

/** How SCV's own model requests show under `--by agent`. */
export const OWN_MODEL = "scv (own model)";

export interface UsageRow {
  key: string;
  /** Model requests and delegated calls. */
  requests: number;
  input_tokens: number;
  cached_input_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  /** Part of input_tokens written to a prompt cache (Anthropic's cache_creation_input_tokens). */
  cache_write_tokens: number;
  /** The cost of the priced part; undefined when no part is priced. */
  cost?: number;
  /** Tokens of models with no price: the cost leaves them out. */
  unpriced_tokens: number;
  /** Part of the cost comes from SCV's built-in prices (src/ledger/prices.ts): an estimate. */
  estimated?: boolean;
  /** `--by session`: the session's first prompt (one line), so a person knows which session it was. */
  first_prompt?: string;
}

const KEY: Record<GroupBy, string> = {
  // Hours here, local days in JavaScript (dayOf): converting a few hundred hours is cheaper than every entry.
  day: "CAST(at / 3600000 AS INTEGER)",
  model: "coalesce(model, CASE kind WHEN 'agent' THEN agent || ' (model not reported)' ELSE '?' END)",
  agent: `CASE kind WHEN 'model' THEN '${OWN_MODEL}' ELSE agent END`,
  origin: "origin",
  session: "session",
};

interface Part {
  key: string;
  model: string | null;
  n: number;
  input: number;
  cached: number;
  output: number;
  reasoning: number;
  cache_write: number;
  cache_write_1h: number;
}

export interface UsageQuery {
  since: number;
  by: GroupBy;
  /** Only this chat conversation's entries (conversationKey). */
  conversation?: string;
  /** Only this session's entries. */
  session?: string;
}

/** Totals per group since `since` (Unix ms), newest day first for `day`, largest first otherwise; and the grand total. */
export function usageTotals(db: Database, prices: Record<string, PriceConfig>, q: UsageQuery): { rows: UsageRow[]; total: UsageRow } {
  const parts = db
    .query(
      `SELECT ${KEY[q.by]} AS key, model, count(*) AS n, sum(input) AS input, sum(cached) AS cached, sum(output) AS output, sum(reasoning) AS reasoning,
              sum(cache_write) AS cache_write, sum(cache_write_1h) AS cache_write_1h
       FROM ledger WHERE at >= ? ${q.conversation ? "AND conversation = ?" : ""} ${q.session ? "AND session = ?" : ""} GROUP BY 1, 2`,
    )
    .all(q.since, ...(q.conversation ? [q.conversation] : []), ...(q.session ? [q.session] : [])) as Part[];
  const rows = new Map<string, UsageRow>();
  const total = emptyRow("total");
  for (const p of parts) {
    const key = q.by === "day" ? dayOf(Number(p.key) * 3_600_000) : String(p.key ?? "?");
    let row = rows.get(key);
    if (!row) rows.set(key, (row = emptyRow(key)));
    add(row, p, prices);
    add(total, p, prices);
  }
  const sorted = [...rows.values()].sort((a, b) => (q.by === "day" ? b.key.localeCompare(a.key) : tokens(b) - tokens(a) || a.key.localeCompare(b.key)));
  if (q.by === "session") firstPrompts(db, sorted);
  return { rows: sorted, total };
}

/** Each session row's first prompt from the session index, on one line. */
function firstPrompts(db: Database, rows: UsageRow[]): void {
  const byId = db.query("SELECT first_prompt FROM sessions WHERE id = ?");
  for (const row of rows) {
    const r = byId.get(row.key) as { first_prompt: string | null } | null;
    if (r?.first_prompt) row.first_prompt = r.first_prompt.replace(/\s+/g, " ").trim();
  }
}

/** `2026-12-03`: the local date of a moment. */
function dayOf(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
}

function emptyRow(key: string): UsageRow {
  return { key, requests: 0, input_tokens: 0, cached_input_tokens: 0, output_tokens: 0, reasoning_tokens: 0, cache_write_tokens: 0, unpriced_tokens: 0 };
}

function add(row: UsageRow, p: Part, prices: Record<string, PriceConfig>): void {
  row.requests += p.n;
  row.input_tokens += p.input;
  row.cached_input_tokens += p.cached;
  row.output_tokens += p.output;
  row.reasoning_tokens += p.reasoning;
  row.cache_write_tokens += p.cache_write;
  const price = p.model ? priceOf(prices, p.model) : undefined;
  if (!price) row.unpriced_tokens += p.input + p.output;
  else {
    row.cost = (row.cost ?? 0) + costOf(price, p);
    if (price.estimate) row.estimated = true;
  }
}

/** Input and output tokens (cached input is part of input, reasoning part of output). */
export function tokens(u: { input_tokens: number; output_tokens: number }): number {
  return u.input_tokens + u.output_tokens;
}

/**
 * The cost of some usage at a price: cached input at its own price when one is set, and input written to a prompt
 * cache at the write price (the 1-hour part at the 1-hour price) when one is set; unset prices are the input price.
 */
export function costOf(price: PriceConfig, u: { input: number; cached: number; output: number; cache_write?: number; cache_write_1h?: number }): number {
  const cached = Math.min(u.cached, u.input);
  const written = Math.min(u.cache_write ?? 0, u.input - cached);
  const hour = Math.min(u.cache_write_1h ?? 0, written);
  const plain = u.input - cached - written;
  const writePrice = price.cache_write_per_mtok ?? price.input_per_mtok;
  const input = plain * price.input_per_mtok + cached * (price.cached_input_per_mtok ?? price.input_per_mtok) + (written - hour) * writePrice + hour * (price.cache_write_1h_per_mtok ?? writePrice);
  return (input + u.output * price.output_per_mtok) / 1e6;
}

/** Local midnight of `now`'s day, and of the next day. */
export function dayBounds(now: number): { start: number; next: number } {
  const d = new Date(now);
  const start = new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
  return { start, next: new Date(d.getFullYear(), d.getMonth(), d.getDate() + 1).getTime() };
}

/** The first moment of `now`'s month (local time), and of the next month. */
export function monthBounds(now: number): { start: number; next: number } {
  const d = new Date(now);
  return { start: new Date(d.getFullYear(), d.getMonth(), 1).getTime(), next: new Date(d.getFullYear(), d.getMonth() + 1, 1).getTime() };
}

export interface LimitReached {
  /** The config key, e.g. `limits.daily_cost`. */
  key: string;
  /** When the limit's period ends (Unix ms). */
  resetsAt: number;
  message: string;
}

/**
 * The first limit reached, or undefined. `conversation` (a non-owner's chat conversation) also checks the
 * per-conversation limits. Costs count only priced usage.
 */
export function limitReached(db: Database, limits: LimitsConfig, prices: Record<string, PriceConfig>, now: number, conversation?: string): LimitReached | undefined {
  const day = dayBounds(now);
  const month = monthBounds(now);
  const spent = (since: number, conv?: string) => usageTotals(db, prices, { since, by: "origin", ...(conv ? { conversation: conv } : {}) }).total;
  const checks: { key: string; limit?: number; cost: boolean; since: number; resetsAt: number; period: string; conv?: string }[] = [
    { key: "daily_tokens", limit: limits.daily_tokens, cost: false, since: day.start, resetsAt: day.next, period: "today" },
    { key: "daily_cost", limit: limits.daily_cost, cost: true, since: day.start, resetsAt: day.next, period: "today" },
    { key: "monthly_cost", limit: limits.monthly_cost, cost: true, since: month.start, resetsAt: month.next, period: "this month" },
    ...(conversation
      ? [
          { key: "conversation_daily_tokens", limit: limits.conversation_daily_tokens, cost: false, since: day.start, resetsAt: day.next, period: "today in this conversation", conv: conversation },
          { key: "conversation_daily_cost", limit: limits.conversation_daily_cost, cost: true, since: day.start, resetsAt: day.next, period: "today in this conversation", conv: conversation },
        ]
      : []),
  ];
  for (const c of checks) {
    if (c.limit === undefined) continue;
    const total = spent(c.since, c.conv);
    const used = c.cost ? (total.cost ?? 0) : tokens(total);
    if (used < c.limit) continue;
    const shown = c.cost ? `${formatCost(used)} of ${formatCost(c.limit)}` : `${formatTokens(used)} of ${formatTokens(c.limit)} tokens`;
    return {
      key: `limits.${c.key}`,
      resetsAt: c.resetsAt,
      message: `the spending limit limits.${c.key} is reached (${shown} used ${c.period}); it resets at ${localTime(c.resetsAt)}. The owner can raise it in config.toml${c.conv ? "" : ", or run scv exec --over-budget to go over it once"}.`,
    };
  }
  return undefined;
}

export function formatTokens(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

export function formatCost(n: number): string {
  return n >= 100 ? n.toFixed(0) : n >= 1 ? n.toFixed(2) : n.toFixed(4);
}

/** `2026-12-04 00:00` in local time. */
export function localTime(ms: number): string {
  return isoLocal(ms);
}

/** `7d`, `24h`, `2w`, `today`, or a local date `2026-12-01`: the start of the period, Unix ms. */
export function parseSince(text: string, now = Date.now()): number | undefined {
  const d = new Date(now);
  if (text === "today") return new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
  if (text === "month") return new Date(d.getFullYear(), d.getMonth(), 1).getTime();
  const rel = /^(\d{1,5})([hdw])$/.exec(text);
  if (rel) return now - Number(rel[1]) * { h: 3_600_000, d: 86_400_000, w: 604_800_000 }[rel[2] as "h" | "d" | "w"];
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (date) {
    const at = new Date(Number(date[1]), Number(date[2]) - 1, Number(date[3]));
    if (at.getMonth() === Number(date[2]) - 1 && at.getDate() === Number(date[3])) return at.getTime();
  }
  return undefined;
}
