// Sign-in checks that read a local credential file in an agent's private home. They answer only "is one
// stored", never read a value out, and are cheap enough to run at every session start.
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { MiB, readBoundedText } from "../fs/safe-read";
import type { SignInContext } from "./descriptor-types";

/** The most a sign-in file may hold; larger ones, FIFOs and devices count as no sign-in. */
export const MAX_SIGNIN_FILE_BYTES = MiB;

/** A sign-in file's text, or undefined when missing or unsafe (never blocks, never reads past the limit). */
export function readSignInFile(path: string): string | undefined {
  try {
    return readBoundedText(path, { what: "sign-in file", maxBytes: MAX_SIGNIN_FILE_BYTES });
  } catch {
    return undefined;
  }
}

function readJsonObject(path: string): Record<string, unknown> | undefined {
  const text = readSignInFile(path);
  if (text === undefined) return undefined;
  try {
    const v = JSON.parse(text);
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const nonEmpty = (v: unknown) => typeof v === "string" && v.trim() !== "";

export function dshCredentialsFile(home: string): string {
  return join(home, ".dsh", ".credentials.yaml");
}

/** DeepSeek Harness: `refs.DEEPSEEK_API_KEY` in `.dsh/.credentials.yaml`. */
export function dshSignedIn({ home }: SignInContext): boolean {
  const text = readSignInFile(dshCredentialsFile(home));
  return !!text && /^\s*DEEPSEEK_API_KEY\s*:\s*\S/m.test(text);
}

/** pi: a stored credential in `.pi/agent/auth.json`, or a provider key in `.pi/agent/models.json`. */
export function piSignedIn({ home }: SignInContext): boolean {
  const dir = join(home, ".pi", "agent");
  const auth = readJsonObject(join(dir, "auth.json"));
  const stored = Object.values(auth ?? {}).some((entry) => {
    const e = entry as Record<string, unknown> | null;
    return !!e && (nonEmpty(e.key) || nonEmpty(e.access) || nonEmpty(e.refresh));
  });
  if (stored) return true;
  const providers = readJsonObject(join(dir, "models.json"))?.providers;
  if (!providers || typeof providers !== "object") return false;
  return Object.values(providers as Record<string, unknown>).some((p) => !!p && nonEmpty((p as Record<string, unknown>).apiKey));
}

/**
 * Grok: a `grok login` sign-in in `.grok/auth.json`, or an API key for the `[models] default` profile in
 * `.grok/config.toml` (an `api_key`, or an `env_key` naming a variable the agent will actually see). The
 * profile is a custom endpoint in a `[model.<key>]` table (Grok's documented layout) or kept under [models].
 */
export function grokSignedIn({ home, env }: SignInContext): boolean {
  const auth = readJsonObject(join(home, ".grok", "auth.json"));
  if (auth && Object.keys(auth).length > 0) return true;
  const text = readSignInFile(join(home, ".grok", "config.toml"));
  if (!text) return false;
  let config: Record<string, unknown>;
  try {
    config = parseToml(text) as Record<string, unknown>;
  } catch {
    return false;
  }
  const models = config.models as Record<string, unknown> | undefined;
  const wanted = models?.default;
  if (!models || typeof wanted !== "string") return false;
  const endpoints = config.model as Record<string, unknown> | undefined;
  const endpoint = endpoints && typeof endpoints === "object" ? endpoints[wanted] : undefined;
  const profile =
    endpoint && typeof endpoint === "object" && !Array.isArray(endpoint) ? (endpoint as Record<string, unknown>) : findProfile(models, wanted);
  if (!profile) return false;
  if (nonEmpty(profile.api_key)) return true;
  return typeof profile.env_key === "string" && nonEmpty(env[profile.env_key]);
}

/** The profile a default names, by its catalog key or its model id, wherever under [models] it is kept. */
function findProfile(models: Record<string, unknown>, wanted: string): Record<string, unknown> | undefined {
  const candidates: [string, Record<string, unknown>][] = [];
  const visit = (key: string, value: unknown, depth: number) => {
    if (depth > 3 || !value || typeof value !== "object") return;
    if (Array.isArray(value)) return value.forEach((v) => visit(key, v, depth + 1));
    const table = value as Record<string, unknown>;
    candidates.push([key, table]);
    for (const [k, v] of Object.entries(table)) visit(k, v, depth + 1);
  };
  for (const [k, v] of Object.entries(models)) if (k !== "default") visit(k, v, 0);
  const byKey = candidates.find(([k]) => k === wanted);
  if (byKey) return byKey[1];
  return candidates.find(([, t]) => t.id === wanted || t.model === wanted || t.model_id === wanted)?.[1];
}

/** The nested SCV's provider as its `config.toml` names it: profile name and table, or undefined. */
export function scvActiveProvider(home: string): { name: string; profile: Record<string, unknown> } | undefined {
  const text = readSignInFile(join(home, "config.toml"));
  if (!text) return undefined;
  let config: Record<string, unknown>;
  try {
    config = parseToml(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const providers = config.providers as Record<string, unknown> | undefined;
  if (!providers || typeof providers !== "object") return undefined;
  const active = (config.provider as Record<string, unknown> | undefined)?.active;
  const name = typeof active === "string" ? active : Object.keys(providers)[0];
  const profile = name === undefined ? undefined : providers[name];
  if (!profile || typeof profile !== "object") return undefined;
  return { name: name!, profile: profile as Record<string, unknown> };
}

/**
 * The nested SCV: `$SCV_HOME/agents/scv/config.toml` names an active provider profile that holds its key
 * (`api_key`, or an `api_key_env` variable the nested SCV will actually see), or a keyless profile of its own (a
 * local endpoint that takes no key: neither field set; the built-in "openai" profile always reads a key variable).
 */
export function scvSignedIn({ home, env }: SignInContext): boolean {
  const active = scvActiveProvider(home);
  if (!active) return false;
  const p = active.profile;
  if (nonEmpty(p.api_key)) return true;
  if (p.api_key === undefined && p.api_key_env === undefined) return active.name !== "openai" && nonEmpty(p.base_url);
  return typeof p.api_key_env === "string" && nonEmpty(env[p.api_key_env]);
}
