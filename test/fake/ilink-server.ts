// A fake Tencent iLink bot API on 127.0.0.1, speaking the documented JSON (shared/reference/channels-openclaw.md
// §1): QR login with scripted states, the getupdates long poll with a real cursor, sendmessage with scripted
// failures (ret -2, errcode -14), typing, and the CDN upload and download with real AES-128-ECB.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

export interface SentMessage {
  to: string;
  client_id: string;
  context_token: string;
  item: any;
  auth: string;
}

export interface FakeIlink {
  url: string;
  cdnUrl: string;
  /** Bot token the next confirmed login hands out; getupdates and sendmessage accept only valid tokens. */
  token: string;
  ownerId: string;
  botId: string;
  /** Statuses the QR status poll answers, per code in order of issue (the last one repeats). */
  loginScripts: string[][];
  qrCodes: string[];
  /** Everything SCV sent successfully. */
  sent: SentMessage[];
  /** Every sendmessage attempt, also refused ones. */
  attempts: SentMessage[];
  typing: Array<{ user: string; status: number }>;
  /** Cursors SCV sent with each getupdates. */
  cursors: string[];
  /** Answer the next `n` sendmessage calls with ret -2. */
  failSends: number;
  /** Tokens answered with errcode -14. */
  staleTokens: Set<string>;
  /** Answer the next `n` getupdates calls with HTTP 502 (a gateway failure). */
  failPolls: number;
  /** When set, the next getupdates ignores its cursor and delivers everything from the start (a replay). */
  replayAll: boolean;
  /** Queues a message from `from` (default the owner) and returns its message_id. */
  push(items: any[], opts?: { from?: string; id?: number; group?: string; contextToken?: string }): number;
  /** Delivers an already-delivered message again (at-least-once delivery). */
  redeliver(id: number): void;
  /** Stores `plain` on the CDN encrypted with a fresh key; returns the media reference a message carries. */
  addMedia(plain: Uint8Array, keyStyle?: "raw" | "hex"): { media: any; hexKey: string };
  /** Decrypts what SCV uploaded for a sent media item. */
  uploaded(media: any): Buffer;
  pollsOpen(): number;
  close(): Promise<void>;
}

function ecb(data: Uint8Array, key: Buffer, encrypt: boolean): Buffer {
  const c = encrypt ? createCipheriv("aes-128-ecb", key, null) : createDecipheriv("aes-128-ecb", key, null);
  return Buffer.concat([c.update(data), c.final()]);
}

function keyOf(aesKeyB64: string): Buffer {
  const raw = Buffer.from(aesKeyB64, "base64");
  return raw.length === 16 ? raw : Buffer.from(raw.toString("latin1"), "hex");
}

export async function startFakeIlink(opts: { pollMs?: number } = {}): Promise<FakeIlink> {
  const log: any[] = [];
  const cdn = new Map<string, Buffer>();
  let nextId = 1000;
  let qrCount = 0;
  let openPolls = 0;
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const w of [...waiters]) w();
  };
  const statusCalls = new Map<string, number>();
  const pollMs = opts.pollMs ?? 1500;

  const fake: FakeIlink = {
    url: "",
    cdnUrl: "",
    token: "tok-1",
    ownerId: "o9cqOWNER@im.wechat",
    botId: "bot1@im.bot",
    loginScripts: [["wait", "scaned", "confirmed"]],
    qrCodes: [],
    sent: [],
    attempts: [],
    typing: [],
    cursors: [],
    failSends: 0,
    staleTokens: new Set(),
    replayAll: false,
    failPolls: 0,
    push(items, o = {}) {
      const id = o.id ?? nextId++;
      log.push({
        seq: log.length + 1,
        message_id: id,
        from_user_id: o.from ?? fake.ownerId,
        to_user_id: fake.botId,
        create_time_ms: Date.now(),
        message_type: 1,
        message_state: 2,
        ...(o.group ? { group_id: o.group } : {}),
        item_list: items,
        context_token: o.contextToken ?? `ctx-${id}`,
      });
      wake();
      return id;
    },
    redeliver(id) {
      const m = log.find((x) => x.message_id === id);
      if (m) log.push({ ...m });
      wake();
    },
    addMedia(plain, keyStyle = "hex") {
      const key = randomBytes(16);
      const param = `dl-${randomBytes(6).toString("hex")}`;
      cdn.set(param, ecb(plain, key, true));
      const aes_key = keyStyle === "raw" ? key.toString("base64") : Buffer.from(key.toString("hex")).toString("base64");
      return { media: { encrypt_query_param: param, aes_key, encrypt_type: 1 }, hexKey: key.toString("hex") };
    },
    uploaded(media) {
      const data = cdn.get(media.encrypt_query_param);
      if (!data) throw new Error(`nothing uploaded as ${media.encrypt_query_param}`);
      return ecb(data, keyOf(media.aes_key), false);
    },
    pollsOpen: () => openPolls,
    close: async () => {
      wake();
      server.stop(true);
    },
  };

  const json = (body: unknown) => Response.json(body);
  const authOk = (req: Request) => {
    const auth = req.headers.get("authorization") ?? "";
    const token = auth.replace(/^Bearer /, "");
    if (req.headers.get("authorizationtype") !== "ilink_bot_token" || !req.headers.get("x-wechat-uin")) return { ret: -1, errmsg: "bad headers" };
    if (fake.staleTokens.has(token)) return { ret: -14, errcode: -14, errmsg: "session timeout" };
    if (!token) return { ret: -1, errmsg: "no token" };
    return undefined;
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 60,
    async fetch(req) {
      const url = new URL(req.url);
      const path = url.pathname;
      if (path === "/ilink/bot/get_bot_qrcode") {
        const code = `qr-${++qrCount}`;
        fake.qrCodes.push(code);
        return json({ ret: 0, qrcode: code, qrcode_img_content: `https://liteapp.weixin.qq.com/q/fake${qrCount}` });
      }
      if (path === "/ilink/bot/get_qrcode_status") {
        const code = url.searchParams.get("qrcode") ?? "";
        const index = fake.qrCodes.indexOf(code);
        const script = fake.loginScripts[Math.min(index, fake.loginScripts.length - 1)] ?? ["wait"];
        const n = statusCalls.get(code) ?? 0;
        statusCalls.set(code, n + 1);
        const status = script[Math.min(n, script.length - 1)]!;
        if (status === "confirmed") {
          return json({ ret: 0, status, bot_token: fake.token, ilink_bot_id: fake.botId, baseurl: fake.url, ilink_user_id: fake.ownerId });
        }
        return json({ ret: 0, status });
      }
      if (path.startsWith("/c2c/")) {
        if (path === "/c2c/upload" && req.method === "POST") {
          const body = Buffer.from(await req.arrayBuffer());
          const param = `up-${url.searchParams.get("filekey")}`;
          cdn.set(param, body);
          return new Response("", { headers: { "x-encrypted-param": param } });
        }
        if (path === "/c2c/download") {
          const data = cdn.get(url.searchParams.get("encrypted_query_param") ?? "");
          return data ? new Response(data) : new Response("no such media", { status: 404 });
        }
        return new Response("not found", { status: 404 });
      }
      if (req.method !== "POST") return new Response("not found", { status: 404 });
      const body = (await req.json()) as any;
      if (!body.base_info) return json({ ret: -1, errmsg: "base_info missing" });
      const bad = authOk(req);
      if (bad) return json(bad);
      switch (path) {
        case "/ilink/bot/msg/notifystart":
        case "/ilink/bot/msg/notifystop":
          return json({ ret: 0 });
        case "/ilink/bot/getupdates": {
          const cursor: string = body.get_updates_buf ?? "";
          fake.cursors.push(cursor);
          if (fake.failPolls > 0) {
            fake.failPolls--;
            return new Response("bad gateway", { status: 502 });
          }
          let from = fake.replayAll ? 0 : Number(cursor.replace(/^c/, "") || 0);
          fake.replayAll = false;
          if (from >= log.length) {
            openPolls++;
            await new Promise<void>((resolve) => {
              const done = () => (clearTimeout(t), waiters.delete(done), resolve());
              const t = setTimeout(done, pollMs);
              waiters.add(done);
              req.signal.addEventListener("abort", done);
            });
            openPolls--;
          }
          from = Math.min(from, log.length);
          const msgs = log.slice(from);
          return json({ ret: 0, msgs, get_updates_buf: `c${log.length}`, longpolling_timeout_ms: pollMs });
        }
        case "/ilink/bot/sendmessage": {
          const msg = body.msg;
          const record: SentMessage = { to: msg.to_user_id, client_id: msg.client_id, context_token: msg.context_token, item: msg.item_list?.[0], auth: req.headers.get("authorization") ?? "" };
          fake.attempts.push(record);
          if (!Array.isArray(msg.item_list) || msg.item_list.length !== 1 || !msg.context_token) return json({ ret: -1, errmsg: "bad message" });
          if (fake.failSends > 0) {
            fake.failSends--;
            return json({ ret: -2, errmsg: "" });
          }
          fake.sent.push(record);
          return json({ ret: 0 });
        }
        case "/ilink/bot/getconfig":
          return json({ ret: 0, typing_ticket: `ticket-${body.ilink_user_id}` });
        case "/ilink/bot/sendtyping":
          fake.typing.push({ user: body.ilink_user_id, status: body.status });
          return json({ ret: 0 });
        case "/ilink/bot/getuploadurl":
          if (!body.filekey || !body.aeskey || !body.to_user_id) return json({ ret: -1, errmsg: "bad upload request" });
          return json({ ret: 0, upload_param: `param-${body.filekey}` });
      }
      return json({ ret: -1, errmsg: `unknown method ${path}` });
    },
  });
  fake.url = `http://127.0.0.1:${server.port}`;
  fake.cdnUrl = `${fake.url}/c2c`;
  return fake;
}
