// Prompt-cache writes in the ledger's prices (issue 53): written input at cache_write_per_mtok, its 1-hour part at
// cache_write_1h_per_mtok, read input at cached_input_per_mtok; an unset price falls back as the docs say.
import { expect, test } from "bun:test";
import { costOf } from "../../src/ledger/usage";

const u = { input: 10_000, cached: 6_000, cache_write: 3_000, cache_write_1h: 1_000, output: 500 };

test("reads, 5-minute writes, 1-hour writes and the rest are each priced at their own price", () => {
  const price = { input_per_mtok: 3, cached_input_per_mtok: 0.3, cache_write_per_mtok: 3.75, cache_write_1h_per_mtok: 6, output_per_mtok: 15 };
  expect(costOf(price, u)).toBeCloseTo((1_000 * 3 + 6_000 * 0.3 + 2_000 * 3.75 + 1_000 * 6 + 500 * 15) / 1e6, 12);
});

test("no write prices: writes cost the input price; no 1-hour price: the write price", () => {
  expect(costOf({ input_per_mtok: 3, cached_input_per_mtok: 0.3, output_per_mtok: 15 }, u)).toBeCloseTo((4_000 * 3 + 6_000 * 0.3 + 500 * 15) / 1e6, 12);
  expect(costOf({ input_per_mtok: 3, cache_write_per_mtok: 3.75, output_per_mtok: 0 }, u)).toBeCloseTo((7_000 * 3 + 3_000 * 3.75) / 1e6, 12);
});
