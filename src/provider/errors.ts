// Failure classification (reference §3 classifier table): error.code first, then error.type, then the HTTP
// status. Also the retry-after parsing and the secret scrubbing every message passes through.
import { scrubKnown } from "../text/scrub";
import type { FailureClass, ModelFailure } from "./types";
import { ErrorEnvelope, type ErrorBody } from "./wire";
import { ellipsizeAfter } from "../text/cut";

export interface Classified {
  failure: ModelFailure;
  retryable: boolean;
  /** The server's requested wait before retrying, if it named one. */
  retryAfterMs?: number;
}

const RETRYABLE: ReadonlySet<FailureClass> = new Set(["rate_limit", "server", "network", "stream"]);
const QUOTA_CODES = new Set(["insufficient_quota", "credit_balance_exhausted", "billing_hard_limit_reached", "usage_not_included"]);
const SERVER_CODES = new Set(["server_error", "server_is_overloaded", "slow_down", "service_unavailable_error", "internal_error"]);

const ANTHROPIC_TYPES: Record<string, FailureClass> = {
  authentication_error: "auth",
  permission_error: "forbidden",
  not_found_error: "model_not_found",
  rate_limit_error: "rate_limit",
  overloaded_error: "server",
  api_error: "server",
  billing_error: "quota",
  request_too_large: "invalid_request",
};

const HINTS: Record<FailureClass, string> = {
  auth: "The provider rejected the API key; set a valid key (api_key_env or api_key in the provider profile)",
  forbidden: "The provider refused access for this key, organization or region",
  model_not_found: "The model was not found; check the profile's model and base_url",
  rate_limit: "The provider is rate limiting requests",
  quota: "The provider account is out of quota or credits; add credits or switch provider profile",
  context_window: "The conversation is too long for the model's context window; start a new session or shorten the input",
  invalid_request: "The provider rejected the request",
  server: "The provider had a server error",
  network: "Could not reach the provider",
  stream: "The response stream broke off before it was complete",
  cancelled: "The model request was cancelled",
  config: "The provider profile is not usable",
};

export function failureOf(cls: FailureClass, detail?: string, status?: number, extra: Partial<Classified> = {}): Classified {
  const head = status ? `${HINTS[cls]} (HTTP ${status})` : HINTS[cls];
  const message = detail ? `${head}: ${detail}` : head;
  return { failure: { class: cls, message, ...(status ? { status } : {}) }, retryable: RETRYABLE.has(cls), ...extra };
}

/**
 * One line. Not cut to its final length here: a cut could split a secret the provider echoed, and the scrubber
 * would then miss the part left; `scrubFailure` cuts after scrubbing. The generous bound only keeps a huge body
 * from being carried around (anything past it is far beyond the final cut).
 */
function tidy(s: string, max = 16 * 1024): string {
  const one = s.slice(0, max * 2).replace(/\s+/g, " ").trim();
  return ellipsizeAfter(one, max);
}

/** How long a failure message may be once scrubbed, so an HTML error page or a huge body cannot flood it. */
const MAX_MESSAGE_CHARS = 400;

function classOfCode(code: string, type: string, message: string): FailureClass | undefined {
  for (const c of [code, type]) {
    if (!c) continue;
    if (QUOTA_CODES.has(c)) return "quota";
    if (c === "invalid_api_key") return "auth";
    if (c === "model_not_found") return "model_not_found";
    if (c === "context_length_exceeded") return "context_window";
    if (c === "rate_limit_exceeded") return "rate_limit";
    if (SERVER_CODES.has(c)) return "server";
    if (c === "invalid_prompt") return "invalid_request";
    // Anthropic's error types (docs/anthropic-wire.md).
    const anthropic = ANTHROPIC_TYPES[c];
    if (anthropic) return anthropic;
  }
  // Some compatible servers report an overflow with no code at all.
  if (/context (window|length)|maximum context|prompt is too long/i.test(message)) return "context_window";
  return undefined;
}

function classOfStatus(status: number): FailureClass {
  if (status === 401) return "auth";
  if (status === 403) return "forbidden";
  if (status === 404) return "model_not_found";
  if (status === 429) return "rate_limit";
  if (status === 408 || status === 409 || status >= 500) return "server";
  return "invalid_request";
}

/** Milliseconds from `retry-after-ms`, `retry-after` (seconds or HTTP date) or "try again in 11.054s|28ms|35 seconds". */
export function retryAfterMs(headers: Headers | undefined, message: string, now = Date.now()): number | undefined {
  const ms = Number(headers?.get("retry-after-ms") ?? NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const ra = headers?.get("retry-after");
  if (ra) {
    const secs = Number(ra);
    if (Number.isFinite(secs) && secs >= 0) return secs * 1000;
    const date = Date.parse(ra);
    if (Number.isFinite(date)) return Math.max(0, date - now);
  }
  const m = /try again in\s*(\d+(?:\.\d+)?)\s*(ms|s|seconds?)\b/i.exec(message);
  if (m) return Number(m[1]) * (m[2]!.toLowerCase() === "ms" ? 1 : 1000);
  return undefined;
}

/** An error object from a body, a `response.failed`, an `error` event or a Chat mid-stream chunk. */
export function classifyErrorBody(err: ErrorBody | undefined, status?: number, headers?: Headers): Classified {
  const code = err?.code == null ? "" : String(err.code);
  const type = err?.type ?? "";
  const message = err?.message ?? "";
  const cls = classOfCode(code, type, message) ?? (status ? classOfStatus(status) : type === "invalid_request_error" ? "invalid_request" : "server");
  const detail = tidy([message, code && !message.includes(code) ? `(code ${code})` : ""].filter(Boolean).join(" "));
  const out = failureOf(cls, detail || undefined, status);
  if (cls === "rate_limit" || cls === "server") {
    const wait = retryAfterMs(headers, message);
    if (wait !== undefined) out.retryAfterMs = wait;
  }
  // The SDK rule: an explicit x-should-retry: false wins.
  if (headers?.get("x-should-retry") === "false") out.retryable = false;
  return out;
}

/** A non-2xx HTTP answer; `body` is the (bounded) response text. */
export function classifyHttp(status: number, body: string, headers: Headers): Classified {
  let err: ErrorBody | undefined;
  try {
    const parsed = ErrorEnvelope.safeParse(JSON.parse(body));
    if (parsed.success) err = parsed.data.error;
  } catch {
    // not JSON: an HTML page from a proxy, a plain "404 page not found", ...
  }
  if (!err && body.trim()) err = { message: tidy(body) };
  const out = classifyErrorBody(err, status, headers);
  const requestId = headers.get("x-request-id") ?? headers.get("x-oai-request-id") ?? headers.get("request-id");
  if (requestId) out.failure.message += ` [request id ${tidy(requestId, 100)}]`;
  return out;
}

/** What fetch or a body read threw, once the caller has ruled out cancellation. */
export function classifyException(e: unknown, phase: "connect" | "body", ctx: { timedOut: boolean; timeoutSeconds: number; host: string }): Classified {
  if (ctx.timedOut) return failureOf("network", `no complete answer from ${ctx.host} within timeout_seconds = ${ctx.timeoutSeconds}`);
  const code = typeof e === "object" && e && "code" in e ? String((e as { code: unknown }).code) : "";
  const msg = e instanceof Error ? e.message : String(e);
  if (phase === "body") return failureOf("stream", tidy(`the connection to ${ctx.host} broke mid-stream (${code || msg})`));
  const what: Record<string, string> = {
    ECONNREFUSED: "connection refused",
    ECONNRESET: "connection reset",
    ENOTFOUND: "host name not found (DNS)",
    EAI_AGAIN: "DNS lookup failed",
    ETIMEDOUT: "connection timed out",
    UND_ERR_CONNECT_TIMEOUT: "connection timed out",
  };
  return failureOf("network", tidy(`${ctx.host}: ${what[code] ?? msg}`));
}

/**
 * Removes the key (raw, percent-encoded, JSON-escaped, its prefix, a quote of its end; see text/scrub.ts),
 * anything shaped like a key, and masked echoes ("Incorrect API key provided: sk-inval***c66a") from a message.
 */
export function scrubSecrets(text: string, key?: string, others: readonly string[] = []): string {
  let out = scrubKnown(text, [key]);
  // Other configured secrets (extra header values): whole values only, and not short ones that are ordinary words.
  out = scrubKnown(out, others.filter((s) => s.length >= 8), { partial: false });
  return out
    .replace(/\b(?:sk|xai|gsk|rk|pk)[-_][A-Za-z0-9*._-]{3,}/g, "***")
    .replace(/\bBearer\s+[^\s"',]+/gi, "Bearer ***")
    .replace(/[A-Za-z0-9_-]*\*{3,}[A-Za-z0-9_-]+/g, "***");
}

/** Scrubs, then cuts: the order matters, since a cut first could leave the front of a split key behind. */
export function scrubFailure(f: ModelFailure, key?: string, others: readonly string[] = []): ModelFailure {
  const message = scrubSecrets(f.message, key, others);
  // The request id, when the provider gave one, stays at the end whatever the cut.
  const [, body = message, requestId = ""] = /^(.*?)( \[request id [^\]]*\])?$/s.exec(message) ?? [];
  return { ...f, message: body.length > MAX_MESSAGE_CHARS ? `${body.slice(0, MAX_MESSAGE_CHARS)}…${requestId}` : message };
}
