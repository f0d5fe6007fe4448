// A streamed reply on Telegram: one message, sent once the reply has streamed for 1.5 s and edited as more comes, at most
// every 1.5 s in a private chat and every 3 s in a group (Telegram limits how fast a bot may edit). The text is
// plain while it streams (half-written markdown would not parse); the finished reply (send) turns the draft into
// its first part. Which message is the draft of which reply is kept on disk, so after a restart the reply (or
// the notice that the turn was interrupted) still replaces the draft instead of leaving it half-written.
import { join } from "node:path";
import { readBoundedTextIfExists } from "../../fs/safe-read";
import { writePrivateFileAtomic } from "../../fs/private-file";
import { type TelegramApi, TelegramError } from "./api";
import { Ignored, SentMessage } from "./wire";

const PRIVATE_EDIT_MS = 1500;
const GROUP_EDIT_MS = 3000;
/** A draft shows at most this much; the finished reply is split as usual. */
const DRAFT_CHARS = 4000;
/** Drafts remembered on disk (the newest); older ones are forgotten. */
const KEEP = 200;

interface Draft {
  chat: string;
  replyTo?: number;
  messageId?: number;
  latest: string;
  shown: string;
  lastAt: number;
  busy?: Promise<void>;
  timer?: ReturnType<typeof setTimeout>;
  closed?: boolean;
}

export class Drafts {
  private readonly live = new Map<string, Draft>();
  private readonly file: string;
  /** inReplyTo → the draft message, for drafts that got a message (kept across restarts). */
  private stored: Record<string, { chat: string; message_id: number }> = {};

  constructor(dir: string, private readonly log: (line: string) => void) {
    this.file = join(dir, "drafts.json");
    try {
      const raw = readBoundedTextIfExists(this.file, { what: "drafts", maxBytes: 1024 * 1024, followSymlink: false });
      if (raw) this.stored = JSON.parse(raw);
    } catch {
      this.stored = {};
    }
  }

  /** The newest text of the reply to `key`; shown now or at the next allowed edit. */
  update(api: TelegramApi, key: string, chat: string, replyTo: number | undefined, text: string): void {
    let d = this.live.get(key);
    if (!d) {
      const known = this.stored[key];
      // The first draft waits one edit interval: a reply finished by then goes out whole, with no draft at all.
      d = { chat, ...(replyTo ? { replyTo } : {}), ...(known ? { messageId: known.message_id } : {}), latest: "", shown: "", lastAt: Date.now() };
      this.live.set(key, d);
    }
    if (d.closed) return;
    d.latest = text.length > DRAFT_CHARS ? `${text.slice(0, DRAFT_CHARS)} …` : text;
    this.pump(api, key, d);
  }

  /** Stops streaming into the reply's draft and returns its message, if it has one (waits for an edit under way). */
  async close(key: string): Promise<{ chat: string; messageId: number } | undefined> {
    const d = this.live.get(key);
    if (d) {
      d.closed = true;
      clearTimeout(d.timer);
      await d.busy;
    }
    const id = d?.messageId ?? this.stored[key]?.message_id;
    const chat = d?.chat ?? this.stored[key]?.chat;
    return id !== undefined && chat !== undefined ? { chat, messageId: id } : undefined;
  }

  /** The reply went out: its draft is done with. */
  forget(key: string): void {
    this.live.delete(key);
    if (key in this.stored) {
      delete this.stored[key];
      this.save();
    }
  }

  private pump(api: TelegramApi, key: string, d: Draft): void {
    if (d.busy || d.timer || d.closed || d.latest === d.shown) return;
    const wait = d.lastAt + (d.chat.startsWith("-") ? GROUP_EDIT_MS : PRIVATE_EDIT_MS) - Date.now();
    if (wait > 0) {
      d.timer = setTimeout(() => {
        d.timer = undefined;
        this.pump(api, key, d);
      }, wait);
      return;
    }
    const text = d.latest;
    d.busy = (async () => {
      try {
        if (d.messageId === undefined) {
          const reply = d.replyTo ? { reply_parameters: { message_id: d.replyTo, allow_sending_without_reply: true } } : {};
          const m = await api.call("sendMessage", { chat_id: d.chat, text, ...reply }, SentMessage);
          d.messageId = m.message_id;
          this.stored[key] = { chat: d.chat, message_id: m.message_id };
          this.save();
        } else await api.call("editMessageText", { chat_id: d.chat, message_id: d.messageId, text }, Ignored);
        d.shown = text;
        d.lastAt = Date.now();
      } catch (e) {
        const wait = e instanceof TelegramError && e.status === 429 ? (e.retryAfter ?? 5) * 1000 : 0;
        d.lastAt = Date.now() + wait;
        if (!wait) {
          this.log(`a draft could not be shown: ${(e as Error).message}`);
          d.shown = text; // not tried again until more text comes
        }
      } finally {
        d.busy = undefined;
      }
      this.pump(api, key, d);
    })();
  }

  private save(): void {
    const keys = Object.keys(this.stored);
    for (const k of keys.slice(0, Math.max(0, keys.length - KEEP))) delete this.stored[k];
    try {
      writePrivateFileAtomic(this.file, JSON.stringify(this.stored));
    } catch (e) {
      this.log(`could not save the drafts: ${(e as Error).message}`);
    }
  }
}
