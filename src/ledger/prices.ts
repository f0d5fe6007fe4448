// Built-in prices for the common models of the providers SCV speaks, so costs show without typing a table. They
// are estimates: list prices in US dollars per million tokens as published when this table was written
// (BUILTIN_PRICES_AS_OF), and they go stale. A `[prices."<model>"]` entry in config.toml always wins, and a cost
// that used a built-in price is marked as an estimate wherever it is shown.
import type { PriceConfig } from "../config/schema";

export const BUILTIN_PRICES_AS_OF = "2026-12";

/** A price and whether it came from the built-in table (an estimate) rather than the user's [prices]. */
export type KnownPrice = PriceConfig & { estimate?: true };

// input, cached input, output; Anthropic also its cache writes (5-minute 1.25 ×, 1-hour 2 × input).
const openai = (input: number, cached: number, output: number): PriceConfig => ({ input_per_mtok: input, cached_input_per_mtok: cached, output_per_mtok: output });
const anthropic = (input: number, output: number): PriceConfig => ({
  input_per_mtok: input,
  cached_input_per_mtok: input / 10,
  cache_write_per_mtok: input * 1.25,
  cache_write_1h_per_mtok: input * 2,
  output_per_mtok: output,
});

/** The one table. Keys are model names as the provider reports them, without a date suffix. */
export const BUILTIN_PRICES: Readonly<Record<string, PriceConfig>> = {
  "gpt-5": openai(1.25, 0.125, 10),
  "gpt-5-mini": openai(0.25, 0.025, 2),
  "gpt-5-nano": openai(0.05, 0.005, 0.4),
  "gpt-5-codex": openai(1.25, 0.125, 10),
  "gpt-4.1": openai(2, 0.5, 8),
  "gpt-4.1-mini": openai(0.4, 0.1, 1.6),
  "gpt-4.1-nano": openai(0.1, 0.025, 0.4),
  "gpt-4o": openai(2.5, 1.25, 10),
  "gpt-4o-mini": openai(0.15, 0.075, 0.6),
  o3: openai(2, 0.5, 8),
  "o3-mini": openai(1.1, 0.55, 4.4),
  "o4-mini": openai(1.1, 0.275, 4.4),
  "claude-opus-4": anthropic(15, 75),
  "claude-opus-4-1": anthropic(15, 75),
  "claude-opus-4-5": anthropic(5, 25),
  "claude-sonnet-4": anthropic(3, 15),
  "claude-sonnet-4-5": anthropic(3, 15),
  "claude-3-7-sonnet": anthropic(3, 15),
  "claude-haiku-4-5": anthropic(1, 5),
  "claude-3-5-haiku": anthropic(0.8, 4),
  "deepseek-chat": openai(0.28, 0.028, 0.42),
  "deepseek-reasoner": openai(0.28, 0.028, 0.42),
};

/** `claude-sonnet-4-20250514`, `gpt-4o-2024-08-06`, `claude-3-7-sonnet-latest`, `…[1m]`: the name in the table. */
function baseName(model: string): string {
  return model.replace(/\[[^\]]*\]$/, "").replace(/-(\d{8}|\d{4}-\d{2}-\d{2}|latest)$/, "");
}

/** The price of `model`: the user's entry, else the built-in one (marked an estimate), else none. */
export function priceOf(prices: Readonly<Record<string, PriceConfig>>, model: string): KnownPrice | undefined {
  const own = prices[model];
  if (own) return own;
  const builtin = BUILTIN_PRICES[model] ?? BUILTIN_PRICES[baseName(model)];
  return builtin ? { ...builtin, estimate: true } : undefined;
}
