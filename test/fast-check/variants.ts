// Values near a valid one, for checking that the fast check never accepts what zod refuses or changes.

/** Values near the valid ones: every key dropped, replaced by odd values, and extra keys added. */
export function variants(base: Record<string, unknown>): unknown[] {
  const odd: unknown[] = [undefined, null, "", "x", " ", "é".repeat(200), 0, -1, 1, 1.5, 64, 65, 2 ** 53, 2 ** 60, 1e300, true, false, [], {}, { kind: "dir" }, ["a"]];
  const out: unknown[] = [base, {}, null, [], "text", 7];
  for (const key of Object.keys(base)) {
    const { [key]: _dropped, ...rest } = base;
    out.push(rest);
    for (const v of odd) out.push({ ...base, [key]: v });
  }
  for (const v of odd) out.push({ ...base, extra: v });
  return out;
}
