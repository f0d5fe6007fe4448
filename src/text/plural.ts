// A count with its noun as a person writes it: `1 file`, `3 files`, `1 match`, `2 matches`.

/** `n` and the noun, singular for exactly one; `plural` for nouns that do not take an `s`. */
export function counted(n: number, singular: string, plural = /(s|x|ch|sh)$/.test(singular) ? `${singular}es` : `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}
