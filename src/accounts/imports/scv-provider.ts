// SCV's own active provider, as the copies for the nested SCV and pi take it: kind, wire API, model, base URL,
// timeout and headers, and the key resolved now (from `api_key` or its `api_key_env` variable), because
// delegated agents never inherit key variables. The key is only ever written to the target's private file.
import type { Config } from "../../config/schema";
import { LoginError } from "../login-io";
import { digestOf } from "./digest";

export interface ProviderCopy {
  name: string;
  kind: string;
  wire_api: "responses" | "chat";
  model: string;
  base_url: string;
  timeout_seconds: number;
  headers: Record<string, string>;
  /** Undefined for a keyless profile (a local endpoint that takes none), when the target accepts one. */
  key: string | undefined;
  /** SCV's own config uses the provider's hosted search. */
  hostedSearch: boolean;
}

/**
 * `allowKeyless`: a profile with neither `api_key` nor `api_key_env` is a keyless endpoint (a local server) that SCV
 * itself runs without a key, so a target that can do the same (the nested SCV) gets it without one.
 */
export function activeProviderCopy(config: Config, env: Readonly<Record<string, string | undefined>>, opts: { allowKeyless?: boolean } = {}): ProviderCopy {
  const name = config.provider.active;
  const p = config.providers[name];
  if (!p) throw new LoginError(`SCV's active provider "${name}" is not defined; check \`scv config show\``);
  const key = p.api_key ?? (p.api_key_env ? env[p.api_key_env] : undefined);
  const keyless = !p.api_key && !p.api_key_env;
  if (!key && !(keyless && opts.allowKeyless)) {
    const where = p.api_key_env ? `the variable ${p.api_key_env} named by api_key_env is not set in this shell` : "it has neither api_key nor api_key_env";
    throw new LoginError(`SCV's active provider "${name}" has no key to copy: ${where}. Set it, then run this again`);
  }
  if (p.wire_api === "messages") throw new LoginError(`SCV's active provider "${name}" is an Anthropic (kind = "anthropic") profile; only an OpenAI-compatible one can be copied`);
  return {
    name,
    kind: p.kind,
    wire_api: p.wire_api,
    model: p.model,
    base_url: p.base_url,
    timeout_seconds: p.timeout_seconds,
    headers: { ...p.headers },
    key,
    hostedSearch: config.web.search === "provider",
  };
}

/** The digest of a provider copy: every copied value, the key included (as part of a hash only). */
export function providerDigest(c: ProviderCopy, target: string): string {
  const headers = Object.keys(c.headers)
    .sort()
    .map((k) => `${k}=${c.headers[k]}`)
    .join("\n");
  return digestOf([
    ["target", target],
    ["kind", c.kind],
    ["wire_api", c.wire_api],
    ["model", c.model],
    ["base_url", c.base_url],
    ["timeout", String(c.timeout_seconds)],
    ["headers", headers],
    ["key", c.key ?? ""],
    // Only the nested SCV copies the hosted-search setting; pi has no web search.
    ["search", target === "scv" ? String(c.hostedSearch) : ""],
  ]);
}

/** The host of an endpoint, for status lines (never its path, query or credentials). */
export function endpointHost(url: unknown): string {
  if (typeof url !== "string") return "?";
  try {
    return new URL(url).host || "?";
  } catch {
    return "?";
  }
}
