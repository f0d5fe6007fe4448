// config.toml's `[provider]` and `[providers.<name>]` profiles: the model endpoints, their kinds and defaults.
// A section of the one config schema (schema.ts re-exports it; docs/configuration.md describes every key).
import type { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { positiveInt } from "./schema-fields";
import { REASONING_EFFORTS, REASONING_SUMMARIES } from "./reasoning";

/** SCV's own model's reasoning controls (Responses `reasoning`, Chat `reasoning_effort`). */
export { REASONING_EFFORTS, REASONING_SUMMARIES };

export const PROVIDER_KINDS = ["openai", "anthropic"] as const;
/** What a profile of each kind gets when it leaves these keys out (applied after parsing, by `withKindDefaults`). */
export const KIND_DEFAULTS = {
  openai: { wire_api: "responses", model: "gpt-5.5", base_url: "https://api.openai.com/v1", api_key_env: "OPENAI_API_KEY" },
  anthropic: { wire_api: "messages", model: "claude-sonnet-4-5", base_url: "https://api.anthropic.com", api_key_env: "ANTHROPIC_API_KEY" },
} as const;

export const ProviderProfile = lazySchema((z) => z.strictObject({
  kind: z.enum(PROVIDER_KINDS, { error: `must be one of: ${PROVIDER_KINDS.join(", ")}` }).default("openai"),
  // "messages" is the Anthropic Messages API, the only one of kind = "anthropic" (set by the kind when left out).
  wire_api: z.enum(["responses", "chat", "messages"]).optional(),
  model: z.string().min(1, "must not be empty").optional(),
  base_url: z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" }).optional(),
  api_key_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name").optional(),
  api_key: z.string().min(1).optional(),
  // Until the answer starts (response headers); a streaming answer is then limited only by silence.
  timeout_seconds: positiveInt(86400).default(600),
  stream_idle_timeout_seconds: z.number().positive("must be greater than 0").max(86400, "must be at most 86400").default(300),
  reasoning_effort: z.enum(REASONING_EFFORTS, { error: `must be one of: ${REASONING_EFFORTS.join(", ")}` }).optional(),
  reasoning_summary: z.enum(REASONING_SUMMARIES, { error: `must be one of: ${REASONING_SUMMARIES.join(", ")}` }).optional(),
  // Tokens; unset means the known size of the model's family (src/provider/models.ts), else 128000.
  context_window: z.number().int("must be a whole number").min(1024, "must be at least 1024").max(100_000_000).optional(),
  compact_at: z.number().gt(0, "must be greater than 0").max(1, "must be at most 1").default(0.8),
  // Whether the model takes images; unset means what SCV knows of the model's family (src/provider/models.ts).
  images: z.boolean({ error: "must be true or false" }).optional(),
  headers: z.record(z.string(), z.string()).default({}),
  // Proxy variables in the environment are ignored; a profile that needs a proxy names it here.
  proxy: z.url({ protocol: /^https?$/ }).optional(),
  max_retries: z.number().int().min(0).max(10).default(3),
  // Send each session's prompt-cache key (`prompt_cache_key`; unset means true); false for an endpoint that
  // refuses unknown fields (SCV also learns that from its first 400 naming the field).
  prompt_cache_key: z.boolean({ error: "must be true or false" }).optional(),
  // kind = "anthropic": the answer's output limit (the API requires one); unset means the model family's (provider/models.ts).
  max_tokens: positiveInt(1_000_000).optional(),
  // kind = "anthropic": extended thinking, a token budget (at least 1024, below max_tokens) or the model's adaptive setting.
  thinking: z.union([
    z.strictObject({ budget_tokens: z.number().int("must be a whole number").min(1024, "must be at least 1024") }),
    z.strictObject({ type: z.literal("adaptive") }),
  ], { error: 'must be { budget_tokens = N } (N at least 1024) or { type = "adaptive" }' }).optional(),
  // kind = "anthropic": cache_control breakpoints (tools, system, the newest messages); "1h" asks for the 1-hour cache.
  prompt_cache: z.enum(["5m", "1h", "off"], { error: 'must be one of: 5m, 1h, off' }).default("5m"),
}));
type ParsedProfile = z.infer<typeof ProviderProfile>;
/** A profile with its kind's defaults filled in (`withKindDefaults`). */
export type ProviderProfile = Omit<ParsedProfile, "wire_api" | "model" | "base_url"> & {
  wire_api: "responses" | "chat" | "messages";
  model: string;
  base_url: string;
};

/**
 * The kind's defaults for what a profile left out, and the check that wire_api fits the kind; `where` names the
 * profile in the error.
 */
export function withKindDefaults(p: ParsedProfile, where: string): ProviderProfile {
  const d = KIND_DEFAULTS[p.kind];
  const wire = p.wire_api ?? d.wire_api;
  if ((p.kind === "anthropic") !== (wire === "messages")) {
    throw new Error(
      p.kind === "anthropic"
        ? `${where}.wire_api: kind = "anthropic" speaks only the Messages API; remove wire_api (or set it to "messages")`
        : `${where}.wire_api: "messages" is the Anthropic Messages API; set kind = "anthropic" for it, or use wire_api = "responses" or "chat"`,
    );
  }
  if (p.kind !== "anthropic") {
    const only = (["thinking", "max_tokens"] as const).find((k) => p[k] !== undefined);
    if (only) throw new Error(`${where}.${only}: only a kind = "anthropic" profile takes ${only}${only === "thinking" ? "; for OpenAI models set reasoning_effort" : ""}`);
  }
  const explicitKey = p.api_key_env !== undefined || p.api_key !== undefined;
  return {
    ...p,
    wire_api: wire,
    model: p.model ?? d.model,
    base_url: p.base_url ?? d.base_url,
    // A profile the user wrote names its key itself (api_key_env); only a kind = "anthropic" profile reads its default.
    ...(!explicitKey && p.kind === "anthropic" ? { api_key_env: d.api_key_env } : {}),
  };
}
