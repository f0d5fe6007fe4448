// A fake Feishu open platform on 127.0.0.1: the tenant token, the long-connection endpoint and its WebSocket
// (protobuf frames, pings, event pushes and their acks), message create with `uuid` dedupe, image and file
// uploads, message resources, reactions, bot info and the PersonalAgent registration, with injectable errors.
// Configure `domain = fake.url` and the SDK talks only to this server.
import type { ServerWebSocket } from "bun";
import { decodeFrame, encodeFrame, header, type Frame } from "./feishu-frame";

export interface SentMessage {
  message_id: string;
  receive_id_type: string;
  receive_id: string;
  msg_type: string;
  content: any;
  uuid?: string;
}

export interface FakeFeishu {
  url: string;
  appId: string;
  appSecret: string;
  botOpenId: string;
  /** Every message the bot sent (after uuid dedupe). */
  messages: SentMessage[];
  /** Every create call, including ones answered from the uuid cache or failed. */
  createCalls: number;
  uploads: Array<{ kind: "image" | "file"; key: string; name?: string; fileType?: string; bytes: Uint8Array }>;
  reactions: Array<{ message_id: string; emoji: string; deleted: boolean }>;
  /** Acks the client sent for pushed events, by the frame's message_id header. */
  acks: Array<{ frameId: string; code: number; bizRt?: string; at: number }>;
  tokenRequests: number;
  /** Requests that reached the server (method and path). */
  requests: string[];
  connections(): number;
  /** Pushes an event over every open connection; resolves with the frame ID. */
  push(event: { event_id?: string; event_type?: string; event: any }): string;
  /** An `im.message.receive_v1` event for a message. */
  messageEvent(m: { message_id: string; chat_id: string; chat_type?: "p2p" | "group"; sender: string; message_type?: string; content: any; mentions?: any[]; event_id?: string; parent_id?: string }): { event_id: string; event: any };
  /** A file the client can download with messageResource.get. */
  addResource(messageId: string, key: string, bytes: Uint8Array, type?: "image" | "file"): void;
  /**
   * The next `count` calls to `path` (e.g. "/open-apis/im/v1/messages") answer `status` with `body`; with
   * `after`, the call is carried out first (as when a reply is lost on the way back).
   */
  fail(path: string, status: number, body: any, opts?: { count?: number; after?: boolean }): void;
  /** Closes every open WebSocket (the client should reconnect). */
  dropConnections(): void;
  /** Invalidates issued tokens (REST calls then answer 99991663 until a new token is fetched). */
  expireTokens(): void;
  /** What /callback/ws/endpoint answers instead of a URL, e.g. {code: 403, msg: "..."}. */
  endpointError?: { code: number; msg: string };
  /** Owner registration results for the device flow. */
  registration: { pollsUntilDone: number; openId: string; brand: "feishu" | "lark" };
  close(): Promise<void>;
}

export async function startFakeFeishu(opts: { appId?: string; appSecret?: string } = {}): Promise<FakeFeishu> {
  const appId = opts.appId ?? "cli_a1b2c3d4e5f60718";
  const appSecret = opts.appSecret ?? "fake-secret-9f8e7d";
  const tokens = new Set<string>();
  const byUuid = new Map<string, SentMessage>();
  const resources = new Map<string, { bytes: Uint8Array; type: string }>();
  const failures = new Map<string, Array<{ status: number; body: any; after: boolean }>>();
  const sockets = new Set<ServerWebSocket<unknown>>();
  let counter = 0;
  let polls = 0;
  const next = (p: string) => `${p}${(++counter).toString(16).padStart(8, "0")}`;

  const ok = (data: any = {}) => Response.json({ code: 0, msg: "success", data });
  const authed = (req: Request) => {
    const token = req.headers.get("authorization")?.replace(/^Bearer /, "");
    return token && tokens.has(token);
  };
  const tokenError = () => Response.json({ code: 99991663, msg: "Invalid access token for authorization. Please make a request with token attached." }, { status: 400 });

  const fake: FakeFeishu = {
    url: "",
    appId,
    appSecret,
    botOpenId: "ou_bot0000000000000000000000000000",
    messages: [],
    createCalls: 0,
    uploads: [],
    reactions: [],
    acks: [],
    tokenRequests: 0,
    requests: [],
    registration: { pollsUntilDone: 2, openId: "ou_owner000000000000000000000000", brand: "feishu" },
    connections: () => sockets.size,
    push(e) {
      const frameId = next("frame-");
      const body = {
        schema: "2.0",
        header: { event_id: e.event_id ?? next("ev-"), event_type: e.event_type ?? "im.message.receive_v1", create_time: String(Date.now()), token: "", app_id: appId, tenant_key: "tenant-1" },
        event: e.event,
      };
      const frame: Frame = {
        SeqID: counter,
        LogID: counter,
        service: 7,
        method: 1,
        headers: [
          { key: "type", value: "event" },
          { key: "message_id", value: frameId },
          { key: "sum", value: "1" },
          { key: "seq", value: "0" },
          { key: "trace_id", value: `trace-${counter}` },
        ],
        payload: new TextEncoder().encode(JSON.stringify(body)),
      };
      for (const ws of sockets) ws.sendBinary(encodeFrame(frame));
      return frameId;
    },
    messageEvent(m) {
      return {
        event_id: m.event_id ?? next("ev-"),
        event: {
          sender: { sender_id: { open_id: m.sender, user_id: "u1", union_id: "on_1" }, sender_type: "user", tenant_key: "tenant-1" },
          message: {
            message_id: m.message_id,
            chat_id: m.chat_id,
            chat_type: m.chat_type ?? "p2p",
            message_type: m.message_type ?? "text",
            content: JSON.stringify(m.content),
            create_time: String(Date.now()),
            mentions: m.mentions ?? [],
            ...(m.parent_id ? { parent_id: m.parent_id, root_id: m.parent_id } : {}),
          },
        },
      };
    },
    addResource(messageId, key, bytes, type = "image") {
      resources.set(`${messageId}/${key}`, { bytes, type });
    },
    fail(path, status, body, opts = {}) {
      const list = failures.get(path) ?? [];
      for (let i = 0; i < (opts.count ?? 1); i++) list.push({ status, body, after: opts.after ?? false });
      failures.set(path, list);
    },
    dropConnections() {
      for (const ws of sockets) ws.close(1001, "going away");
    },
    expireTokens() {
      tokens.clear();
    },
    close: async () => {
      for (const ws of sockets) ws.terminate();
      server.stop(true);
    },
  };

  const handle = async (req: Request, srv: import("bun").Server<unknown>): Promise<Response | undefined> => {
    const url = new URL(req.url);
    const path = url.pathname;
    if (path === "/ws") return srv.upgrade(req, { data: undefined }) ? undefined : new Response("upgrade failed", { status: 400 });
    if (path === "/callback/ws/endpoint" && req.method === "POST") {
      const body = (await req.json()) as { AppID: string; AppSecret: string };
      if (fake.endpointError) return Response.json({ ...fake.endpointError, data: {} });
      if (body.AppID !== appId || body.AppSecret !== appSecret) return Response.json({ code: 514, msg: "auth failed", data: {} });
      return Response.json({
        code: 0,
        data: {
          URL: `ws://127.0.0.1:${srv.port}/ws?device_id=dev-1&service_id=7`,
          ClientConfig: { PingInterval: 30, ReconnectCount: -1, ReconnectInterval: 1, ReconnectNonce: 0 },
        },
      });
    }
    if (path === "/open-apis/auth/v3/tenant_access_token/internal" && req.method === "POST") {
      fake.tokenRequests++;
      const body = (await req.json()) as { app_id: string; app_secret: string };
      if (body.app_id !== appId) return Response.json({ code: 10003, msg: "invalid param" });
      if (body.app_secret !== appSecret) return Response.json({ code: 10014, msg: "app secret invalid" });
      const token = next("t-");
      tokens.add(token);
      return Response.json({ code: 0, msg: "ok", tenant_access_token: token, expire: 7200 });
    }
    if (path === "/oauth/v1/app/registration" && req.method === "POST") {
      const form = new URLSearchParams(await req.text());
      if (form.get("action") === "begin") {
        polls = 0;
        return Response.json({ device_code: "dev-code-1", user_code: "ABCD-EFGH", verification_uri_complete: `https://accounts.example.test/verify?code=ABCD-EFGH`, interval: 1, expires_in: 600 });
      }
      if (form.get("action") === "poll") {
        if (form.get("device_code") !== "dev-code-1") return Response.json({ error: "expired_token" }, { status: 400 });
        if (++polls < fake.registration.pollsUntilDone) return Response.json({ error: "authorization_pending" }, { status: 400 });
        return Response.json({ client_id: appId, client_secret: appSecret, user_info: { open_id: fake.registration.openId, tenant_brand: fake.registration.brand } });
      }
      return Response.json({ error: "invalid_request" }, { status: 400 });
    }

    if (!path.startsWith("/open-apis/")) return new Response("not found", { status: 404 });
    if (!authed(req)) return tokenError();

    if (path === "/open-apis/bot/v3/info") return Response.json({ code: 0, msg: "ok", bot: { open_id: fake.botOpenId, app_name: "SCV test bot", activate_status: 2 } });
    if (path === "/open-apis/im/v1/messages" && req.method === "POST") {
      fake.createCalls++;
      const body = (await req.json()) as { receive_id: string; msg_type: string; content: string; uuid?: string };
      const seen = body.uuid ? byUuid.get(body.uuid) : undefined;
      if (seen) return ok({ message_id: seen.message_id });
      const sent: SentMessage = {
        message_id: next("om_"),
        receive_id_type: url.searchParams.get("receive_id_type") ?? "",
        receive_id: body.receive_id,
        msg_type: body.msg_type,
        content: JSON.parse(body.content),
        ...(body.uuid ? { uuid: body.uuid } : {}),
      };
      if (body.uuid) byUuid.set(body.uuid, sent);
      fake.messages.push(sent);
      return ok({ message_id: sent.message_id, chat_id: body.receive_id });
    }
    if ((path === "/open-apis/im/v1/images" || path === "/open-apis/im/v1/files") && req.method === "POST") {
      const form = await multipart(req);
      const kind = path.endsWith("images") ? "image" : "file";
      const bytes = form.get(kind);
      if (!bytes?.length) return Response.json({ code: 234001, msg: `missing field ${kind}` }, { status: 400 });
      const key = next(kind === "image" ? "img_" : "file_");
      const field = (name: string) => new TextDecoder().decode(form.get(name));
      fake.uploads.push({ kind, key, bytes, ...(kind === "file" ? { name: field("file_name"), fileType: field("file_type") } : {}) });
      return ok(kind === "image" ? { image_key: key } : { file_key: key });
    }
    const single = /^\/open-apis\/im\/v1\/messages\/([^/]+)$/.exec(path);
    if (single && req.method === "GET") {
      const m = fake.messages.find((x) => x.message_id === single[1]);
      if (!m) return Response.json({ code: 230011, msg: "The message was withdrawn or does not exist." }, { status: 400 });
      return ok({ items: [{ message_id: m.message_id, msg_type: m.msg_type, body: { content: JSON.stringify(m.content) } }] });
    }
    const resource = /^\/open-apis\/im\/v1\/messages\/([^/]+)\/resources\/([^/]+)$/.exec(path);
    if (resource && req.method === "GET") {
      const r = resources.get(`${resource[1]}/${resource[2]}`);
      if (!r) return Response.json({ code: 234003, msg: "file not found" }, { status: 400 });
      return new Response(r.bytes, { headers: { "content-type": "application/octet-stream" } });
    }
    const reaction = /^\/open-apis\/im\/v1\/messages\/([^/]+)\/reactions(?:\/([^/]+))?$/.exec(path);
    if (reaction && req.method === "POST") {
      const body = (await req.json()) as { reaction_type: { emoji_type: string } };
      fake.reactions.push({ message_id: reaction[1]!, emoji: body.reaction_type.emoji_type, deleted: false });
      return ok({ reaction_id: `re-${fake.reactions.length - 1}` });
    }
    if (reaction && req.method === "DELETE") {
      const r = fake.reactions[Number(reaction[2]!.slice(3))];
      if (r) r.deleted = true;
      return ok({});
    }
    return Response.json({ code: 404, msg: `no fake for ${req.method} ${path}` }, { status: 404 });
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req, srv) {
      const path = new URL(req.url).pathname;
      fake.requests.push(`${req.method} ${path}`);
      const injected = failures.get(path)?.shift();
      if (injected && !injected.after) return Response.json(injected.body, { status: injected.status });
      const res = await handle(req, srv);
      return injected ? Response.json(injected.body, { status: injected.status }) : res;
    },
    websocket: {
      open(ws) {
        sockets.add(ws);
      },
      close(ws) {
        sockets.delete(ws);
      },
      message(ws, data) {
        if (typeof data === "string") return;
        const f = decodeFrame(new Uint8Array(data));
        if (f.method === 0 && header(f, "type") === "ping") {
          ws.sendBinary(
            encodeFrame({ ...f, headers: [{ key: "type", value: "pong" }], payload: new TextEncoder().encode(JSON.stringify({ PingInterval: 30, ReconnectCount: -1, ReconnectInterval: 1, ReconnectNonce: 0 })) }),
          );
          return;
        }
        if (f.method === 1) {
          const body = JSON.parse(new TextDecoder().decode(f.payload ?? new Uint8Array()));
          fake.acks.push({ frameId: header(f, "message_id") ?? "", code: body.code, bizRt: header(f, "biz_rt"), at: Date.now() });
        }
      },
    },
  });
  fake.url = `http://127.0.0.1:${server.port}`;
  return fake;
}

/** The parts of a multipart/form-data body as bytes (the SDK sends Buffers as parts without a filename). */
async function multipart(req: Request): Promise<Map<string, Uint8Array>> {
  const boundary = /boundary=(.+)$/.exec(req.headers.get("content-type") ?? "")?.[1];
  const out = new Map<string, Uint8Array>();
  if (!boundary) return out;
  const body = Buffer.from(await req.arrayBuffer());
  const delimiter = Buffer.from(`--${boundary}`);
  let at = body.indexOf(delimiter);
  while (at >= 0) {
    const start = at + delimiter.length + 2;
    const end = body.indexOf(delimiter, start);
    if (end < 0) break;
    const part = body.subarray(start, end - 2);
    const split = part.indexOf("\r\n\r\n");
    const name = /name="([^"]+)"/.exec(part.subarray(0, split).toString())?.[1];
    if (name) out.set(name, new Uint8Array(part.subarray(split + 4)));
    at = end;
  }
  return out;
}
