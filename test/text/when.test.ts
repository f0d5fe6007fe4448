// The one date format (issue 56): relative while recent, local ISO order otherwise and for the future.
import { expect, test } from "bun:test";
import { formatWhen, isoLocal } from "../../src/text/when";

test("recent moments are relative; a week or more, or the future, is local ISO", () => {
  const now = new Date(2026, 11, 6, 12, 0).getTime();
  expect(formatWhen(now - 10_000, now)).toBe("just now");
  expect(formatWhen(now - 5 * 60_000, now)).toBe("5 min ago");
  expect(formatWhen(now - 3 * 3_600_000, now)).toBe("3 h ago");
  expect(formatWhen(now - 26 * 3_600_000, now)).toBe("1 day ago");
  expect(formatWhen(now - 3 * 86_400_000, now)).toBe("3 days ago");
  expect(formatWhen(now - 8 * 86_400_000, now)).toBe("2026-11-28 12:00");
  expect(formatWhen(now + 60_000, now)).toBe("2026-12-06 12:01");
  expect(isoLocal(new Date(2026, 0, 2, 3, 4).getTime())).toBe("2026-01-02 03:04");
});
