// The pinned connector. Bun's fetch has no lookup hook, so each hop connects to a checked IP literal and
// carries the name in the Host header and TLS serverName (SNI and certificate check use the name). Redirects
// are followed by hand so every hop is checked again; proxy variables are ignored, since a proxy would
// resolve the name itself and defeat the check.
import { ipLiteral, NetError, parseTargetUrl } from "./policy";
import { type AddressPolicy, type CheckedTarget, resolveChecked } from "./resolver";

export interface ConnectorOptions extends AddressPolicy {
  userAgent: string;
  timeoutMs: number;
  maxRedirects: number;
  /** Extra trust roots; only tests set this (their self-signed CA), never a global environment variable. */
  tls?: { ca?: string | string[] };
}

export interface GuardedRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  signal?: AbortSignal;
  /** Runs before each redirect is followed; throw to stop there. */
  onRedirect?: (to: URL, from: URL) => void;
}

export interface GuardedResponse {
  /** The final URL (the name, never the pinned IP). */
  url: URL;
  response: Response;
  /** Every URL redirected to, in order. */
  redirects: URL[];
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Headers that must not follow a redirect to another origin. */
const ORIGIN_BOUND = ["authorization", "cookie", "proxy-authorization"];
/** Connect errors after which the next checked address may be tried (nothing was sent yet). */
const NOT_CONNECTED = new Set(["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL", "ConnectionRefused"]);

/** Fetches through the policy, following at most opts.maxRedirects redirects, each one checked. */
export async function guardedFetch(target: string | URL, opts: ConnectorOptions, req: GuardedRequest = {}): Promise<GuardedResponse> {
  const signal = req.signal ? AbortSignal.any([req.signal, AbortSignal.timeout(opts.timeoutMs)]) : AbortSignal.timeout(opts.timeoutMs);
  let url = parseTargetUrl(target);
  let method = (req.method ?? "GET").toUpperCase();
  let body = req.body;
  const headers: Record<string, string> = { accept: "*/*", ...lowerKeys(req.headers ?? {}), "user-agent": opts.userAgent };
  const redirects: URL[] = [];
  for (;;) {
    const where = redirects.length ? `redirected to ${url.href}: ` : "";
    let checked: CheckedTarget;
    try {
      // The system resolver has no deadline of its own; the request's timeout and cancellation cover it.
      checked = await untilAborted(resolveChecked(url, opts), signal);
    } catch (e) {
      if (!(e instanceof NetError)) throw signal.aborted ? describeFetchError(e, url, opts, signal) : e;
      throw where ? new NetError(where + e.message) : e;
    }
    const response = await pinnedHop(url, checked, { method, headers, body, signal }, opts);
    const location = REDIRECTS.has(response.status) ? response.headers.get("location") : null;
    if (location === null) return { url, response, redirects };
    await response.body?.cancel().catch(() => {}); // the redirect's own body is unread: a failed cancel only means the connection is gone
    let next: URL;
    try {
      next = parseTargetUrl(location, url);
    } catch (e) {
      throw new NetError(`redirect from ${url.href} to ${JSON.stringify(location.slice(0, 500))} refused: ${(e as Error).message}`);
    }
    if (redirects.length >= opts.maxRedirects) {
      throw new NetError(`stopped after ${opts.maxRedirects} redirects (web.max_redirects); the next one went to ${next.href}`);
    }
    req.onRedirect?.(next, url);
    if (next.origin !== url.origin) for (const h of ORIGIN_BOUND) delete headers[h];
    if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === "POST")) {
      if (method !== "HEAD") method = "GET";
      body = undefined;
      delete headers["content-type"];
    }
    redirects.push(next);
    url = next;
  }
}

interface Hop {
  method: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  signal: AbortSignal;
}

/** One request to one of the checked addresses, never to the name. */
async function pinnedHop(url: URL, checked: CheckedTarget, hop: Hop, opts: ConnectorOptions): Promise<Response> {
  const isName = !checked.addresses.includes(checked.host);
  let lastError: unknown;
  for (const address of checked.addresses) {
    const pinned = new URL(url);
    pinned.hostname = address.includes(":") ? `[${address}]` : address;
    // The URL setter ignores a value it cannot parse (a zone id, say) and would leave the name in place,
    // letting fetch resolve it again; never send a request that is not pinned.
    if (!ipLiteral(pinned)) {
      lastError = new NetError(`${checked.host} resolved to ${address}, which cannot be connected to by address`);
      continue;
    }
    try {
      return await fetch(pinned, {
        method: hop.method,
        headers: { ...hop.headers, host: url.host },
        body: hop.body,
        redirect: "manual",
        proxy: false,
        signal: hop.signal,
        tls: url.protocol === "https:" ? { ...(isName ? { serverName: checked.host } : {}), ...(opts.tls?.ca ? { ca: opts.tls.ca } : {}) } : undefined,
      });
    } catch (e) {
      lastError = e;
      if (hop.signal.aborted || !NOT_CONNECTED.has((e as { code?: string }).code ?? "")) break;
    }
  }
  throw lastError instanceof NetError ? lastError : describeFetchError(lastError, url, opts, hop.signal);
}

/** Reads at most maxBytes of the (decoded) body, cancelling the rest. `url` names the request in errors. */
export async function readCapped(
  response: Response,
  maxBytes: number,
  signal?: AbortSignal,
  url?: URL,
): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  if (!response.body) return { bytes: new Uint8Array(0), truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let truncated = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (total + value.length > maxBytes) {
        chunks.push(value.subarray(0, maxBytes - total));
        total = maxBytes;
        truncated = true;
        await reader.cancel().catch(() => {}); // enough was read; the rest is dropped whether or not the cancel succeeds
        break;
      }
      chunks.push(value);
      total += value.length;
    }
  } catch (e) {
    if (signal?.aborted && (signal.reason as Error | undefined)?.name !== "TimeoutError") throw e;
    throw describeFetchError(e, url ?? new URL(response.url || "http://unknown/"), undefined, signal);
  } finally {
    reader.releaseLock();
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  return { bytes, truncated };
}

function describeFetchError(e: unknown, url: URL, opts: ConnectorOptions | undefined, signal?: AbortSignal): Error {
  const err = e as { name?: string; code?: string | number; message?: string };
  if (err?.name === "TimeoutError" || (signal?.aborted && (signal.reason as Error | undefined)?.name === "TimeoutError")) {
    const seconds = opts ? ` after ${Math.round(opts.timeoutMs / 100) / 10} s` : "";
    return new NetError(`${url.host}: timed out${seconds} (web.fetch_timeout_seconds)`);
  }
  if (err?.name === "AbortError") return e as Error;
  const code = typeof err?.code === "string" ? err.code : "";
  if (/CERT|SSL|TLS|EPROTO|VERIFY|SIGNATURE|ISSUER/i.test(code)) {
    return new NetError(`${url.host}: TLS failed (${code}): ${err.message ?? ""}`.trim());
  }
  return new NetError(`${url.host}: could not connect${code ? ` (${code})` : ""}: ${err?.message ?? String(e)}`);
}

/** `work`, or the signal's reason as soon as it aborts (the work itself is left to finish unobserved). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function lowerKeys(h: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
}
