// `scv usage [--since 7d|DATE] [--by day|model|agent|origin|session] [--json]`: what SCV's own model and every
// delegated agent spent, from the usage ledger (src/ledger), with costs where [prices."<model>"] is configured.
import { defineCommand, USAGE_EXIT } from "./command";
import { ConfigError, loadConfig, scvHome } from "../config/load";
import { GROUPS, type GroupBy, type UsageRow } from "../ledger/usage";
import { formatCost, formatTokens, parseSince } from "../ledger/usage";
import { ellipsize } from "../text/cut";
import { isoLocal } from "../text/when";
import { BUILTIN_PRICES_AS_OF } from "../ledger/prices";

export { parseSince };

function fail(message: string, code = 1): void {
  process.stderr.write(`scv usage: ${message}\n`);
  process.exitCode = code;
}

/** The share of input tokens the endpoint served from its prompt cache, 0 to 1 (undefined with no input). */
export function cacheHitShare(r: Pick<UsageRow, "input_tokens" | "cached_input_tokens">): number | undefined {
  return r.input_tokens > 0 ? Math.min(r.cached_input_tokens, r.input_tokens) / r.input_tokens : undefined;
}

const percent = (share: number | undefined) => (share === undefined ? "-" : `${Math.round(share * 100)}%`);

/** The usage table: one line per group and a total; a cost column only when some usage is priced. */
export function renderUsage(rows: UsageRow[], total: UsageRow, by: GroupBy): string {
  const priced = total.cost !== undefined;
  const cost = (r: UsageRow) => (r.cost === undefined ? "-" : `${r.estimated ? "~" : ""}${formatCost(r.cost)}${r.unpriced_tokens > 0 ? "+" : ""}`);
  const line = (r: UsageRow) => [
    r.key,
    String(r.requests),
    formatTokens(r.input_tokens),
    formatTokens(r.cached_input_tokens),
    percent(cacheHitShare(r)),
    formatTokens(r.output_tokens),
    formatTokens(r.reasoning_tokens),
    ...(priced ? [cost(r)] : []),
  ];
  // --by session: each session's first prompt last, cut to a line (the total row has none).
  const prompts = by === "session" ? (r: UsageRow) => [r === total ? "" : ellipsize(r.first_prompt ?? "", 48)] : () => [];
  const table = [[by.toUpperCase(), "CALLS", "INPUT", "CACHED", "HIT", "OUTPUT", "REASONING", ...(priced ? ["COST"] : []), ...(by === "session" ? ["FIRST PROMPT"] : [])], ...rows.map((r) => [...line(r), ...prompts(r)]), [...line(total), ...prompts(total)]];
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  const last = table[0]!.length - 1;
  const out = table.map((row) => row.map((cell, i) => (i === 0 || (by === "session" && i === last) ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ").trimEnd());
  out.splice(out.length - 1, 0, "-".repeat(out[0]!.length));
  if (total.estimated) out.push(`~: an estimate from SCV's built-in list prices in USD (as of ${BUILTIN_PRICES_AS_OF}); [prices."<model>"] in config.toml sets your own`);
  if (priced && total.unpriced_tokens > 0) out.push(`+: ${formatTokens(total.unpriced_tokens)} tokens of models with no [prices."<model>"] entry are not in the cost`);
  if (!priced && total.requests > 0) out.push('costs: add [prices."<model>"] input_per_mtok, output_per_mtok to config.toml to see them');
  return `${out.join("\n")}\n`;
}

export default defineCommand({
  meta: { name: "usage", description: "What SCV's own model and the delegated agents spent (tokens, and costs where priced)" },
  args: {
    since: { type: "string", valueHint: "PERIOD", description: "from when: 24h, 7d, 2w, today (default), month, or a date YYYY-MM-DD" },
    by: { type: "string", valueHint: "GROUP", description: `one line per ${GROUPS.join(", ")} (default agent)` },
    json: { type: "boolean", description: "print JSON" },
  },
  async run({ args }) {
    const since = parseSince(args.since ?? "today");
    if (since === undefined) return fail(`--since ${JSON.stringify(args.since)} is not a period: use 24h, 7d, 2w, today, month, or a date such as 2026-12-01`, USAGE_EXIT);
    const by = (args.by ?? "agent") as GroupBy;
    if (!GROUPS.includes(by)) return fail(`--by ${JSON.stringify(args.by)} is not a grouping: use one of ${GROUPS.join(", ")}`, USAGE_EXIT);
    let config;
    try {
      config = loadConfig({ cwd: process.cwd() }).config;
    } catch (e) {
      if (e instanceof ConfigError) return fail(`configuration error: ${e.message}`);
      throw e;
    }
    const { ledgerFor } = await import("../ledger/index");
    const ledger = ledgerFor(scvHome());
    const { rows, total } = await ledger.usage(config, { since, by });
    await ledger.close();
    if (args.json) {
      const withShare = (r: UsageRow) => ({ ...r, cache_hit_share: cacheHitShare(r) ?? 0 });
      process.stdout.write(`${JSON.stringify({ since: new Date(since).toISOString(), by, rows: rows.map(withShare), total: withShare(total) }, null, 2)}\n`);
      return;
    }
    if (total.requests === 0) {
      process.stdout.write(`no usage since ${isoLocal(since)}\n`);
      return;
    }
    process.stdout.write(renderUsage(rows, total, by));
  },
});
