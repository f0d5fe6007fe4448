// Usage over a chosen period, by day, model, agent and origin: the same ledger query `scv usage --json` makes, so
// the numbers are the same; bars drawn as SVG (no script), the [limits] as lines on the daily charts.
import type { Hono } from "hono";
import { formatCost, formatTokens, parseSince, tokens, type UsageRow } from "../../ledger/usage";
import type { WebContext, WebEnv } from "../context";
import { html, page, type Raw } from "../html";

export const USAGE_PERIODS = ["today", "7d", "30d", "month"] as const;
const GROUPED = ["day", "model", "agent", "origin"] as const;

function share(r: UsageRow): string {
  return r.input_tokens ? `${Math.round((r.cached_input_tokens / r.input_tokens) * 100)}%` : "-";
}

/** Horizontal bars, one per row, scaled to the largest (or to `limit` when that is larger, drawn as a dashed line). */
function bars(rows: UsageRow[], value: (r: UsageRow) => number, label: (n: number) => string, limit?: { at: number; name: string }): Raw {
  const max = Math.max(1, ...rows.map(value), limit?.at ?? 0);
  const row = 8;
  const h = rows.length * row + (limit ? 6 : 2);
  const x = (n: number) => 90 + (n / max) * 160;
  return html`<svg class="chart" viewBox="0 0 300 ${h}" role="img">${rows.map((r, i) => html`<text x="0" y="${i * row + 5}">${r.key.slice(0, 24)}</text><rect x="90" y="${i * row + 1}" width="${((value(r) / max) * 160).toFixed(2)}" height="5"></rect><text x="${(x(value(r)) + 2).toFixed(2)}" y="${i * row + 5}">${label(value(r))}</text>`)}${
    limit ? html`<line class="limit" x1="${x(limit.at).toFixed(2)}" x2="${x(limit.at).toFixed(2)}" y1="0" y2="${h - 5}"></line><text x="${(x(limit.at) - 20).toFixed(2)}" y="${h - 1}">${limit.name} ${label(limit.at)}</text>` : ""
  }</svg>`;
}

function table(by: string, rows: UsageRow[], total: UsageRow, priced: boolean): Raw {
  const row = (r: UsageRow, cls = "") =>
    html`<tr class="${cls}" data-by="${by}" data-key="${r.key}" data-requests="${r.requests}" data-input="${r.input_tokens}" data-cached="${r.cached_input_tokens}" data-output="${r.output_tokens}" data-reasoning="${r.reasoning_tokens}"${r.cost !== undefined ? html` data-cost="${r.cost}"` : ""}><td class="key">${r.key}</td><td class="n" data-label="Calls">${r.requests}</td><td class="n" data-label="Input">${formatTokens(r.input_tokens)}</td><td class="n" data-label="Cached">${share(r)}</td><td class="n" data-label="Output">${formatTokens(r.output_tokens)}</td><td class="n" data-label="Reasoning">${formatTokens(r.reasoning_tokens)}</td>${priced ? html`<td class="n" data-label="Cost">${r.cost === undefined ? "-" : `${r.estimated ? "~" : ""}${formatCost(r.cost)}${r.unpriced_tokens ? "+" : ""}`}</td>` : ""}</tr>`;
  return html`<table><tr><th>${by}</th><th class="n">Calls</th><th class="n">Input</th><th class="n">Cached</th><th class="n">Output</th><th class="n">Reasoning</th>${priced ? html`<th class="n">Cost</th>` : ""}</tr>${rows.map((r) => row(r))}${row(total, "total")}</table>`;
}

export function registerUsage(app: Hono<WebEnv>, ctx: WebContext): void {
  app.get("/usage", async (c) => {
    const period = c.req.query("since") ?? "7d";
    const since = parseSince(period);
    if (since === undefined) return c.html(page({ name: "usage", title: "Usage", body: html`<h1>Usage</h1><p class="error">“${period}” is not a period: use 24h, 7d, 2w, today, month or a date such as 2026-12-01.</p>` }), 400);
    const { ledgerFor } = await import("../../ledger/index");
    const ledger = ledgerFor(ctx.scvHome);
    const groups = await Promise.all(GROUPED.map(async (by) => ({ by, ...(await ledger.usage(ctx.config, { since, by })) })));
    const total = groups[0]!.total;
    const priced = total.cost !== undefined;
    const limits = ctx.config.limits;
    const limitLines = [
      limits.daily_tokens !== undefined ? `daily_tokens = ${formatTokens(limits.daily_tokens)}` : "",
      limits.daily_cost !== undefined ? `daily_cost = ${formatCost(limits.daily_cost)}` : "",
      limits.monthly_cost !== undefined ? `monthly_cost = ${formatCost(limits.monthly_cost)}` : "",
      limits.conversation_daily_tokens !== undefined ? `conversation_daily_tokens = ${formatTokens(limits.conversation_daily_tokens)}` : "",
      limits.conversation_daily_cost !== undefined ? `conversation_daily_cost = ${formatCost(limits.conversation_daily_cost)}` : "",
    ].filter(Boolean);
    const sections = groups.map(({ by, rows, total }) => {
      const ordered = by === "day" ? [...rows].reverse() : rows;
      const tokenLimit = by === "day" && limits.daily_tokens !== undefined ? { at: limits.daily_tokens, name: "daily_tokens" } : undefined;
      const costLimit = by === "day" && limits.daily_cost !== undefined ? { at: limits.daily_cost, name: "daily_cost" } : undefined;
      return html`<h2>By ${by}</h2>${rows.length ? bars(ordered, tokens, formatTokens, tokenLimit) : ""}${by === "day" && priced ? bars(ordered, (r) => r.cost ?? 0, formatCost, costLimit) : ""}${table(by, rows, total, priced)}`;
    });
    const periods = html`<form method="get" action="/usage" class="row"><select name="since" aria-label="period">${USAGE_PERIODS.map((p) => html`<option${p === period ? html` selected` : ""}>${p}</option>`)}</select><button>Show</button></form>`;
    const summary = html`<p id="usage-total" data-since="${new Date(since).toISOString()}">Since ${new Date(since).toLocaleString()}: ${formatTokens(tokens(total))} tokens in ${total.requests} calls, ${share(total)} of input cached${priced ? `, cost ${total.estimated ? "~" : ""}${formatCost(total.cost!)}${total.unpriced_tokens ? "+" : ""}${total.estimated ? " (~ an estimate from built-in list prices; [prices] sets your own)" : ""}` : ""}.</p>`;
    const limitsView = limitLines.length ? html`<p>[limits] ${limitLines.join(" · ")}</p>` : html`<p class="mute">No [limits] are set.</p>`;
    return c.html(page({ name: "usage", title: "Usage", body: html`<h1>Usage</h1>${periods}${summary}${limitsView}${sections}` }));
  });
}
