// What the open session (and today) spent, from the usage ledger: tokens always, a cost where the models are
// priced ([prices."<model>"]). Read after each turn for the status line, and by /usage. Loaded with the server.
import type { Config } from "../config/schema";
import { formatCost, formatTokens, ledgerFor, tokens, type UsageRow } from "../ledger/index";
import { dayBounds } from "../ledger/usage";

export interface Spend {
  tokens: number;
  /** The priced part's cost; undefined when nothing is priced. */
  cost?: number;
  /** Some usage is unpriced, so the cost is a lower bound. */
  partial: boolean;
  /** Part of the cost is from SCV's built-in prices: shown with `~`. */
  estimated?: boolean;
}

function spendOf(total: UsageRow): Spend {
  return { tokens: tokens(total), ...(total.cost !== undefined ? { cost: total.cost } : {}), partial: total.unpriced_tokens > 0, ...(total.estimated ? { estimated: true } : {}) };
}

/** `12,345 tokens · cost 0.0123` (`0.0123+` when part of it is unpriced). */
export function describeSpend(s: Spend): string {
  return `${formatTokens(s.tokens)} tokens${s.cost !== undefined ? ` · cost ${s.estimated ? "~" : ""}${formatCost(s.cost)}${s.partial ? "+" : ""}` : ""}`;
}

export async function sessionSpend(home: string, config: Pick<Config, "prices">, sessionId: string): Promise<Spend> {
  return spendOf((await ledgerFor(home).usage(config, { since: 0, by: "agent", session: sessionId })).total);
}

/** /usage: this session's spend by who spent it (the own model, each agent), and today's across SCV. */
export async function usageLines(home: string, config: Pick<Config, "prices">, sessionId: string): Promise<string[]> {
  const ledger = ledgerFor(home);
  const mine = await ledger.usage(config, { since: 0, by: "agent", session: sessionId });
  const today = await ledger.usage(config, { since: dayBounds(Date.now()).start, by: "agent" });
  const parts = (rows: UsageRow[]) => rows.map((r) => `${r.key} ${formatTokens(tokens(r))}`).join(", ");
  const lines = [`this session: ${describeSpend(spendOf(mine.total))}${mine.rows.length ? ` (${parts(mine.rows)})` : ""}`];
  lines.push(`today, everything SCV ran: ${describeSpend(spendOf(today.total))}${today.rows.length ? ` (${parts(today.rows)})` : ""}`);
  if (mine.total.cost === undefined && today.total.cost === undefined) lines.push('costs show once config.toml has [prices."<model>"] input_per_mtok, output_per_mtok');
  return lines;
}
