// Sending to WeChat: each outgoing message as parts (text chunks, then files through the encrypted CDN
// upload), always with the conversation's latest context_token, within the reply window's budget. A part the
// platform accepted is never sent again (progress is saved per part); `ret != 0` is a failure, retried and
// then held until the person writes again; a stale token pauses the channel and keeps the message.
import { readBoundedBytes } from "../../fs/safe-read";
import type { OutboundMessage, SendResult } from "../core/adapter";
import { type IlinkClient, IlinkError } from "./api";
import { uploadMedia } from "./cdn";
import { mediaItem, type Part, partsOf, textItem, uploadTypeOf } from "./outbound";
import type { SendProgress, WechatStore } from "./store";
import { GetConfigResponse, BaseResponse, type MessageItem, MessageState, MessageType, TypingStatus } from "./wire";

export interface SenderOptions {
  store: WechatStore;
  replyBudget: number;
  replyWindowMs: number;
  sendMaxAttempts: number;
  /** The logged-in client and owner, or undefined while logged out or paused. */
  session(): { client: IlinkClient; owner: string } | undefined;
  onStale(): void;
}

/** Refused tries before a message is held for the person's next message (within the outbox's attempts). */
const REFUSED_TRIES = 3;
const TYPING_REFRESH_MS = 5000;
const TYPING_MAX_MS = 600_000;
const TICKET_MS = 600_000;
const MAX_OUTBOUND_FILE = 100 * 1048576;

export const MORE_WAITING =
  "[More from SCV is waiting: WeChat lets a bot send only a few messages after each of yours. Write anything to get the rest.]";

export class WechatSender {
  private readonly tickets = new Map<string, { ticket: string; at: number }>();
  private readonly typingTimers = new Map<string, ReturnType<typeof setInterval>>();

  constructor(private readonly opts: SenderOptions) {}

  async send(message: OutboundMessage): Promise<SendResult> {
    const session = this.opts.session();
    if (!session) return { status: "held", reason: "WeChat is not connected (logged out or the login expired)" };
    const { store } = this.opts;
    const conversation = message.conversation;
    if (!store.context(conversation).token) {
      return { status: "held", reason: "WeChat delivers a bot's message only after the person wrote to it; it goes out when they do" };
    }
    let progress = store.sendProgress(message.idempotencyKey);
    if (progress.complete) return { status: "sent" };
    const staleSince = conversation === session.owner && progress.done === 0 ? store.staleSince : undefined;
    const text = staleSince ? `${staleNotice(staleSince)}\n\n${message.text}` : message.text;
    const parts = partsOf(text, message.files);
    for (let i = progress.done; i < parts.length; i++) {
      const ctx = store.context(conversation);
      const open = ctx.lastInbound !== undefined && Date.now() - ctx.lastInbound < this.opts.replyWindowMs;
      const remaining = open ? this.opts.replyBudget - ctx.sent : 0;
      if (remaining <= 0) return { status: "held", reason: "the WeChat reply window is used up; it goes out when the person writes again" };
      if (remaining === 1) {
        // The last message of the window says that more is waiting; everything else waits for the person.
        if (!ctx.noticeSent) {
          try {
            await this.sendItem(session.client, conversation, ctx.token!, textItem(MORE_WAITING), `${message.idempotencyKey}-more`);
            store.updateContext(conversation, { sent: ctx.sent + 1, noticeSent: true });
          } catch (e) {
            if (e instanceof IlinkError && e.stale) this.opts.onStale();
          }
        }
        return { status: "held", reason: "the WeChat reply budget is used up; it goes out when the person writes again" };
      }
      try {
        await this.sendPart(session.client, conversation, ctx.token!, parts[i]!, `${message.idempotencyKey}-${i + 1}`);
      } catch (e) {
        return this.failed(message, progress, e as Error);
      }
      store.updateContext(conversation, { sent: store.context(conversation).sent + 1 });
      progress = { ...progress, done: i + 1 };
      store.setProgress(message.idempotencyKey, progress);
    }
    store.setProgress(message.idempotencyKey, { ...progress, complete: true });
    if (staleSince) store.setStale(undefined);
    return { status: "sent" };
  }

  async typing(conversation: string, on: boolean): Promise<void> {
    clearInterval(this.typingTimers.get(conversation));
    this.typingTimers.delete(conversation);
    const session = this.opts.session();
    if (!session) return;
    if (!on) return this.sendTyping(session.client, conversation, TypingStatus.CANCEL);
    await this.sendTyping(session.client, conversation, TypingStatus.TYPING);
    const started = Date.now();
    const timer = setInterval(() => {
      const s = this.opts.session();
      if (!s || Date.now() - started > TYPING_MAX_MS) return void (clearInterval(timer), this.typingTimers.delete(conversation));
      void this.sendTyping(s.client, conversation, TypingStatus.TYPING).catch(() => {}); // typing is a courtesy: a refused one changes nothing the person gets
    }, TYPING_REFRESH_MS);
    this.typingTimers.set(conversation, timer);
  }

  stopTyping(): void {
    for (const t of this.typingTimers.values()) clearInterval(t);
    this.typingTimers.clear();
  }

  private async sendTyping(client: IlinkClient, conversation: string, status: number): Promise<void> {
    const token = this.opts.store.context(conversation).token;
    let cached = this.tickets.get(conversation);
    if (!cached || Date.now() - cached.at > TICKET_MS) {
      const config = await client.post("getconfig", { ilink_user_id: conversation, ...(token ? { context_token: token } : {}) }, GetConfigResponse, AbortSignal.timeout(10_000));
      if (!config.typing_ticket) return;
      cached = { ticket: config.typing_ticket, at: Date.now() };
      this.tickets.set(conversation, cached);
    }
    await client.post("sendtyping", { ilink_user_id: conversation, typing_ticket: cached.ticket, status }, BaseResponse, AbortSignal.timeout(10_000));
  }

  private failed(message: OutboundMessage, progress: SendProgress, error: Error): SendResult {
    if (error instanceof IlinkError && error.stale) {
      this.opts.onStale();
      return { status: "held", reason: "the WeChat login expired" };
    }
    const failures = progress.failures + 1;
    this.opts.store.setProgress(message.idempotencyKey, { ...progress, failures });
    const limit = Math.max(1, Math.min(REFUSED_TRIES, this.opts.sendMaxAttempts - 1));
    if (error instanceof IlinkError && failures >= limit) {
      // The window has most likely closed: hold this and what follows until the person writes again.
      this.opts.store.updateContext(message.conversation, { sent: this.opts.replyBudget });
      return { status: "held", reason: `${error.message}; it goes out when the person writes again` };
    }
    return { status: "retry", error: error.message };
  }

  private async sendPart(client: IlinkClient, conversation: string, token: string, part: Part, clientId: string): Promise<void> {
    if (part.kind === "text") return this.sendItem(client, conversation, token, textItem(part.text), clientId);
    const bytes = readBoundedBytes(part.file.path, { what: "file to send", maxBytes: MAX_OUTBOUND_FILE });
    const type = uploadTypeOf(part.file.name);
    const uploaded = await uploadMedia(client, bytes, type, conversation, AbortSignal.timeout(300_000));
    await this.sendItem(client, conversation, token, mediaItem(type, part.file.name, uploaded), clientId);
  }

  private async sendItem(client: IlinkClient, conversation: string, token: string, item: MessageItem, clientId: string): Promise<void> {
    const msg = {
      from_user_id: "",
      to_user_id: conversation,
      client_id: clientId,
      message_type: MessageType.BOT,
      message_state: MessageState.FINISH,
      item_list: [item],
      context_token: token,
    };
    await client.post("sendmessage", { msg }, BaseResponse, AbortSignal.timeout(60_000));
  }
}

function staleNotice(since: string): string {
  return `[SCV's WeChat login expired at ${since.slice(0, 16).replace("T", " ")} UTC and the channel was paused until it was renewed; what waited meanwhile follows. If it happens again, run \`scv channels login wechat\` on the machine that runs SCV.]`;
}
