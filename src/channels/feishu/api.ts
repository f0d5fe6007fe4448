// The Feishu REST calls SCV makes, through the official SDK's Client (loaded lazily: only a configured Feishu
// channel pays for it), and the one place its errors become clear messages. The SDK's own logger is replaced:
// it would print whole request objects, tokens included.
import { createHash } from "node:crypto";
import type * as Lark from "@larksuiteoapi/node-sdk";

export type LarkSdk = typeof Lark;

export interface FeishuCredentials {
  appId: string;
  appSecret: string;
  /** `https://open.feishu.cn`, `https://open.larksuite.com` or the configured base URL, without a final slash. */
  baseUrl: string;
}

export function baseUrlFor(domain: string): string {
  if (domain === "feishu") return "https://open.feishu.cn";
  if (domain === "lark") return "https://open.larksuite.com";
  return domain.replace(/\/+$/, "");
}

let sdkPromise: Promise<LarkSdk> | undefined;
export function loadSdk(): Promise<LarkSdk> {
  sdkPromise ??= import("@larksuiteoapi/node-sdk");
  return sdkPromise;
}

/** A logger for the SDK that keeps only short text (never request objects, which carry tokens). */
export function sdkLogger(log: (line: string) => void) {
  const line = (level: string) => (...args: unknown[]) => {
    const text = args
      .flat(3)
      .map((a) => (typeof a === "string" ? a : a instanceof Error ? a.message : ""))
      .filter(Boolean)
      .join(" ")
      .replace(/(access_token|ticket|secret)=[^&\s]+/gi, "$1=…")
      .slice(0, 300);
    if (text) log(`feishu sdk ${level}: ${text}`);
  };
  return { error: line("error"), warn: line("warn"), info: () => {}, debug: () => {}, trace: () => {} };
}

/** A Feishu failure: `retryable` when the same call may work later. */
export class FeishuError extends Error {
  constructor(
    message: string,
    readonly code: number | undefined,
    readonly retryable: boolean,
    readonly kind: "auth" | "scope" | "token" | "refused" | "other" = "other",
  ) {
    super(message);
  }
}

/** Codes after which the same message will never go through (bad target, content the platform rejects). */
const REFUSED_CODES = new Set([230001, 230002, 230006, 230013, 230025, 230099, 234006, 234010]);
const TOKEN_CODES = new Set([99991661, 99991663, 99991664, 99991665]);

/** Turns what the SDK threw (an axios error, a token error) or a non-zero reply code into a FeishuError. */
export function feishuError(e: unknown, appId: string): FeishuError {
  if (e instanceof FeishuError) return e;
  const err = e as { response?: { status?: number; data?: any }; message?: string; code?: string };
  const status = err?.response?.status;
  const data = err?.response?.data;
  const body = data && typeof data === "object" && typeof data.code === "number" ? (data as { code: number; msg?: string }) : undefined;
  const tokenFailure = /failed to get tenant_access_token, code: (\d+), msg: (.*)$/.exec(err?.message ?? "");
  if (tokenFailure) return codeError(Number(tokenFailure[1]), tokenFailure[2] ?? "", appId, undefined);
  if (body) return codeError(body.code, body.msg ?? "", appId, status);
  if (status) return new FeishuError(`Feishu answered HTTP ${status}`, undefined, status >= 500 || status === 429);
  return new FeishuError(`cannot reach Feishu: ${err?.message ?? String(e)}`, undefined, true);
}

export function codeError(code: number, msg: string, appId: string, status?: number): FeishuError {
  const short = msg.split(/[\u3002]|\.\s/)[0]!.slice(0, 160);
  if (code === 10014 || code === 10003 || code === 514 || code === 99991401)
    return new FeishuError(
      `Feishu rejected the app credentials for ${appId} (code ${code}: ${short}); check the app secret (\`scv channels login feishu --app-id ${appId}\`, or the variable app_secret_env names)`,
      code,
      false,
      "auth",
    );
  if (code === 99991672 || code === 99991679 || /required scope|scopes? is required|one of the following scopes/i.test(msg)) {
    const scopes = /\[([^\]]+)\]/.exec(msg)?.[1]?.trim() ?? "the permission named in the error";
    return new FeishuError(
      `the Feishu app ${appId} lacks the permission scope ${scopes}; add it in the developer console (Permissions & Scopes), then publish a new app version (code ${code})`,
      code,
      true,
      "scope",
    );
  }
  if (TOKEN_CODES.has(code)) return new FeishuError(`the tenant access token was not accepted (code ${code}); fetching a new one`, code, true, "token");
  if (REFUSED_CODES.has(code)) return new FeishuError(`Feishu refused the message (code ${code}: ${short})`, code, false, "refused");
  const retryable = status === undefined || status >= 500 || status === 429 || code === 99991400 || code === 230020 || code === 1;
  return new FeishuError(`Feishu error ${code}: ${short}`, code, retryable);
}

/** Why the SDK's long connection gave up, as a clear message (its errors name only a code). */
export function connectionError(e: Error, appId: string): FeishuError {
  const m = /code=(-?\d+), msg=(.*)$/.exec(e.message);
  if (!m) return new FeishuError(`the Feishu long connection failed: ${e.message}`, undefined, true);
  const code = Number(m[1]);
  if (code === 514) return codeError(code, m[2] ?? "", appId);
  if (code === 403)
    return new FeishuError(
      `Feishu refused the long connection for ${appId} (code 403: ${m[2]}): it works only for self-built apps whose console sets Events & Callbacks to "Receive events through persistent connection", and some Lark tenants do not offer it`,
      code,
      false,
      "refused",
    );
  if (code === 1000040350) return new FeishuError(`too many long connections for ${appId} (Feishu allows 50): stop other clients of this app`, code, true);
  return new FeishuError(`the Feishu long connection failed (code ${code}: ${m[2]})`, code, true);
}

/** Throws when a reply that came back with HTTP 200 carries a non-zero code. */
export function checked<T extends { code?: number; msg?: string }>(reply: T, appId: string): T {
  if (reply && typeof reply.code === "number" && reply.code !== 0) throw codeError(reply.code, reply.msg ?? "", appId);
  return reply;
}

/** A Feishu `uuid` (at most 50 characters) derived from a delivery record's key and the part's index. */
export function partUuid(idempotencyKey: string, part: number): string {
  return `${createHash("sha256").update(idempotencyKey).digest("hex").slice(0, 32)}-${part}`;
}

/** The SDK's token cache, ours so a rejected token can be dropped. */
export class TokenCache {
  private readonly values = new Map<string, { value: unknown; expiresAt: number }>();
  async get(key: string | Symbol, options?: { namespace?: string }) {
    const v = this.values.get(`${options?.namespace ?? ""}:${String(key)}`);
    return v && v.expiresAt > Date.now() ? v.value : undefined;
  }
  async set(key: string | Symbol, value: unknown, expiresAt = Infinity, options?: { namespace?: string }) {
    this.values.set(`${options?.namespace ?? ""}:${String(key)}`, { value, expiresAt });
    return true;
  }
  clear() {
    this.values.clear();
  }
}

const IMAGE_EXT = /\.(png|jpe?g|gif|webp|bmp|ico|tiff?|heic)$/i;
const FILE_TYPES: Record<string, string> = { pdf: "pdf", doc: "doc", docx: "doc", xls: "xls", xlsx: "xls", ppt: "ppt", pptx: "ppt", mp4: "mp4" };

/** The REST side of one Feishu app. */
export class FeishuApi {
  readonly client: Lark.Client;
  private readonly cache = new TokenCache();

  constructor(
    sdk: LarkSdk,
    readonly creds: FeishuCredentials,
    log: (line: string) => void,
  ) {
    this.client = new sdk.Client({
      appId: creds.appId,
      appSecret: creds.appSecret,
      domain: creds.baseUrl,
      cache: this.cache,
      logger: sdkLogger(log),
      loggerLevel: sdk.LoggerLevel.warn,
    });
  }

  /** Runs a call; a rejected token is dropped and the call made once more with a fresh one. */
  private async call<T extends { code?: number; msg?: string }>(fn: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return checked(await fn(), this.creds.appId);
      } catch (e) {
        const err = feishuError(e, this.creds.appId);
        if (err.kind === "token" && attempt === 0) {
          this.cache.clear();
          continue;
        }
        throw err;
      }
    }
  }

  /** Checks the credentials (a token) and returns the bot's open_id and name. */
  async botInfo(): Promise<{ openId: string; name: string }> {
    const reply = await this.call(() => this.client.request<{ code: number; msg: string; bot?: { open_id: string; app_name: string } }>({ method: "GET", url: "/open-apis/bot/v3/info" }));
    if (!reply.bot?.open_id) throw new FeishuError("Feishu did not name the bot: enable the bot capability of the app in the developer console", undefined, false, "refused");
    return { openId: reply.bot.open_id, name: reply.bot.app_name };
  }

  /** Sends one message part; `uuid` makes a repeated call one message. */
  async create(receiveId: string, msgType: string, content: unknown, uuid: string): Promise<string> {
    const receive_id_type = receiveId.startsWith("oc_") ? "chat_id" : "open_id";
    const reply = await this.call(() =>
      this.client.im.v1.message.create({ params: { receive_id_type }, data: { receive_id: receiveId, msg_type: msgType, content: JSON.stringify(content), uuid } }),
    );
    return reply.data?.message_id ?? "";
  }

  /** Uploads a file from memory (Buffers: the SDK's streams fail under Bun) and returns the message part. */
  async upload(name: string, bytes: Buffer): Promise<{ msgType: "image" | "file" | "media"; content: unknown }> {
    if (IMAGE_EXT.test(name) && bytes.length <= 10 * 1024 * 1024) {
      const reply = await this.call(async () => {
        const r = await this.client.im.v1.image.create({ data: { image_type: "message", image: bytes } });
        return { code: 0, ...(r ?? {}) } as { code: number; image_key?: string };
      });
      if (!reply.image_key) throw new FeishuError("Feishu returned no image key", undefined, true);
      return { msgType: "image", content: { image_key: reply.image_key } };
    }
    const ext = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase() ?? "";
    const reply = await this.call(async () => {
      const r = await this.client.im.v1.file.create({ data: { file_type: (FILE_TYPES[ext] ?? "stream") as "stream", file_name: name, file: bytes } });
      return { code: 0, ...(r ?? {}) } as { code: number; file_key?: string };
    });
    if (!reply.file_key) throw new FeishuError("Feishu returned no file key", undefined, true);
    // An mp4 uploaded as file_type "mp4" goes as a `media` message, which Feishu shows as a playable video; the
    // cover (`image_key`) is optional and SCV has no frame to offer, so Feishu shows its default.
    if (ext === "mp4") return { msgType: "media", content: { file_key: reply.file_key } };
    return { msgType: "file", content: { file_key: reply.file_key } };
  }

  /** Downloads a file or image a user sent, into memory (at most `maxBytes`). */
  async download(messageId: string, key: string, type: "image" | "file", maxBytes: number): Promise<Buffer> {
    const res = await this.call(async () => {
      const r = await this.client.im.v1.messageResource.get({ path: { message_id: messageId, file_key: key }, params: { type } });
      return { code: 0, r };
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.r.getReadableStream() as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) throw new FeishuError(`the file is larger than ${Math.round(maxBytes / 1048576)} MiB`, undefined, false, "refused");
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  }

  /** A message's type and content (for what a reply quotes); undefined when it cannot be read. */
  async message(messageId: string): Promise<{ msgType: string; content: string } | undefined> {
    const reply = await this.call(() => this.client.im.v1.message.get({ path: { message_id: messageId } }));
    const item = reply.data?.items?.[0];
    return item?.msg_type && item.body?.content !== undefined ? { msgType: item.msg_type, content: item.body.content } : undefined;
  }

  async addReaction(messageId: string, emoji: string): Promise<string | undefined> {
    const reply = await this.call(() => this.client.im.v1.messageReaction.create({ path: { message_id: messageId }, data: { reaction_type: { emoji_type: emoji } } }));
    return reply.data?.reaction_id;
  }

  async removeReaction(messageId: string, reactionId: string): Promise<void> {
    await this.call(() => this.client.im.v1.messageReaction.delete({ path: { message_id: messageId, reaction_id: reactionId } }));
  }
}
