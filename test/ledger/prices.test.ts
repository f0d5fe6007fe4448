// Built-in prices: common models are priced as estimates (dated names too), the user's [prices] entry wins and
// is not an estimate, an unknown model stays unpriced. (issue 56)
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ledger } from "../../src/ledger/index";
import { BUILTIN_PRICES, priceOf } from "../../src/ledger/prices";

const homes: string[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
});

test("priceOf: the user's entry, else the built-in one for the name or its dated form, else none", () => {
  expect(priceOf({}, "claude-sonnet-4-5-20250929")).toEqual({ ...BUILTIN_PRICES["claude-sonnet-4-5"]!, estimate: true });
  expect(priceOf({}, "gpt-4o-2024-08-06")?.input_per_mtok).toBe(2.5);
  expect(priceOf({}, "claude-3-7-sonnet-latest")?.estimate).toBe(true);
  expect(priceOf({}, "claude-opus-4-8")).toBeUndefined(); // a newer model is not priced as an older one
  expect(priceOf({ "gpt-4o": { input_per_mtok: 1, output_per_mtok: 2 } }, "gpt-4o")).toEqual({ input_per_mtok: 1, output_per_mtok: 2 });
});

test("the ledger prices a common model as an estimate; a configured price is exact", async () => {
  const h = mkdtempSync(join(tmpdir(), "scv-prices-"));
  homes.push(h);
  mkdirSync(join(h, "state", "sessions"), { recursive: true });
  const ledger = new Ledger({ home: h, warn: () => {} });
  const at = Date.now();
  ledger.record({ session: "s-1", entry: "u-1", at, kind: "model", origin: "exec", provider: "openai", model: "gpt-4.1-mini", input: 1_000_000, cached: 0, output: 1_000_000, reasoning: 0 });
  ledger.record({ session: "s-1", entry: "u-2", at, kind: "model", origin: "exec", provider: "x", model: "house-model", input: 10, cached: 0, output: 10, reasoning: 0 });
  const est = await ledger.usage({ prices: {} }, { since: 0, by: "model" });
  const mini = est.rows.find((r) => r.key === "gpt-4.1-mini")!;
  expect(mini.cost).toBeCloseTo(0.4 + 1.6, 10);
  expect(mini.estimated).toBe(true);
  expect(est.total.unpriced_tokens).toBe(20);
  const own = await ledger.usage({ prices: { "gpt-4.1-mini": { input_per_mtok: 1, output_per_mtok: 1 } } }, { since: 0, by: "model" });
  expect(own.rows.find((r) => r.key === "gpt-4.1-mini")).toMatchObject({ cost: 2 });
  expect(own.rows.find((r) => r.key === "gpt-4.1-mini")!.estimated).toBeUndefined();
  await ledger.close();
});
