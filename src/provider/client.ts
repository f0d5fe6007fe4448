// The model client: one HTTP attempt per try, bounded retries before any output reaches the caller, and a
// stream that never throws (every failure, cancellation included, is its final `end` event).
import type { ProviderProfile } from "../config/schema";
import { cutShort, parseJson, type OutputEvent, type WireAdapter, type WireOutcome } from "./adapter";
import { anthropicAdapter } from "./anthropic";
import { chatAdapter } from "./chat";
import { type Classified, classifyException, classifyHttp, failureOf, scrubFailure } from "./errors";
import { responsesAdapter } from "./responses";
import { fromArray, readBounded, tidyText, watchIdle } from "./body";
import { rejectedFields } from "./optional-fields";
import { DEFAULT_MAX_LINE_BYTES, readSse, type SseEvent, SseLineTooLongError } from "./sse";
import type { ModelClient, ModelEvent, ModelFailure, ModelRequest } from "./types";

export interface RetryTiming {
  /** First backoff delay; doubles per retry (default 500 ms). */
  baseDelayMs?: number;
  /** Cap on a computed backoff delay (default 30 s). */
  maxDelayMs?: number;
  /** Cap on a server-requested wait (retry-after, "try again in"; default 60 s). */
  maxRetryAfterMs?: number;
}

export interface ModelClientOptions {
  apiKey?: string;
  /** SCV's version, sent as `User-Agent: scv/<version>`. */
  version: string;
  fetch?: typeof fetch;
  retry?: RetryTiming;
  /** Jitter source in [0, 1); injectable for deterministic tests. */
  random?: () => number;
  /** Bound on one SSE line (default 32 MiB). */
  maxLineBytes?: number;
}

/** `rejected`: an HTTP 400 named optional fields this session has not dropped yet. */
type Attempt = WireOutcome | { type: "cancelled" } | { type: "rejected"; fields: string[] };
const CANCELLED: Attempt = { type: "cancelled" };
const ERROR_BODY_LIMIT = 64 * 1024;

/** One client per session: optional fields an endpoint rejected stay dropped for the client's life. */
export function createModelClient(profile: ProviderProfile, opts: ModelClientOptions): ModelClient {
  const adapter: WireAdapter = profile.kind === "anthropic" ? anthropicAdapter(profile) : profile.wire_api === "chat" ? chatAdapter : responsesAdapter;
  // A profile that turns the cache key off never sends it, as if the endpoint had refused it.
  const dropped = new Set<string>(profile.prompt_cache_key === false ? ["prompt_cache_key"] : []);
  return {
    stream: (request) => runStream(profile, opts, adapter, request, dropped),
    preconnect() {
      // A profile's proxy carries the connection instead, and an injected fetch is not Bun's.
      if (profile.proxy || opts.fetch) return;
      try {
        fetch.preconnect(profile.base_url);
      } catch {
        // Only a head start: the request connects on its own.
      }
    },
  };
}

function cancelledEnd(): ModelEvent {
  return { type: "end", status: "cancelled", failure: failureOf("cancelled").failure };
}

async function* runStream(
  profile: ProviderProfile,
  opts: ModelClientOptions,
  adapter: WireAdapter,
  request: ModelRequest,
  dropped: Set<string>,
): AsyncGenerator<ModelEvent> {
  const signal = request.signal ?? new AbortController().signal;
  // Extra header values may be credentials too (config show treats them as secrets).
  const headerValues = Object.values(profile.headers);
  const scrub = (f: ModelFailure) => scrubFailure(f, opts.apiKey, headerValues);
  try {
    if (signal.aborted) {
      yield cancelledEnd();
      return;
    }
    const url = `${profile.base_url.replace(/\/+$/, "")}${adapter.path}`;
    let headers: Headers;
    const makeBody = () => adapter.body(request, request.model ?? profile.model, dropped);
    let body: string;
    try {
      headers = requestHeaders(profile, opts, adapter);
      body = makeBody();
    } catch (e) {
      yield { type: "end", status: "failed", failure: scrub(failureOf("config", errorText(e)).failure) };
      return;
    }
    const timing: Required<RetryTiming> = {
      baseDelayMs: opts.retry?.baseDelayMs ?? 500,
      maxDelayMs: opts.retry?.maxDelayMs ?? 30_000,
      maxRetryAfterMs: opts.retry?.maxRetryAfterMs ?? 60_000,
    };
    const random = opts.random ?? Math.random;
    let emitted = false;
    for (let retries = 0; ; retries++) {
      const tries = attempt({ profile, opts, adapter, url, headers, body, signal, dropped });
      let outcome: Attempt;
      try {
        while (true) {
          const next = await tries.next();
          if (next.done) {
            outcome = next.value;
            break;
          }
          emitted = true;
          yield next.value;
        }
      } finally {
        await tries.return(CANCELLED); // releases the connection if our consumer stopped early
      }
      if (outcome.type === "cancelled" || (outcome.type === "fail" && signal.aborted)) {
        yield cancelledEnd();
        return;
      }
      if (outcome.type === "rejected") {
        // Each field is dropped at most once, so this cannot loop; it does not count as a retry.
        for (const field of outcome.fields) dropped.add(field);
        const names = outcome.fields.map((f) => `"${f}"`).join(" and ");
        yield { type: "notice", message: `the endpoint rejected the ${names} request field; SCV stops sending it for this session` };
        body = makeBody();
        retries--;
        continue;
      }
      if (outcome.type === "done") {
        const { status, usage, reason } = outcome;
        yield { type: "end", status, ...(usage ? { usage } : {}), ...(reason ? { reason } : {}) };
        return;
      }
      const c = outcome.classified;
      if (c.retryable && !emitted && retries < profile.max_retries) {
        const delayMs = retryDelay(retries + 1, c, timing, random);
        yield { type: "retry", attempt: retries + 1, maxRetries: profile.max_retries, delayMs, failure: scrub(c.failure) };
        if (!(await sleep(delayMs, signal))) {
          yield cancelledEnd();
          return;
        }
        continue;
      }
      const failure = scrub(explained(c.failure, profile, request.model ?? profile.model));
      if (c.retryable && retries > 0) failure.message += ` (gave up after ${retries} ${retries === 1 ? "retry" : "retries"})`;
      yield { type: "end", status: "failed", failure };
      return;
    }
  } catch (e) {
    // A defect here must not break the promise that a started stream never throws.
    if (signal.aborted) {
      yield cancelledEnd();
      return;
    }
    yield { type: "end", status: "failed", failure: scrub(failureOf("stream", `unexpected client error: ${errorText(e)}`).failure) };
  }
}

interface AttemptContext {
  profile: ProviderProfile;
  opts: ModelClientOptions;
  adapter: WireAdapter;
  url: string;
  headers: Headers;
  body: string;
  signal: AbortSignal;
  dropped: ReadonlySet<string>;
}

async function* attempt(ctx: AttemptContext): AsyncGenerator<OutputEvent, Attempt> {
  const { profile, signal } = ctx;
  const local = new AbortController();
  // timeout_seconds bounds the wait for the answer to start (its headers); after that only silence ends it.
  const headersDeadline = new AbortController();
  const headersTimer = setTimeout(() => headersDeadline.abort(), profile.timeout_seconds * 1000);
  const idle = { ms: profile.stream_idle_timeout_seconds * 1000, fired: false };
  const combined = AbortSignal.any([signal, headersDeadline.signal, local.signal]);
  const host = safeHost(ctx.url);
  const why = () => ({ timedOut: headersDeadline.signal.aborted, timeoutSeconds: profile.timeout_seconds, host });
  const fail = (classified: Classified): Attempt => ({ type: "fail", classified });
  const idleFailure = () =>
    fail(failureOf("stream", `${host} sent nothing for ${profile.stream_idle_timeout_seconds} s (stream_idle_timeout_seconds = ${profile.stream_idle_timeout_seconds})`));
  try {
    let res: Response;
    try {
      const init: BunFetchRequestInit = {
        method: "POST",
        headers: ctx.headers,
        body: ctx.body,
        signal: combined,
        redirect: "manual",
        // Proxy variables in the environment are never used; only the profile may name a proxy.
        proxy: profile.proxy ?? false,
      };
      res = await (ctx.opts.fetch ?? fetch)(ctx.url, init);
    } catch (e) {
      if (signal.aborted) return CANCELLED;
      if (headersDeadline.signal.aborted) {
        return fail(failureOf("network", `${host} did not start answering within timeout_seconds = ${profile.timeout_seconds}`));
      }
      return fail(classifyException(e, "connect", why()));
    } finally {
      clearTimeout(headersTimer);
    }
    if (res.status >= 300 && res.status < 400) {
      res.body?.cancel().catch(() => {}); // the redirect is refused below with its status; its body is not wanted
      const to = res.headers.get("location") ?? "elsewhere";
      return fail(failureOf("config", `base_url ${host} redirects (HTTP ${res.status}) to ${to}; set base_url to the final address`));
    }
    if (!res.ok || !res.body) {
      const text = await readBounded(res, ERROR_BODY_LIMIT).catch(() => "");
      if (signal.aborted) return CANCELLED;
      if (!res.ok) {
        const classified = classifyHttp(res.status, text, res.headers);
        const fields = rejectedFields(res.status, text, ctx.adapter.optionalFields).filter((f) => !ctx.dropped.has(f));
        return fields.length ? { type: "rejected", fields } : fail(classified);
      }
      return fail(failureOf("stream", "the provider sent an empty answer"));
    }
    const body = watchIdle(res.body, idle.ms, () => {
      idle.fired = true;
      local.abort();
    });
    const type = res.headers.get("content-type") ?? "";
    let events: AsyncIterable<SseEvent>;
    if (type.includes("application/json")) {
      // The endpoint ignored `stream: true`: read the one answer and replay it as the events a stream has.
      let text: string;
      try {
        text = await readBounded(new Response(body), ctx.opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES);
      } catch (e) {
        if (signal.aborted) return CANCELLED;
        return idle.fired ? idleFailure() : fail(classifyException(e, "body", why()));
      }
      const json = parseJson(text);
      const replayed = ctx.adapter.replayJson(json);
      if (replayed) events = fromArray(replayed);
      else if (json && typeof json === "object" && "error" in json) events = fromArray([{ event: "error", data: text }]);
      else {
        const api = ctx.adapter.apiName ?? profile.wire_api;
        return fail(failureOf("config", `expected an answer of the ${api} API but got ${type}: ${tidyText(text)}; is base_url ${profile.kind === "anthropic" ? "an Anthropic Messages API (without /v1)" : "an OpenAI-compatible API"}?`));
      }
    } else events = readSse(body, { maxLineBytes: ctx.opts.maxLineBytes });
    try {
      for await (const item of ctx.adapter.parse(events)) {
        if (item.type === "done" || item.type === "fail") return item;
        yield item;
      }
      return cutShort("its terminal event");
    } catch (e) {
      if (signal.aborted) return CANCELLED;
      if (idle.fired) return idleFailure();
      if (e instanceof SseLineTooLongError) return fail({ ...failureOf("stream", e.message), retryable: false });
      return fail(classifyException(e, "body", why()));
    }
  } finally {
    clearTimeout(headersTimer);
    local.abort();
  }
}

function requestHeaders(profile: ProviderProfile, opts: ModelClientOptions, adapter: WireAdapter): Headers {
  const h = new Headers({ "content-type": "application/json", accept: "text/event-stream", "user-agent": `scv/${opts.version}` });
  for (const [name, value] of Object.entries(profile.headers)) {
    try {
      h.set(name, value);
    } catch {
      throw new Error(`headers.${name} is not a valid HTTP header (name or value has forbidden characters)`);
    }
  }
  if (adapter.authHeaders) for (const [name, value] of Object.entries(adapter.authHeaders(opts.apiKey))) h.set(name, value);
  else if (opts.apiKey) h.set("authorization", `Bearer ${opts.apiKey}`);
  return h;
}

/** An auth or not-found failure names where the key came from, or the model asked for. */
function explained(f: ModelFailure, profile: ProviderProfile, model: string): ModelFailure {
  if ((f.class === "auth" || f.class === "forbidden") && profile.api_key_env && !profile.api_key) {
    return { ...f, message: `${f.message} (the key is read from ${profile.api_key_env})` };
  }
  if (f.class === "model_not_found" && !f.message.includes(model)) return { ...f, message: `${f.message} (model "${model}" at ${safeHost(profile.base_url)})` };
  return f;
}

function retryDelay(retry: number, c: Classified, t: Required<RetryTiming>, random: () => number): number {
  if (c.retryAfterMs !== undefined) return Math.round(Math.min(c.retryAfterMs, t.maxRetryAfterMs));
  const exp = Math.min(t.maxDelayMs, t.baseDelayMs * 2 ** (retry - 1));
  return Math.round(exp * (0.5 + 0.5 * random())); // jitter keeps many clients from retrying in step
}

/** Resolves true after `ms`, false as soon as `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      resolve(ok);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "the provider";
  }
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
