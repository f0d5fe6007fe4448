// What SCV knows about model families without asking the endpoint: the context window (tokens of input a
// request may carry) and whether the model takes images. A profile's `context_window` and `images` win; an
// unknown model gets DEFAULT_CONTEXT_WINDOW and no images.

export const DEFAULT_CONTEXT_WINDOW = 128_000;

/** First match wins; patterns are tested against the model name without any `provider/` prefix. */
const FAMILIES: readonly [RegExp, number, boolean][] = [
  // gpt-5 family: 400k total of which 128k is output, so requests may carry about 272k tokens.
  [/^gpt-5/, 272_000, true],
  [/^gpt-4\.1/, 1_047_576, true],
  [/^(gpt-4o|chatgpt-4o|gpt-4-turbo)/, 128_000, true],
  [/^(o1-mini|o3-mini)(-|$)/, 200_000, false],
  [/^(o1|o3|o4)(-|$)/, 200_000, true],
  [/^codex-/, 200_000, true],
  [/^gpt-oss/, 131_072, false],
  [/^claude-/, 200_000, true],
  [/^gemini-/, 1_048_576, true],
  [/^grok-4/, 256_000, true],
  [/^deepseek/, 128_000, false],
];

const family = (model: string) => {
  const name = model.toLowerCase().split("/").at(-1) ?? "";
  return FAMILIES.find(([pattern]) => pattern.test(name));
};

export function contextWindowFor(model: string, configured?: number): number {
  if (configured) return configured;
  return family(model)?.[1] ?? DEFAULT_CONTEXT_WINDOW;
}

/** Whether the session sends images to its model, and the reason a person reads when it does not. */
export interface ImageSupport {
  accepted: boolean;
  /** Why images are on or off, naming the setting that changes it. */
  reason: string;
}

export function imageSupportFor(model: string, profileName: string, configured?: boolean): ImageSupport {
  if (configured === true) return { accepted: true, reason: `images are on for provider profile "${profileName}"` };
  if (configured === false) return { accepted: false, reason: `images are off for provider profile "${profileName}" (images = false in [providers.${profileName}])` };
  const known = family(model);
  if (!known) return { accepted: false, reason: `model "${model}" is not one SCV knows to take images; if it does, set images = true in [providers.${profileName}]` };
  if (known[2]) return { accepted: true, reason: `model "${model}" takes images` };
  return { accepted: false, reason: `model "${model}" does not take images; use a model that does, or set images = true in [providers.${profileName}] if it has learned to` };
}

/**
 * The output limit a request to an Anthropic model asks for when its profile sets no max_tokens (the Messages API
 * requires one): what the family allows, or 8192 for a model SCV does not know.
 */
export function maxOutputTokensFor(model: string): number {
  const name = model.toLowerCase().split("/").at(-1) ?? "";
  if (/^claude-3-haiku/.test(name)) return 4096;
  if (/^claude-3-(5|opus|sonnet)/.test(name)) return 8192;
  if (/^claude-/.test(name)) return 32_000;
  return 8192;
}
