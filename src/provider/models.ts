// What SCV knows about model families without asking the endpoint: the context window (tokens of input a
// request may carry). A profile's `context_window` wins; an unknown model gets DEFAULT_CONTEXT_WINDOW.

export const DEFAULT_CONTEXT_WINDOW = 128_000;

/** First match wins; patterns are tested against the model name without any `provider/` prefix. */
const FAMILIES: readonly [RegExp, number][] = [
  // gpt-5 family: 400k total of which 128k is output, so requests may carry about 272k tokens.
  [/^gpt-5/, 272_000],
  [/^gpt-4\.1/, 1_047_576],
  [/^(gpt-4o|chatgpt-4o|gpt-4-turbo)/, 128_000],
  [/^(o1|o3|o4)(-|$)/, 200_000],
  [/^codex-/, 200_000],
  [/^gpt-oss/, 131_072],
  [/^claude-/, 200_000],
  [/^gemini-/, 1_048_576],
  [/^grok-4/, 256_000],
  [/^deepseek/, 128_000],
];

export function contextWindowFor(model: string, configured?: number): number {
  if (configured) return configured;
  const name = model.toLowerCase().split("/").at(-1) ?? "";
  return FAMILIES.find(([pattern]) => pattern.test(name))?.[1] ?? DEFAULT_CONTEXT_WINDOW;
}
