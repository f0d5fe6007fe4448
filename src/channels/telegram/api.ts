// The Bot API HTTP client: POST JSON to `<base_url>/bot<token>/<method>`, one answer shape, and one error type.
// The token is part of every request path, so nothing here ever puts a URL in a message: errors name the method
// and what Telegram said, and whatever text came back is scrubbed of the token before anyone sees it.
import type { z } from "zod";
import { ApiAnswer } from "./wire";

export interface TelegramEndpoint {
  baseUrl: string;
  token: string;
  proxy?: string;
}

/** A Bot API failure. `status` is Telegram's error_code (or the HTTP status); 0: no answer at all. */
export class TelegramError extends Error {
  constructor(
    message: string,
    readonly method: string,
    readonly status: number,
    /** Seconds Telegram asks to wait (429). */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = "TelegramError";
  }

  /** A network failure, a server error or a flood wait: the same call may work later. */
  get retryable(): boolean {
    return this.status === 0 || this.status === 429 || this.status >= 500;
  }
}

/** Replaces the token (and its percent-encoded form) wherever it appears. */
export function withoutToken(text: string, token: string): string {
  if (!token) return text;
  let out = text.split(token).join("<token>");
  const pct = encodeURIComponent(token);
  if (pct !== token) out = out.split(pct).join("<token>");
  return out;
}

export class TelegramApi {
  private readonly base: string;

  constructor(private readonly endpoint: TelegramEndpoint) {
    this.base = endpoint.baseUrl.replace(/\/+$/, "");
  }

  get token(): string {
    return this.endpoint.token;
  }

  /** Calls a method with a JSON body and returns its `result`, checked against `schema`. */
  async call<S extends z.ZodType>(method: string, params: Record<string, unknown>, schema: S, opts: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<z.output<S>> {
    const res = await this.request(method, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(params) }, opts);
    return this.answer(method, res, schema);
  }

  /** Calls a method with a multipart body (sendDocument, sendPhoto). */
  async upload<S extends z.ZodType>(method: string, form: FormData, schema: S, opts: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<z.output<S>> {
    const res = await this.request(method, { method: "POST", body: form }, opts);
    return this.answer(method, res, schema);
  }

  /** Downloads a file by the `file_path` getFile gave, at most `maxBytes`. */
  async download(filePath: string, maxBytes: number, signal?: AbortSignal): Promise<Uint8Array> {
    if (filePath.includes("..")) throw new TelegramError("Telegram named a file path with '..' in it; not fetched", "download", 400);
    const res = await this.fetch(`${this.base}/file/bot${this.endpoint.token}/${filePath.split("/").map(encodeURIComponent).join("/")}`, { method: "GET" }, "download", { signal, timeoutMs: 120_000 });
    if (!res.ok) throw new TelegramError(`Telegram answered HTTP ${res.status} for the file`, "download", res.status);
    const declared = Number(res.headers.get("content-length") ?? "0");
    if (declared > maxBytes) throw new TelegramError(`the file is ${sizeOf(declared)}, over the ${sizeOf(maxBytes)} limit`, "download", 413);
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.length;
      if (size > maxBytes) throw new TelegramError(`the file is over the ${sizeOf(maxBytes)} limit`, "download", 413);
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  }

  private request(method: string, init: RequestInit, opts: { signal?: AbortSignal; timeoutMs?: number }): Promise<Response> {
    return this.fetch(`${this.base}/bot${this.endpoint.token}/${method}`, init, method, opts);
  }

  private async fetch(url: string, init: RequestInit, method: string, opts: { signal?: AbortSignal; timeoutMs?: number }): Promise<Response> {
    const timeout = AbortSignal.timeout(opts.timeoutMs ?? 30_000);
    const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
    try {
      return await fetch(url, { ...init, signal, redirect: "manual", proxy: this.endpoint.proxy ?? false } as RequestInit);
    } catch (e) {
      if (opts.signal?.aborted) throw e;
      const why = timeout.aborted ? "no answer in time" : withoutToken((e as Error).message, this.endpoint.token);
      throw new TelegramError(`cannot reach the Telegram Bot API at ${new URL(this.base).host} (${method}): ${why}`, method, 0);
    }
  }

  private async answer<S extends z.ZodType>(method: string, res: Response, schema: S): Promise<z.output<S>> {
    const text = await res.text();
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      throw new TelegramError(`Telegram ${method} answered HTTP ${res.status} with something that is not JSON`, method, res.ok ? 502 : res.status);
    }
    const answer = ApiAnswer.safeParse(raw);
    if (!answer.success) throw new TelegramError(`Telegram ${method} answered HTTP ${res.status} with an unexpected shape`, method, res.ok ? 502 : res.status);
    const a = answer.data;
    if (!a.ok) {
      const code = a.error_code ?? res.status;
      const description = withoutToken(a.description ?? "no description", this.endpoint.token).slice(0, 300);
      throw new TelegramError(`Telegram ${method} failed (${code}: ${description})`, method, code, a.parameters?.retry_after);
    }
    const parsed = schema.safeParse(a.result);
    if (!parsed.success) throw new TelegramError(`Telegram ${method} answered an unexpected result: ${parsed.error.issues.slice(0, 3).map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`, method, 502);
    return parsed.data;
  }
}

function sizeOf(bytes: number): string {
  return bytes >= 1048576 ? `${(bytes / 1048576).toFixed(1)} MiB` : `${Math.round(bytes / 1024)} KiB`;
}
