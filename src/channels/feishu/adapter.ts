// The Feishu / Lark channel: events arrive over the SDK's long connection (WSClient); each push is written to
// a durable spool and acknowledged at once (the platform pushes again after 3 s), duplicates included; a
// worker turns spooled events into messages (downloading their files) for the core. Replies go out through
// the REST Client, every part with a `uuid` derived from its delivery record, so a retried send is one message.
import { registerSecretSource } from "../../text/scrub";
import { join } from "node:path";
import { ensurePrivateDir, tryUnlink, writePrivateFileAtomic } from "../../fs/private-file";
import { MiB, readBoundedBytes } from "../../fs/safe-read";
import type { AdapterContext, ChannelAdapter, InboundFile, InboundMessage, OutboundMessage, SendResult } from "../core/adapter";
import { channelStateDir } from "../core/inbound";
import { MAX_INBOUND_FILE, safeFileName } from "../core/media";
import { sleep } from "../core/sleep";
import { connectionError, FeishuApi, FeishuError, feishuError, type LarkSdk, loadSdk, partUuid, sdkLogger } from "./api";
import { type FeishuConfig, resolveFeishu } from "./credentials";
import { imageName, inboundContent, outboundParts } from "./render";
import { EventSpool, type SpooledEvent } from "./spool";
import { ellipsize } from "../../text/cut";

/** A download that fails for a reason that may pass is retried until the event is this old. */
const DOWNLOAD_PATIENCE_MS = 10 * 60_000;
const TYPING_EMOJI = "Typing";

export class FeishuAdapter implements ChannelAdapter {
  readonly kind = "feishu";
  readonly account: string;
  readonly owner: string;
  readonly ownerHint = "no owner is known, so every Feishu chat is tool-free: run `scv channels login feishu`, or set owner_open_id in [channels.feishu]";
  private readonly dir: string;
  private readonly downloadDir: string;
  private spool?: EventSpool;
  private api?: FeishuApi;
  private botOpenId = "";
  /** The newest message of each conversation, where the typing reaction goes. */
  private readonly lastMessage = new Map<string, string>();
  private readonly typingOn = new Map<string, { messageId: string; reactionId?: Promise<string | undefined> }>();

  constructor(
    private readonly cfg: FeishuConfig,
    private readonly scvHome: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {
    this.account = cfg.account;
    this.owner = resolveFeishu(cfg, scvHome, env).owner;
    this.dir = channelStateDir(scvHome, this.kind, cfg.account);
    this.downloadDir = join(this.dir, "downloads");
  }

  ownerConversation(): string {
    return this.owner; // a direct chat is addressed by the person's open_id
  }

  async connect(ctx: AdapterContext, signal: AbortSignal): Promise<void> {
    const resolved = resolveFeishu(this.cfg, this.scvHome, this.env);
    if (!resolved.creds) {
      ctx.setState({ state: "logged_out", reason: resolved.problem! });
      // A login while the daemon runs is picked up: look again every few seconds.
      while (!signal.aborted && !resolveFeishu(this.cfg, this.scvHome, this.env).creds) await sleep(3000, signal);
      return;
    }
    const creds = resolved.creds;
    const spool = (this.spool ??= new EventSpool(this.dir));
    const sdk = await loadSdk();
    const api = new FeishuApi(sdk, creds, ctx.log);
    try {
      this.botOpenId = (await api.botInfo()).openId;
    } catch (e) {
      const err = feishuError(e, creds.appId);
      ctx.setState({ state: "paused", reason: err.message });
      throw err;
    }
    this.api = api;
    const stop = new AbortController(); // the worker stops when the connection ends, for whatever reason
    const onAbort = () => stop.abort();
    signal.addEventListener("abort", onAbort, { once: true });
    const worker = spool.run(stop.signal, (event) => this.handOn(event, ctx), ctx.log);
    try {
      await this.listen(sdk, spool, ctx, signal);
    } finally {
      signal.removeEventListener("abort", onAbort);
      stop.abort();
      await worker;
    }
  }

  /** Runs the long connection until `signal` aborts; throws what makes it give up. */
  private async listen(sdk: LarkSdk, spool: EventSpool, ctx: AdapterContext, signal: AbortSignal): Promise<void> {
    const { appId, appSecret, baseUrl } = this.api!.creds;
    registerSecretSource(`feishu/${this.account}`, () => [appSecret]);
    let fail: (e: Error) => void = () => {};
    const failed = new Promise<never>((_, reject) => (fail = reject));
    failed.catch(() => {}); // it may reject while start() still runs; the race below reports it
    const ws = new sdk.WSClient({
      appId,
      appSecret,
      domain: baseUrl,
      logger: sdkLogger(ctx.log),
      loggerLevel: sdk.LoggerLevel.warn,
      autoReconnect: true,
      onReady: () => ctx.setState({ state: "connected" }),
      onReconnecting: () => ctx.setState({ state: "connecting" }),
      onReconnected: () => ctx.setState({ state: "connected" }),
      onError: (e: Error) => {
        const err = connectionError(e, appId);
        ctx.setState({ state: "paused", reason: err.message });
        fail(err);
      },
    });
    const dispatcher = new sdk.EventDispatcher({ logger: sdkLogger(ctx.log), loggerLevel: sdk.LoggerLevel.warn }).register({
      // Returns once the event is spooled: the SDK acknowledges then, well inside the 3-second rule.
      "im.message.receive_v1": async (data: any) => this.accept(data, spool, ctx),
    });
    const aborted = new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve(), { once: true })));
    try {
      await ws.start({ eventDispatcher: dispatcher });
      await Promise.race([aborted, failed]);
    } finally {
      ws.close({ force: true });
    }
  }

  /**
   * Spools one pushed event unless it is a repeat, from a bot, or a group message not for us; the SDK then
   * acknowledges it. Throws only when the event cannot be written: Feishu is told, and pushes it again.
   */
  private accept(data: any, spool: EventSpool, ctx: AdapterContext): void {
    const message = data?.message;
    const event: SpooledEvent = { event_id: String(data?.event_id ?? data?.uuid ?? ""), received: Date.now(), sender: data?.sender ?? {}, message };
    if (!message?.message_id || !event.event_id || spool.seenBefore(event)) return;
    if (event.sender.sender_type && event.sender.sender_type !== "user") return;
    if (message.chat_type !== "p2p" && !(message.mentions ?? []).some((m: any) => m?.id?.open_id === this.botOpenId)) return;
    try {
      spool.add(event);
    } catch (e) {
      ctx.log(`could not spool event ${event.event_id}: ${(e as Error).message}`); // not acknowledged as handled: Feishu pushes it again
      throw e;
    }
  }

  /** One spooled event to the core: its files downloaded, then durably queued there. */
  private async handOn(event: SpooledEvent, ctx: AdapterContext): Promise<void> {
    const downloaded: string[] = [];
    try {
      const message = await this.toInbound(event, downloaded);
      this.lastMessage.set(message.conversation, event.message.message_id); // before its turn can start
      await ctx.receive(message);
    } finally {
      for (const p of downloaded) tryUnlink(p);
    }
  }

  private async toInbound(event: SpooledEvent, downloaded: string[]): Promise<InboundMessage> {
    const m = event.message;
    const from = event.sender.sender_id?.open_id ?? "";
    const direct = m.chat_type === "p2p";
    const content = inboundContent(m.message_type, m.content, m.mentions ?? [], this.botOpenId);
    const files: InboundFile[] = [];
    for (const r of content.resources) {
      try {
        const bytes = await this.api!.download(m.message_id, r.key, r.type, MAX_INBOUND_FILE);
        ensurePrivateDir(this.downloadDir);
        const path = join(this.downloadDir, `${safeFileName(event.event_id)}-${files.length}`);
        writePrivateFileAtomic(path, bytes);
        downloaded.push(path);
        files.push({ name: r.type === "image" ? imageName(r.key, bytes) : r.name, path, ...(r.voice ? { voice: r.voice } : {}) });
      } catch (e) {
        const err = feishuError(e, this.api!.creds.appId);
        if (err.retryable && Date.now() - event.received < DOWNLOAD_PATIENCE_MS) throw err;
        files.push({ name: r.name, error: err.message, ...(r.voice ? { voice: r.voice } : {}) });
      }
    }
    const quote = m.parent_id ? await this.quoted(m.parent_id) : undefined;
    return { id: m.message_id, conversation: direct ? from : m.chat_id, from, direct, text: content.text, files, ...(quote ? { quote } : {}) };
  }

  /** The text of the message this one replies to; nothing when Feishu will not say (it is only context). */
  private async quoted(parentId: string): Promise<string | undefined> {
    try {
      const parent = await this.api!.message(parentId);
      const text = parent && inboundContent(parent.msgType, parent.content, [], this.botOpenId).text;
      return text ? ellipsize(text, 2000) : undefined;
    } catch {
      return undefined;
    }
  }

  async send(message: OutboundMessage): Promise<SendResult> {
    const api = this.api;
    if (!api) return { status: "retry", error: "the Feishu channel is not connected yet" };
    let part = 0;
    try {
      for (const p of outboundParts(message.text)) {
        const uuid = partUuid(message.idempotencyKey, part++);
        try {
          await api.create(message.conversation, p.msgType, p.content, uuid);
        } catch (e) {
          const err = feishuError(e, api.creds.appId);
          if (p.msgType !== "post" || err.kind !== "refused") throw err;
          await api.create(message.conversation, "text", { text: p.text }, `${uuid}t`); // a post Feishu cannot take goes as plain text
        }
      }
      for (const f of message.files) {
        const uuid = partUuid(message.idempotencyKey, part++);
        const bytes = readBoundedBytes(f.path, { what: "file to send", maxBytes: 30 * MiB, followSymlink: false });
        const upload = await api.upload(f.name, bytes);
        await api.create(message.conversation, upload.msgType, upload.content, uuid);
      }
      return { status: "sent" };
    } catch (e) {
      const err = e instanceof FeishuError ? e : feishuError(e, api.creds.appId);
      return err.retryable || err.kind === "auth" ? { status: "retry", error: err.message } : { status: "refused", error: err.message };
    }
  }

  /** A "Typing" reaction on the conversation's newest message while a turn runs. */
  async typing(conversation: string, on: boolean): Promise<void> {
    const api = this.api;
    if (!api) return;
    if (on) {
      const messageId = this.lastMessage.get(conversation);
      if (!messageId || this.typingOn.has(conversation)) return;
      const reactionId = api.addReaction(messageId, TYPING_EMOJI).catch(() => undefined); // no reaction id: typing is a courtesy, nothing to take off later
      this.typingOn.set(conversation, { messageId, reactionId });
      await reactionId;
      return;
    }
    const current = this.typingOn.get(conversation);
    if (!current) return;
    this.typingOn.delete(conversation);
    const id = await current.reactionId;
    if (id) await api.removeReaction(current.messageId, id);
  }
}
