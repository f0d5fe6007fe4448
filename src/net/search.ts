// Search backends for the web_search tool: SearXNG's JSON API and the Brave Search API, their wire formats
// as zod schemas, and failures turned into messages with a hint for the usual setup mistakes.
// The backend URL comes from the user's own config (a user-only key), so it is not subject to the
// private-address policy: a user's SearXNG commonly runs on localhost. Proxy variables are still ignored.
import type { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { scrubKnown } from "../text/scrub";
import { decodeEntities } from "./entities";
import { readCapped } from "./fetch";
import { NetError } from "./policy";

export interface SearchHit {
  title: string;
  url: string;
  snippet: string;
}

export interface SearchBackend {
  name: "SearXNG" | "Brave";
  search(query: string, count: number, signal?: AbortSignal): Promise<SearchHit[]>;
}

/** A backend failure; the message names the cause and, when known, how to fix the setup. */
export class SearchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SearchError";
  }
}

export interface SearchHttpOptions {
  userAgent: string;
  timeoutMs: number;
  maxBytes: number;
  tls?: { ca?: string | string[] };
}

export const BRAVE_ENDPOINT = "https://api.search.brave.com/res/v1/web/search";
/** The Brave API accepts count 1..20. */
const BRAVE_MAX_COUNT = 20;

// ---- wire formats ----
// Built at their first use (lazySchema), not when a session offering web_search starts (docs/architecture.md, start-up).

const SearxngResult = lazySchema((z) => z.looseObject({ url: z.string(), title: z.string().nullish(), content: z.string().nullish() }));
const SearxngResponse = lazySchema((z) => z.looseObject({
  results: z.array(z.unknown()).default([]),
  // [engine, reason] pairs; older instances sent plain strings.
  unresponsive_engines: z.array(z.union([z.array(z.string()), z.string()])).nullish(),
}));

const BraveResult = lazySchema((z) => z.looseObject({ title: z.string().nullish(), url: z.string(), description: z.string().nullish() }));
const BraveResponse = lazySchema((z) => z.looseObject({ web: z.looseObject({ results: z.array(z.unknown()).default([]) }).nullish() }));
const BraveErrorDetail = lazySchema((z) => z.looseObject({ code: z.string().nullish(), detail: z.string().nullish(), status: z.number().nullish() }));
// Documented as `errors: [...]`, recorded in the wild as `error: {...}`: accept both.
const BraveError = lazySchema((z) => z.looseObject({ error: BraveErrorDetail.nullish(), errors: z.array(BraveErrorDetail).nullish() }));

// ---- backends ----

export function searxngBackend(baseUrl: string, http: SearchHttpOptions): SearchBackend {
  const base = baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`;
  return {
    name: "SearXNG",
    async search(query, count, signal) {
      const url = new URL("search", base);
      url.search = new URLSearchParams({ q: query, format: "json", pageno: "1" }).toString();
      // The limiter's bot detection refuses requests without Accept-Language.
      const res = await request("SearXNG", url, { accept: "application/json", "accept-language": "en-US,en;q=0.8" }, http, signal, "follow");
      const body = await readText(res, http, signal);
      if (res.status === 403) {
        throw new SearchError(
          `SearXNG at ${base} refused the JSON format (HTTP 403). Add json to search.formats in its settings.yml ` +
            "(for example formats: [html, json]) and restart it.",
        );
      }
      if (res.status === 429) {
        throw new SearchError(
          `SearXNG at ${base} refused the request as too many or bot-like (HTTP 429, its limiter). Set server.limiter: false ` +
            "in its settings.yml for a private instance, or allow this client's address in limiter.toml (botdetection.ip_lists.pass_ip).",
        );
      }
      if (!res.ok) throw new SearchError(`SearXNG at ${base} answered HTTP ${res.status}: ${excerpt(body)}`);
      const parsed = SearxngResponse.safeParse(parseJson(body));
      if (!parsed.success) {
        throw new SearchError(
          `SearXNG at ${base} did not return search JSON (content type ${res.headers.get("content-type") || "none"}); ` +
            "check that web.searxng_url is the instance's base URL.",
        );
      }
      const hits: SearchHit[] = [];
      for (const raw of parsed.data.results) {
        const r = SearxngResult.safeParse(raw);
        if (r.success) hits.push({ title: clean(r.data.title ?? ""), url: r.data.url, snippet: clean(r.data.content ?? "") });
      }
      const failed = (parsed.data.unresponsive_engines ?? []).map((e) => (Array.isArray(e) ? e.join(": ") : e));
      if (hits.length === 0 && failed.length) {
        throw new SearchError(`SearXNG returned no results because its engines failed: ${failed.join("; ")}. Try again later or enable other engines.`);
      }
      return hits.slice(0, count);
    },
  };
}

export function braveBackend(apiKey: string, http: SearchHttpOptions & { endpoint?: string }): SearchBackend {
  const endpoint = http.endpoint ?? BRAVE_ENDPOINT;
  // The key is never part of a message; anything echoed back from the service (errors and results alike) is
  // scrubbed of it in every form it could take (raw, percent-encoded, JSON-escaped, a quote of its end).
  const scrub = (s: string) => scrubKnown(s, [apiKey], { replacement: "[key]" });
  return {
    name: "Brave",
    async search(query, count, signal) {
      const url = new URL(endpoint);
      url.search = new URLSearchParams({ q: query, count: String(Math.min(count, BRAVE_MAX_COUNT)), text_decorations: "false" }).toString();
      let res: Response;
      try {
        res = await request("Brave Search", url, { accept: "application/json", "x-subscription-token": apiKey }, http, signal, "error");
      } catch (e) {
        throw new SearchError(scrub((e as Error).message));
      }
      const body = await readText(res, http, signal);
      const json = parseJson(body);
      const err = BraveError.safeParse(json);
      const detail = err.success ? (err.data.error ?? err.data.errors?.[0]) : undefined;
      if (!res.ok || detail) throw new SearchError(scrub(braveFailure(res.status, detail ?? undefined, body)));
      const parsed = BraveResponse.safeParse(json);
      if (!parsed.success) throw new SearchError(`Brave Search returned an unexpected response: ${scrub(excerpt(body))}`);
      const hits: SearchHit[] = [];
      for (const raw of parsed.data.web?.results ?? []) {
        const r = BraveResult.safeParse(raw);
        if (r.success) hits.push({ title: scrub(clean(r.data.title ?? "")), url: scrub(r.data.url), snippet: scrub(clean(r.data.description ?? "")) });
      }
      return hits.slice(0, count);
    },
  };
}

function braveFailure(status: number, detail: z.infer<typeof BraveErrorDetail> | undefined, body: string): string {
  const code = detail?.code ?? "";
  const what = `HTTP ${status}${code ? ` ${code}` : ""}`;
  // A 422 is how Brave answers a bad or missing key; without a known code (a proxy's page, or VALIDATION of
  // the token header) it is still most likely the key.
  const keyValidation = status === 422 && (!code || (code === "VALIDATION" && /subscription[-_ ]token/i.test(body)));
  if (code === "SUBSCRIPTION_TOKEN_INVALID" || code === "SUBSCRIPTION_TOKEN_MISSING" || status === 401 || status === 403 || keyValidation) {
    return `Brave Search rejected the API key (${what}). Check web.brave_api_key in your config, or the environment variable web.brave_api_key_env names.`;
  }
  if (code === "RATE_LIMITED") return `Brave Search rate limit for your plan exceeded (${what}); wait a moment and search again.`;
  if (code === "QUOTA_LIMITED") return `Brave Search quota for your plan is used up (${what}); check the plan at api-dashboard.search.brave.com.`;
  if (status === 429) return `Brave Search refused the request as over its rate or quota limit (${what}); wait and try again, or check your plan.`;
  if (code === "SUBSCRIPTION_NOT_FOUND") return `Brave Search found no subscription for this API key (${what}); subscribe to a Search plan for the key.`;
  return `Brave Search failed (${what}): ${detail?.detail ?? excerpt(body)}`;
}

// ---- helpers ----

async function request(
  service: string,
  url: URL,
  headers: Record<string, string>,
  http: SearchHttpOptions,
  signal: AbortSignal | undefined,
  redirect: "follow" | "error",
): Promise<Response> {
  const timeout = AbortSignal.timeout(http.timeoutMs);
  try {
    return await fetch(url, {
      headers: { ...headers, "user-agent": http.userAgent },
      redirect,
      proxy: false,
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      tls: http.tls?.ca ? { ca: http.tls.ca } : undefined,
    });
  } catch (e) {
    if (signal?.aborted) throw e;
    const err = e as { name?: string; code?: string; message?: string };
    if (timeout.aborted) throw new SearchError(`${service} at ${url.origin} did not answer within ${http.timeoutMs / 1000} s (web.fetch_timeout_seconds).`);
    throw new SearchError(`could not reach ${service} at ${url.origin}${err.code ? ` (${err.code})` : ""}; is it running, and is the address right?`);
  }
}

async function readText(res: Response, http: SearchHttpOptions, signal?: AbortSignal): Promise<string> {
  try {
    const { bytes } = await readCapped(res, http.maxBytes, signal);
    return new TextDecoder().decode(bytes);
  } catch (e) {
    if (e instanceof NetError) throw new SearchError(e.message);
    throw e;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}...` : flat || "(empty body)";
}

/** Snippets may carry markup and entities; the model gets plain text. */
function clean(text: string): string {
  return decodeEntities(text.replace(/<[^>]*>/g, "")).replace(/\s+/g, " ").trim();
}
