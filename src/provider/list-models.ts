// The models an endpoint offers: one bounded GET of its models list (OpenAI's `/models` or Anthropic's `/v1/models`,
// both `data[].id`). For a person choosing a model; nothing depends on the answer, so any failure is a reason, never thrown.
import { resolveApiKey } from "../config/load";
import type { Config } from "../config/schema";
import { scrubKnown } from "../text/scrub";
import { VERSION } from "../version";
import { ANTHROPIC_VERSION } from "./anthropic";

export type ModelList = { ids: string[] } | { error: string };

type Profile = Config["providers"][string];

/** The models list's URL and headers for a profile: the key as the profile's API takes it. */
export function modelsRequest(profile: Profile, key: string | undefined): { url: string; path: string; headers: Record<string, string> } {
  const base = profile.base_url.replace(/\/+$/, "");
  const common = { "user-agent": `scv/${VERSION}`, ...(profile.headers ?? {}) };
  if (profile.kind === "anthropic") {
    return { url: `${base}/v1/models?limit=1000`, path: "/v1/models", headers: { ...common, "anthropic-version": ANTHROPIC_VERSION, ...(key ? { "x-api-key": key } : {}) } };
  }
  return { url: `${base}/models`, path: "/models", headers: { ...common, ...(key ? { authorization: `Bearer ${key}` } : {}) } };
}

export async function listEndpointModels(profile: Profile, env: NodeJS.ProcessEnv, timeoutMs = 3000): Promise<ModelList> {
  const key = resolveApiKey(profile, env);
  const { url, path, headers } = modelsRequest(profile, key);
  try {
    const res = await fetch(url, {
      method: "GET",
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
      headers,
      ...(profile.proxy ? { proxy: profile.proxy } : {}),
    } as RequestInit);
    if (!res.ok) {
      await res.body?.cancel();
      return { error: `GET ${path} answered HTTP ${res.status}` };
    }
    const body = (await res.json()) as { data?: { id?: unknown }[] };
    const ids = (Array.isArray(body?.data) ? body.data : []).map((m) => m?.id).filter((id): id is string => typeof id === "string" && id.length <= 128);
    return { ids: [...new Set(ids)].sort() };
  } catch (e) {
    const why = (e as Error).name === "TimeoutError" ? `no answer within ${timeoutMs / 1000} s` : (e as Error).message;
    return { error: scrubKnown(why, [key, ...Object.values(profile.headers ?? {})]) };
  }
}
