// The models an endpoint offers: one bounded GET of its /models (OpenAI's list shape, `data[].id`). For a person
// choosing a model; nothing depends on the answer, so any failure is a reason, never thrown.
import { resolveApiKey } from "../config/load";
import type { Config } from "../config/schema";
import { scrubKnown } from "../text/scrub";
import { VERSION } from "../version";

export type ModelList = { ids: string[] } | { error: string };

export async function listEndpointModels(profile: Config["providers"][string], env: NodeJS.ProcessEnv, timeoutMs = 3000): Promise<ModelList> {
  const key = resolveApiKey(profile, env);
  try {
    const res = await fetch(`${profile.base_url.replace(/\/+$/, "")}/models`, {
      method: "GET",
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
      headers: { "user-agent": `scv/${VERSION}`, ...(profile.headers ?? {}), ...(key ? { authorization: `Bearer ${key}` } : {}) },
      ...(profile.proxy ? { proxy: profile.proxy } : {}),
    } as RequestInit);
    if (!res.ok) {
      await res.body?.cancel();
      return { error: `GET /models answered HTTP ${res.status}` };
    }
    const body = (await res.json()) as { data?: { id?: unknown }[] };
    const ids = (Array.isArray(body?.data) ? body.data : []).map((m) => m?.id).filter((id): id is string => typeof id === "string" && id.length <= 128);
    return { ids: [...new Set(ids)].sort() };
  } catch (e) {
    const why = (e as Error).name === "TimeoutError" ? `no answer within ${timeoutMs / 1000} s` : (e as Error).message;
    return { error: scrubKnown(why, [key, ...Object.values(profile.headers ?? {})]) };
  }
}
