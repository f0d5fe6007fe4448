// The Telegram channel: the Bot API's long polling (getUpdates). Each update is handed to the core and only
// once it is durably queued does the next getUpdates carry an offset past it, so a crash re-reads it and the
// core's seen log drops the repeat. Replies are split and rendered as HTML (format.ts); each part sent is
// remembered, so a retried reply never repeats a part. 401 (bad token) and 409 (another poller, or a webhook)
// stop the channel with the reason; 429 is waited out for as long as Telegram says.
import { join } from "node:path";
import { ensurePrivateDir, tryUnlink, writePrivateFileAtomic } from "../../fs/private-file";
import { MiB, readBoundedBytes } from "../../fs/safe-read";
import { registerSecretSource } from "../../text/scrub";
import type { TelegramChannelConfig } from "../../config/schema";
import type { AdapterContext, ButtonOutcome, ChannelAdapter, InboundFile, OutboundMessage, SendResult } from "../core/adapter";
import { MAX_INBOUND_FILE, safeFileName } from "../core/media";
import { SeenLog } from "../core/seen-log";
import { sleep } from "../core/sleep";
import { TelegramApi, TelegramError } from "./api";
import { Drafts } from "./drafts";
import { splitText, toHtml } from "./format";
import { type Bot, type FileToFetch, messageIdOf, pairingCode, readMessage } from "./inbound";
import { saveOwner, storedOwner, takePairingCode, telegramDir } from "./store";
import { type CallbackQuery, File, Ignored, SentMessage, Update, UpdateId, UpdateList, User } from "./wire";

/** Seconds one getUpdates waits for news. */
const POLL_SECONDS = 25;
/** The longest 429 wait honoured inside one send; a longer one becomes a retry of the whole message later. */
const MAX_FLOOD_WAIT_S = 120;
/** Telegram's cloud Bot API hands out files up to 20 MB; a self-hosted server more. */
const CLOUD_FILE_LIMIT = 20 * 1000 * 1000;
const IMAGE = /\.(png|jpe?g|gif|webp)$/i;
const TYPING_EVERY_MS = 4000;
/** Consecutive 409 answers to getUpdates, CONFLICT_WAIT_MS apart, that stop the channel. */
const CONFLICTS_TO_STOP = 3;
const CONFLICT_WAIT_MS = 3000;
const PARSE_ERROR = /can't parse entities|unsupported start tag|can't find end tag/i;

export class TelegramAdapter implements ChannelAdapter {
  readonly kind = "telegram";
  readonly account: string;
  readonly ownerHint = "no owner is paired, so every Telegram chat is tool-free: run `scv channels telegram pair` and send the bot /start CODE from your own account";
  readonly where: string;
  readonly buttons = true;
  readonly approvals?: "ask";
  private readonly dir: string;
  private readonly downloadDir: string;
  private paired: string;
  private api?: TelegramApi;
  private bot?: Bot;
  private sent?: SeenLog;
  private drafts?: Drafts;
  private readonly typingTimers = new Map<string, ReturnType<typeof setInterval>>();

  constructor(
    private readonly cfg: TelegramChannelConfig,
    private readonly scvHome: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {
    this.account = cfg.account;
    this.dir = telegramDir(scvHome, cfg.account);
    this.downloadDir = join(this.dir, "downloads");
    this.paired = storedOwner(scvHome, cfg.account);
    this.where = `token from $${cfg.token_env}`;
    if (cfg.approvals === "ask") this.approvals = "ask";
  }

  get owner(): string {
    return this.cfg.owner ?? this.paired;
  }

  /** A private chat's ID is the person's user ID. */
  ownerConversation(): string {
    return this.owner;
  }

  async connect(ctx: AdapterContext, signal: AbortSignal): Promise<void> {
    const token = this.env[this.cfg.token_env] ?? "";
    if (!token) return this.stopped(ctx, signal, `no bot token: set ${this.cfg.token_env} to the token @BotFather gave (or name another variable in [channels.telegram] token_env)`);
    registerSecretSource(`telegram/${this.account}`, () => [token]);
    const api = new TelegramApi({ baseUrl: this.cfg.base_url, token, ...(this.cfg.proxy ? { proxy: this.cfg.proxy } : {}) });
    let me: User;
    try {
      me = await api.call("getMe", {}, User, { signal });
    } catch (e) {
      if (signal.aborted) return;
      const fatal = fatalReason(e, this.cfg.token_env);
      if (fatal) return this.stopped(ctx, signal, fatal);
      ctx.setState({ state: "connecting", reason: (e as Error).message });
      throw e;
    }
    this.bot = { id: me.id, username: me.username ?? "" };
    this.api = api;
    ensurePrivateDir(this.dir);
    this.sent ??= new SeenLog(join(this.dir, "sent.jsonl"), { keep: 20_000, idsPerRecord: 1, what: "sent parts log", maxBytes: 16 * MiB });
    this.drafts ??= new Drafts(this.dir, ctx.log);
    ctx.setState({ state: "connected" });
    ctx.log(`polling as @${this.bot.username}`);
    await this.poll(api, ctx, signal);
  }

  /** Says why the channel cannot run and waits for the daemon to stop (a restart reads the config again). */
  private async stopped(ctx: AdapterContext, signal: AbortSignal, reason: string): Promise<void> {
    ctx.setState({ state: "paused", reason });
    ctx.log(`stopped: ${reason}`);
    await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve(), { once: true })));
  }

  private async poll(api: TelegramApi, ctx: AdapterContext, signal: AbortSignal): Promise<void> {
    let offset: number | undefined;
    let conflicts = 0;
    while (!signal.aborted) {
      let updates: unknown[];
      try {
        updates = await api.call("getUpdates", { ...(offset !== undefined ? { offset } : {}), timeout: POLL_SECONDS, allowed_updates: ["message", "callback_query"] }, UpdateList, { signal, timeoutMs: (POLL_SECONDS + 15) * 1000 });
        conflicts = 0;
      } catch (e) {
        if (signal.aborted) return;
        // A 409 can be a daemon that is just stopping (its last poll): only a conflict that persists stops the channel.
        if (e instanceof TelegramError && e.status === 409 && ++conflicts < CONFLICTS_TO_STOP) {
          ctx.log(`${e.message}; trying again in ${CONFLICT_WAIT_MS / 1000} s`);
          await sleep(CONFLICT_WAIT_MS, signal);
          continue;
        }
        const fatal = fatalReason(e, this.cfg.token_env);
        if (fatal) return this.stopped(ctx, signal, fatal);
        if (e instanceof TelegramError && e.status === 429) {
          await sleep((e.retryAfter ?? 5) * 1000, signal);
          continue;
        }
        throw e;
      }
      for (const raw of updates) {
        const id = UpdateId.safeParse(raw);
        if (!id.success) {
          ctx.log("an update without an update_id was skipped");
          continue;
        }
        // Throws only when it cannot be queued: the offset stays before it, so it is read again.
        await this.handle(raw, ctx);
        offset = id.data.update_id + 1;
      }
    }
  }

  private async handle(raw: unknown, ctx: AdapterContext): Promise<void> {
    const parsed = Update.safeParse(raw);
    const updateId = (raw as { update_id: number }).update_id;
    if (!parsed.success) return ctx.log(`update ${updateId} is malformed and was skipped: ${parsed.error.issues.slice(0, 2).map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
    const u = parsed.data;
    if (u.callback_query) return this.pressed(u.callback_query, ctx);
    const m = u.message;
    if (!m) return ctx.log(`update ${updateId} carries nothing SCV reads; skipped`);
    const code = pairingCode(m);
    if (code !== undefined) return this.pair(m.from?.id, m.chat.id, code, ctx);
    const read = readMessage(this.bot!, m);
    if ("skip" in read) return ctx.log(`update ${updateId}: ${read.skip}; not answered`);
    if (this.cfg.allowed_users.length && read.from !== this.owner && !this.cfg.allowed_users.includes(read.from)) {
      return ctx.log(`update ${updateId}: user ${read.from} is not in [channels.telegram] allowed_users; not answered`);
    }
    const downloaded: string[] = [];
    try {
      const files = await this.fetchFiles(read.files, updateId, downloaded, ctx);
      await ctx.receive({ id: read.id, conversation: read.conversation, from: read.from, direct: read.direct, text: read.text, files, ...(read.quote ? { quote: read.quote } : {}) });
    } finally {
      for (const p of downloaded) tryUnlink(p);
    }
  }

  /**
   * A button pressed on a card: the core answers the question or approval (or says it no longer waits); the
   * press is acknowledged (Telegram shows a spinner until then) and the card edited to say what was chosen,
   * its buttons gone.
   */
  private async pressed(q: CallbackQuery, ctx: AdapterContext): Promise<void> {
    const m = q.message;
    let outcome: ButtonOutcome | void = { stale: "SCV is no longer waiting for this." };
    if (m && q.data) {
      const direct = m.chat.type === "private";
      outcome = await ctx.receive({ id: `cb:${q.id}`, conversation: String(m.chat.id), from: String(q.from.id), direct, text: "", files: [], answers: q.data });
    }
    const said = !outcome ? "SCV is no longer waiting for this." : "chosen" in outcome ? `Chosen: ${outcome.chosen}` : "stale" in outcome ? outcome.stale : outcome.refused;
    await this.api!.call("answerCallbackQuery", { callback_query_id: q.id, text: said }, Ignored).catch((e) => ctx.log(`could not acknowledge a button: ${(e as Error).message}`));
    if (!m || (outcome && "refused" in outcome)) return; // the card still waits for the owner
    const shown = m.text ?? m.caption ?? "";
    const mark = outcome && "chosen" in outcome ? `→ ${outcome.chosen}` : "(no longer waiting)";
    await this.api!.call("editMessageText", { chat_id: m.chat.id, message_id: m.message_id, text: `${shown}\n\n${mark}`.slice(0, 4096) }, Ignored).catch((e) => ctx.log(`could not update a card: ${(e as Error).message}`));
  }

  /** `/start CODE` in a private chat: the pending code makes its sender the owner, once. */
  private async pair(userId: number | undefined, chatId: number, code: string, ctx: AdapterContext): Promise<void> {
    if (userId === undefined) return;
    const result = this.cfg.owner ? "configured" : takePairingCode(this.scvHome, this.account, code);
    let answer: string;
    if (result === "paired") {
      saveOwner(this.scvHome, this.account, String(userId));
      this.paired = String(userId);
      ctx.log(`paired: user ${userId} is now the owner`);
      answer = "Paired: you are the owner of this SCV now. Your messages here get tools.";
    } else if (result === "configured") answer = "This bot's owner is set in SCV's configuration; pairing does not change it.";
    else {
      ctx.log(`a pairing attempt from user ${userId} failed (${result === "none" ? "no code is pending" : `the code is ${result}`})`);
      answer = result === "expired" ? "That pairing code has expired. Run `scv channels telegram pair` again." : "That is not a pairing code SCV is waiting for.";
    }
    await this.api!.call("sendMessage", { chat_id: chatId, text: answer }, SentMessage).catch((e) => ctx.log(`could not answer the pairing message: ${(e as Error).message}`));
  }

  private async fetchFiles(wanted: FileToFetch[], updateId: number, downloaded: string[], ctx: AdapterContext): Promise<InboundFile[]> {
    const files: InboundFile[] = [];
    const limit = /^https:\/\/api\.telegram\.org\/?$/.test(this.cfg.base_url) ? Math.min(CLOUD_FILE_LIMIT, MAX_INBOUND_FILE) : MAX_INBOUND_FILE;
    for (const f of wanted) {
      try {
        if (f.size && f.size > limit) throw new Error(`it is ${(f.size / 1e6).toFixed(1)} MB; a bot can fetch at most ${Math.round(limit / 1e6)} MB`);
        const info = await this.api!.call("getFile", { file_id: f.fileId }, File);
        if (!info.file_path) throw new Error("Telegram gave no file path for it");
        const bytes = await this.api!.download(info.file_path, limit);
        ensurePrivateDir(this.downloadDir);
        const path = join(this.downloadDir, `${updateId}-${files.length}-${safeFileName(f.name)}`);
        writePrivateFileAtomic(path, bytes);
        downloaded.push(path);
        files.push({ name: f.name, path, ...(f.kind === "voice" || f.kind === "audio" ? { voice: f.duration ? { seconds: f.duration } : {} } : {}) });
      } catch (e) {
        ctx.log(`update ${updateId}: could not fetch ${f.name}: ${(e as Error).message}`);
        files.push({ name: f.name, error: (e as Error).message, ...(f.kind === "voice" || f.kind === "audio" ? { voice: f.duration ? { seconds: f.duration } : {} } : {}) });
      }
    }
    return files;
  }

  async send(message: OutboundMessage): Promise<SendResult> {
    const api = this.api;
    const sent = this.sent;
    if (!api || !sent) return { status: "retry", error: "the Telegram channel is not connected yet" };
    const replyTo = messageIdOf(message.inReplyTo);
    try {
      // A streamed draft of this reply becomes its first part.
      const draft = message.inReplyTo ? await this.drafts?.close(message.inReplyTo) : undefined;
      const parts = splitText(message.text);
      const keyboard = message.buttons?.length ? { reply_markup: { inline_keyboard: message.buttons.map((row) => row.map((b) => ({ text: b.label, callback_data: b.data }))) } } : {};
      for (const [i, part] of parts.entries()) {
        const key = `${message.idempotencyKey}:${i}`;
        if (sent.has(key)) continue;
        const reply = { ...(i === 0 && replyTo ? { reply_parameters: { message_id: replyTo, allow_sending_without_reply: true } } : {}), ...(i === parts.length - 1 ? keyboard : {}) };
        if (i === 0 && draft && draft.chat === message.conversation) await this.finishDraft(api, draft.chat, draft.messageId, part, reply);
        else await this.sendText(api, message.conversation, part, reply);
        sent.add(key);
      }
      for (const [i, f] of message.files.entries()) {
        const key = `${message.idempotencyKey}:f${i}`;
        if (sent.has(key)) continue;
        await this.withFloodWait(() => this.sendFile(api, message.conversation, f.path, f.name));
        sent.add(key);
      }
      if (message.inReplyTo) this.drafts?.forget(message.inReplyTo);
      return { status: "sent" };
    } catch (e) {
      const err = e as TelegramError;
      if (!(err instanceof TelegramError) || err.retryable || err.status === 401) return { status: "retry", error: err.message };
      return { status: "refused", error: err.message };
    }
  }

  /** One part as HTML; when Telegram cannot parse the HTML, the same part as plain text (never a lost reply). */
  private async sendText(api: TelegramApi, chatId: string, part: string, reply: object): Promise<void> {
    const send = (body: Record<string, unknown>) => this.withFloodWait(() => api.call("sendMessage", { chat_id: chatId, link_preview_options: { is_disabled: true }, ...reply, ...body }, SentMessage));
    try {
      await send({ text: toHtml(part), parse_mode: "HTML" });
    } catch (e) {
      if (!(e instanceof TelegramError) || e.status !== 400 || !PARSE_ERROR.test(e.message)) throw e;
      await send({ text: part });
    }
  }

  /** The draft edited into the reply's first part (HTML, else plain); a draft that is gone gets a new message. */
  private async finishDraft(api: TelegramApi, chatId: string, messageId: number, part: string, reply: object): Promise<void> {
    const edit = (body: Record<string, unknown>) => this.withFloodWait(() => api.call("editMessageText", { chat_id: chatId, message_id: messageId, link_preview_options: { is_disabled: true }, ...body }, Ignored));
    try {
      try {
        await edit({ text: toHtml(part), parse_mode: "HTML" });
      } catch (e) {
        if (!(e instanceof TelegramError) || e.status !== 400 || !PARSE_ERROR.test(e.message)) throw e;
        await edit({ text: part });
      }
    } catch (e) {
      if (!(e instanceof TelegramError) || e.status !== 400) throw e;
      if (/message is not modified/i.test(e.message)) return;
      await this.sendText(api, chatId, part, reply); // deleted, too old to edit: the part goes as a new message
    }
  }

  private async sendFile(api: TelegramApi, chatId: string, path: string, name: string): Promise<void> {
    const bytes = readBoundedBytes(path, { what: "file to send", maxBytes: 50 * MiB, followSymlink: false });
    const photo = IMAGE.test(name) && bytes.length <= 10 * MiB;
    const form = new FormData();
    form.append("chat_id", chatId);
    form.append(photo ? "photo" : "document", new Blob([bytes]), name);
    await api.upload(photo ? "sendPhoto" : "sendDocument", form, SentMessage, { timeoutMs: 300_000 });
  }

  /** Runs a call, waiting out each 429 for the seconds Telegram names (up to MAX_FLOOD_WAIT_S). */
  private async withFloodWait<T>(call: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await call();
      } catch (e) {
        if (!(e instanceof TelegramError) || e.status !== 429 || attempt >= 5 || (e.retryAfter ?? 0) > MAX_FLOOD_WAIT_S) throw e;
        await Bun.sleep(Math.max(1, e.retryAfter ?? 1) * 1000);
      }
    }
  }

  draft(d: { conversation: string; inReplyTo: string; text: string }): void {
    if (this.api && this.drafts && this.cfg.stream) this.drafts.update(this.api, d.inReplyTo, d.conversation, messageIdOf(d.inReplyTo), d.text);
  }

  /** "typing…" lasts 5 s on Telegram: sent again every 4 s while a turn runs. */
  async typing(conversation: string, on: boolean): Promise<void> {
    const api = this.api;
    clearInterval(this.typingTimers.get(conversation));
    this.typingTimers.delete(conversation);
    if (!on || !api) return;
    const show = () => void api.call("sendChatAction", { chat_id: conversation, action: "typing" }, Ignored).catch(() => {});
    show();
    const timer = setInterval(show, TYPING_EVERY_MS);
    timer.unref?.();
    this.typingTimers.set(conversation, timer);
  }
}

/** A 401 or a 409: the channel cannot run until the user changes something; the reason says what. */
function fatalReason(e: unknown, tokenEnv: string): string | undefined {
  if (!(e instanceof TelegramError)) return undefined;
  if (e.status === 401 || e.status === 404)
    return `Telegram rejected the bot token (${e.status} Unauthorized): check ${tokenEnv} holds the token @BotFather gave (/token in @BotFather shows it), then restart the daemon`;
  if (e.status === 409)
    return `another program is reading this bot's updates, or a webhook is set (409 Conflict: ${e.message.replace(/^.*\(409: /, "").replace(/\)$/, "")}); stop the other poller or delete the webhook (deleteWebhook), then restart the daemon`;
  return undefined;
}
