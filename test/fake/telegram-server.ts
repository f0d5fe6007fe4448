// A fake Telegram Bot API on 127.0.0.1, speaking the JSON of https://core.telegram.org/bots/api as captured in
// docs/telegram-bot-api.md: `POST /bot<token>/<method>` answering `{"ok":true,"result":…}` or
// `{"ok":false,"error_code":N,"description":"…"[,"parameters":{"retry_after":S}]}`; getUpdates long polling with
// a real offset (an update is confirmed once a later call's offset passes it); sendMessage that checks
// parse_mode HTML the way Telegram does (an unknown or unclosed tag is a 400); files at /file/bot<token>/<path>.

export interface SentText {
  chat_id: string;
  text: string;
  parse_mode?: string;
  reply_to?: number;
  message_id: number;
  at: number;
}

export interface FakeTelegram {
  url: string;
  token: string;
  bot: { id: number; username: string };
  /** Every message the bot sent successfully, in order. */
  sent: SentText[];
  /** Every call, by method, with its parsed JSON body (multipart: the form's fields), and when it arrived. */
  calls: Array<{ method: string; body: any; at: number }>;
  /** Answers queued per method, used before the method's normal answer: [HTTP status, JSON body]. */
  script: Record<string, Array<[number, unknown]>>;
  /** A user message in a chat; returns its message_id. */
  say(text: string, opts?: { from?: number; chat?: number; type?: string; entities?: any[]; reply_to_bot?: boolean; extra?: Record<string, unknown> }): number;
  /** Any update body (without update_id), for malformed or unusual updates. */
  push(update: Record<string, unknown>): number;
  /** Puts every update back to unconfirmed, as if no getUpdates had confirmed them (a crash before the offset moved). */
  unconfirm(): void;
  /** Serves a file for getFile. */
  addFile(fileId: string, bytes: Uint8Array, path: string): void;
  confirmedUpTo(): number;
  close(): Promise<void>;
}

export const OWNER_ID = 700001;
export const STRANGER_ID = 700002;

const TAGS = new Set(["b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "code", "pre", "a", "tg-spoiler", "blockquote", "span"]);

/** Telegram's HTML parse: an unknown tag, an unclosed or mismatched one, or a bare `<` or `&` is refused. */
export function htmlProblem(html: string): string | undefined {
  const stack: string[] = [];
  const re = /<(\/?)([a-zA-Z-]*)[^>]*>|<|&(?!(?:lt|gt|amp|quot|#\d+);)/g;
  for (let m = re.exec(html); m; m = re.exec(html)) {
    if (m[0] === "<" || m[0].startsWith("&")) return `Bad Request: can't parse entities: unexpected character at byte offset ${m.index}`;
    const [, close, tag] = m;
    const name = tag!.toLowerCase();
    if (!TAGS.has(name)) return `Bad Request: can't parse entities: Unsupported start tag "${name}" at byte offset ${m.index}`;
    if (close) {
      if (stack.pop() !== name) return `Bad Request: can't parse entities: Can't find end tag corresponding to start tag "${name}"`;
    } else stack.push(name);
  }
  return stack.length ? `Bad Request: can't parse entities: Can't find end tag corresponding to start tag "${stack.at(-1)}"` : undefined;
}

/** The visible text of Telegram HTML (what the 4096-character limit counts). */
export function visibleText(html: string): string {
  return html.replace(/<[^>]+>/g, "").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&amp;/g, "&");
}

export async function startFakeTelegram(opts: { pollMs?: number } = {}): Promise<FakeTelegram> {
  const token = "123456789:AAFakeTokenForTestsOnly_x9QzW7rLkT3v";
  const bot = { id: 900001, username: "scv_test_bot" };
  const updates: Array<{ update_id: number } & Record<string, unknown>> = [];
  let confirmed = 0; // every update_id below this is confirmed
  let nextUpdate = 5000;
  let nextMessage = 100;
  const waiters = new Set<() => void>();
  const files = new Map<string, { bytes: Uint8Array; path: string }>();
  const fake = {} as FakeTelegram;
  const ok = (result: unknown) => Response.json({ ok: true, result });
  const fail = (code: number, description: string, parameters?: unknown) => Response.json({ ok: false, error_code: code, description, ...(parameters ? { parameters } : {}) }, { status: code });
  const now = () => Math.floor(Date.now() / 1000);
  const wake = () => {
    for (const w of [...waiters]) w();
  };
  const botMessage = (chatId: string, text: string) => ({ message_id: ++nextMessage, from: { id: bot.id, is_bot: true, first_name: "SCV", username: bot.username }, chat: { id: Number(chatId), type: Number(chatId) < 0 ? "supergroup" : "private" }, date: now(), text });

  async function getUpdates(body: any): Promise<Response> {
    if (typeof body.offset === "number") confirmed = Math.max(confirmed, body.offset);
    const pending = () => updates.filter((u) => u.update_id >= confirmed);
    if (!pending().length) {
      const waitMs = Math.min((body.timeout ?? 0) * 1000, opts.pollMs ?? 1000);
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(t);
          waiters.delete(done);
          resolve();
        };
        const t = setTimeout(done, waitMs);
        waiters.add(done);
      });
    }
    return ok(pending().slice(0, body.limit ?? 100));
  }

  function sendMessage(body: any): Response {
    if (typeof body.text !== "string" || !body.text.length) return fail(400, "Bad Request: message text is empty");
    if (body.parse_mode === "HTML") {
      const problem = htmlProblem(body.text);
      if (problem) return fail(400, problem);
    }
    const visible = body.parse_mode === "HTML" ? visibleText(body.text) : body.text;
    if (visible.length > 4096) return fail(400, "Bad Request: message is too long");
    const m = botMessage(String(body.chat_id), visible);
    fake.sent.push({ chat_id: String(body.chat_id), text: body.text, ...(body.parse_mode ? { parse_mode: body.parse_mode } : {}), ...(body.reply_parameters?.message_id ? { reply_to: body.reply_parameters.message_id } : {}), message_id: m.message_id, at: Date.now() });
    return ok(m);
  }

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 60,
    async fetch(req) {
      const url = new URL(req.url);
      const file = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
      if (file) {
        if (file[1] !== token) return new Response("Unauthorized", { status: 401 });
        const f = [...files.values()].find((x) => x.path === decodeURIComponent(file[2]!));
        return f ? new Response(f.bytes) : new Response("Not Found", { status: 404 });
      }
      const m = /^\/bot([^/]*)\/(\w+)$/.exec(url.pathname);
      if (!m) return fail(404, "Not Found");
      const method = m[2]!;
      let body: any = {};
      const type = req.headers.get("content-type") ?? "";
      if (type.includes("multipart/form-data")) {
        const form = await req.formData();
        for (const [k, v] of form.entries()) body[k] = typeof v === "string" ? v : { name: (v as File).name, size: (v as File).size };
      } else if (type.includes("json")) body = await req.json().catch(() => ({}));
      fake.calls.push({ method, body, at: Date.now() });
      if (m[1] !== token) return fail(401, "Unauthorized");
      const scripted = fake.script[method]?.shift();
      if (scripted) return Response.json(scripted[1], { status: scripted[0] });
      switch (method) {
        case "getMe":
          return ok({ id: bot.id, is_bot: true, first_name: "SCV", username: bot.username, can_join_groups: true, can_read_all_group_messages: false, supports_inline_queries: false });
        case "getUpdates":
          return getUpdates(body);
        case "sendMessage":
          return sendMessage(body);
        case "editMessageText":
          return ok(botMessage(String(body.chat_id), String(body.text ?? "")));
        case "sendChatAction":
        case "answerCallbackQuery":
          return ok(true);
        case "getFile": {
          const f = files.get(body.file_id);
          return f ? ok({ file_id: body.file_id, file_unique_id: `u${body.file_id}`, file_size: f.bytes.length, file_path: f.path }) : fail(400, "Bad Request: invalid file_id");
        }
        case "sendDocument":
        case "sendPhoto": {
          const msg = botMessage(String(body.chat_id), "");
          fake.sent.push({ chat_id: String(body.chat_id), text: `[${method} ${(body.document ?? body.photo)?.name}]`, message_id: msg.message_id, at: Date.now() });
          return ok(msg);
        }
        default:
          return fail(404, "Not Found");
      }
    },
  });

  Object.assign(fake, {
    url: `http://127.0.0.1:${server.port}`,
    token,
    bot,
    sent: [],
    calls: [],
    script: {},
    say(text: string, o: Parameters<FakeTelegram["say"]>[1] = {}) {
      const from = o.from ?? OWNER_ID;
      const chat = o.chat ?? from;
      const message_id = ++nextMessage;
      const message: Record<string, unknown> = {
        message_id,
        from: { id: from, is_bot: false, first_name: from === OWNER_ID ? "Owner" : "Someone", language_code: "en" },
        chat: chat < 0 ? { id: chat, title: "A group", type: o.type ?? "supergroup" } : { id: chat, first_name: "Owner", type: o.type ?? "private" },
        date: now(),
        text,
        ...(o.entities ? { entities: o.entities } : {}),
        ...(o.reply_to_bot ? { reply_to_message: botMessage(String(chat), "an earlier answer") } : {}),
        ...(o.extra ?? {}),
      };
      updates.push({ update_id: ++nextUpdate, message });
      wake();
      return message_id;
    },
    push(update: Record<string, unknown>) {
      updates.push({ update_id: ++nextUpdate, ...update });
      wake();
      return nextUpdate;
    },
    unconfirm() {
      confirmed = 0;
    },
    addFile(fileId: string, bytes: Uint8Array, path: string) {
      files.set(fileId, { bytes, path });
    },
    confirmedUpTo: () => confirmed,
    async close() {
      wake();
      await server.stop(true);
    },
  });
  return fake;
}
