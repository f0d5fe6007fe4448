// The iLink HTTP client: the headers and base_info every request carries, JSON in and out, and a host check
// so that no request (not even a URL the server hands back) goes anywhere but the configured API host or its
// CDN host. Bun's fetch, with proxy variables ignored unless the user configured a proxy.
import { randomBytes } from "node:crypto";
import type { z } from "zod";
import { VERSION } from "../../version";
import { BaseResponse, STALE_TOKEN } from "./wire";

export interface IlinkEndpoints {
  baseUrl: string;
  cdnBaseUrl: string;
  proxy?: string;
}

/** A response with `ret` or `errcode` other than 0: never treated as success. */
export class IlinkError extends Error {
  constructor(
    readonly code: number,
    readonly method: string,
    errmsg: string | undefined,
  ) {
    super(`WeChat ${method} answered ret ${code}${errmsg ? ` (${errmsg})` : ""}`);
    this.name = "IlinkError";
  }
  get stale(): boolean {
    return this.code === STALE_TOKEN;
  }
}

/** Anything that is not an answer from the platform: refused host, network failure, HTTP error, bad JSON. */
export class IlinkTransportError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = "IlinkTransportError";
  }
}

const CLIENT_VERSION = (() => {
  const [major = 0, minor = 0, patch = 0] = VERSION.split(".").map((n) => Number.parseInt(n, 10) || 0);
  return String(((major & 0xff) << 16) | ((minor & 0xff) << 8) | (patch & 0xff));
})();

export class IlinkClient {
  private readonly allowed: Set<string>;

  constructor(
    private readonly endpoints: IlinkEndpoints,
    private readonly token?: string,
  ) {
    this.allowed = new Set([new URL(endpoints.baseUrl).origin, new URL(endpoints.cdnBaseUrl).origin]);
  }

  /** Whether a URL the server handed back may be fetched (same origin as the configured API or CDN). */
  allows(url: string): boolean {
    try {
      return this.allowed.has(new URL(url).origin);
    } catch {
      return false;
    }
  }

  apiUrl(path: string): string {
    return `${this.endpoints.baseUrl.replace(/\/+$/, "")}/${path}`;
  }

  cdnUrl(path: string): string {
    return `${this.endpoints.cdnBaseUrl.replace(/\/+$/, "")}/${path}`;
  }

  /** POSTs `body` plus base_info to an API method and parses the answer; throws IlinkError on ret != 0. */
  async post<S extends z.ZodType>(method: string, body: Record<string, unknown>, schema: S, signal?: AbortSignal): Promise<z.output<S>> {
    const payload = { ...body, base_info: { channel_version: VERSION, bot_agent: `SCV/${VERSION}` } };
    const res = await this.fetch(this.apiUrl(`ilink/bot/${method}`), { method: "POST", headers: this.headers(true), body: JSON.stringify(payload), signal });
    return this.parse(method, res, schema);
  }

  /** GET on an API path (the QR status poll), common headers only. */
  async get<S extends z.ZodType>(pathAndQuery: string, schema: S, signal?: AbortSignal): Promise<z.output<S>> {
    const res = await this.fetch(this.apiUrl(pathAndQuery), { method: "GET", headers: this.headers(false), signal });
    return this.parse(pathAndQuery.split("?")[0]!, res, schema);
  }

  /** A raw request to an allowed URL (CDN upload and download). */
  async fetch(url: string, init: { method: string; headers?: Record<string, string>; body?: string | Uint8Array; signal?: AbortSignal }): Promise<Response> {
    if (!this.allows(url)) throw new IlinkTransportError(`refused a request to ${safeOrigin(url)}: only the configured iLink host and its CDN host are used`);
    try {
      return await fetch(url, { ...init, redirect: "manual", proxy: this.endpoints.proxy ?? false } as RequestInit);
    } catch (e) {
      if (init.signal?.aborted) throw e;
      throw new IlinkTransportError(`cannot reach ${safeOrigin(url)}: ${(e as Error).message}`);
    }
  }

  private headers(json: boolean): Record<string, string> {
    const uin = Buffer.from(String(randomBytes(4).readUInt32BE(0))).toString("base64");
    return {
      ...(json ? { "Content-Type": "application/json" } : {}),
      AuthorizationType: "ilink_bot_token",
      ...(this.token ? { Authorization: `Bearer ${this.token}` } : {}),
      "X-WECHAT-UIN": uin,
      "iLink-App-Id": "bot",
      "iLink-App-ClientVersion": CLIENT_VERSION,
    };
  }

  private async parse<S extends z.ZodType>(method: string, res: Response, schema: S): Promise<z.output<S>> {
    const text = await res.text();
    if (!res.ok) throw new IlinkTransportError(`WeChat ${method} answered HTTP ${res.status}`, res.status);
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      throw new IlinkTransportError(`WeChat ${method} answered something that is not JSON`);
    }
    const base = BaseResponse.safeParse(raw);
    const code = base.success ? base.data.ret || base.data.errcode || 0 : 0;
    if (code !== 0) throw new IlinkError(code, method, base.success ? base.data.errmsg : undefined);
    const parsed = schema.safeParse(raw);
    if (!parsed.success) throw new IlinkTransportError(`WeChat ${method} answered an unexpected shape: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
    return parsed.data;
  }
}

function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "an invalid URL";
  }
}
