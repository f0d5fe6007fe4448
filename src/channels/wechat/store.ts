// What the WeChat channel keeps in $SCV_HOME/state/channels/wechat/<account>/ (0700; files 0600, atomic):
//   login.json     the bot token, bot ID, base URL and owner's user ID from `scv channels login wechat`
//   cursor.json    the getupdates cursor, written only after the batch before it is durably queued
//   contexts.json  per conversation: the latest context_token and the reply window's budget
//   progress.json  per outgoing message: how many of its parts went out, and failed tries (no part twice)
import { statSync } from "node:fs";
import { join } from "node:path";
import type { z } from "zod";
import { lazySchema } from "../../lazy-schema";
import { ensurePrivateDir, tryUnlink, writePrivateFileAtomic } from "../../fs/private-file";
import { MiB, readBoundedTextIfExists } from "../../fs/safe-read";
import { channelStateDir } from "../core/inbound";

export const LoginRecord = lazySchema((z) => z.object({
  bot_token: z.string().min(1),
  bot_id: z.string().min(1),
  base_url: z.string().min(1),
  owner: z.string().min(1),
  saved_at: z.string(),
}));
export type LoginRecord = z.infer<typeof LoginRecord>;

export interface ConversationContext {
  token?: string;
  /** When the person last wrote (ms, on this machine's clock): the reply window runs from here. */
  lastInbound?: number;
  /** The platform's create time and ID of that message: an older one redelivered changes nothing. */
  lastCreated?: number;
  lastId?: string;
  /** Messages SCV sent since. */
  sent: number;
  /** The "more is waiting" notice went out in this window. */
  noticeSent?: boolean;
}

export interface SendProgress {
  /** Parts (text chunks, files) already accepted by the platform. */
  done: number;
  /** Tries answered with a failure; after a few the message is held until the person writes. */
  failures: number;
  /** Every part went out: a repeat of this message (a crash before the outbox noted it) sends nothing. */
  complete?: boolean;
  /** When this entry last changed (ms); entries older than a week are dropped, like the outbox's tombstones. */
  at?: number;
}

const PROGRESS_KEEP_MS = 7 * 86_400_000;

interface StoreState {
  contexts: Record<string, ConversationContext>;
  /** Set when the token went stale; the next message that reaches the owner says so. */
  staleSince?: string;
}

function wechatStateDir(scvHome: string, account: string): string {
  return channelStateDir(scvHome, "wechat", account);
}

function readJson(file: string, what: string): unknown {
  const text = readBoundedTextIfExists(file, { what, maxBytes: 16 * MiB, followSymlink: false });
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function loginFile(scvHome: string, account: string): string {
  return join(wechatStateDir(scvHome, account), "login.json");
}

export function readLogin(scvHome: string, account: string): LoginRecord | undefined {
  const parsed = LoginRecord.safeParse(readJson(loginFile(scvHome, account), "WeChat login"));
  return parsed.success ? parsed.data : undefined;
}

export function saveLogin(scvHome: string, account: string, login: LoginRecord): void {
  ensurePrivateDir(wechatStateDir(scvHome, account));
  writePrivateFileAtomic(loginFile(scvHome, account), JSON.stringify(login));
}

export function removeLogin(scvHome: string, account: string): boolean {
  return tryUnlink(loginFile(scvHome, account));
}

/** Changes whenever the login file is replaced or removed: how a running daemon notices a new login. */
export function loginFingerprint(scvHome: string, account: string): string {
  const st = statSync(loginFile(scvHome, account), { throwIfNoEntry: false });
  return st ? `${st.ino}:${st.mtimeMs}:${st.size}` : "none";
}

export class WechatStore {
  readonly dir: string;
  private state: StoreState;
  private progress: Record<string, SendProgress>;

  constructor(scvHome: string, account: string) {
    this.dir = wechatStateDir(scvHome, account);
    const raw = readJson(join(this.dir, "contexts.json"), "WeChat conversation state") as StoreState | undefined;
    this.state = raw && typeof raw === "object" && raw.contexts ? raw : { contexts: {} };
    this.progress = (readJson(join(this.dir, "progress.json"), "WeChat send progress") as Record<string, SendProgress> | undefined) ?? {};
    for (const [key, p] of Object.entries(this.progress)) if (Date.now() - (p.at ?? 0) > PROGRESS_KEEP_MS) delete this.progress[key];
  }

  /** The saved cursor, if it belongs to this bot (a new login starts from the platform's default). */
  cursor(botId: string): string {
    const raw = readJson(join(this.dir, "cursor.json"), "WeChat cursor") as { bot_id?: string; get_updates_buf?: string } | undefined;
    return raw?.bot_id === botId && typeof raw.get_updates_buf === "string" ? raw.get_updates_buf : "";
  }

  saveCursor(botId: string, cursor: string): void {
    this.write("cursor.json", JSON.stringify({ bot_id: botId, get_updates_buf: cursor }));
  }

  context(conversation: string): ConversationContext {
    return this.state.contexts[conversation] ?? { sent: 0 };
  }

  /** The person wrote: the newest token, and a fresh reply window (unless this is an older message again). */
  inbound(conversation: string, id: string, token: string | undefined, created: number | undefined, now = Date.now()): void {
    const prev = this.context(conversation);
    if (id === prev.lastId) return;
    if (created !== undefined && prev.lastCreated !== undefined && created < prev.lastCreated) return;
    this.state.contexts[conversation] = { token: token ?? prev.token, lastInbound: now, lastCreated: created ?? prev.lastCreated, lastId: id, sent: 0 };
    this.saveState();
  }

  updateContext(conversation: string, change: Partial<ConversationContext>): void {
    this.state.contexts[conversation] = { ...this.context(conversation), ...change };
    this.saveState();
  }

  get staleSince(): string | undefined {
    return this.state.staleSince;
  }

  setStale(since: string | undefined): void {
    if (since) this.state.staleSince = since;
    else delete this.state.staleSince;
    this.saveState();
  }

  sendProgress(key: string): SendProgress {
    return this.progress[key] ?? { done: 0, failures: 0 };
  }

  setProgress(key: string, progress: SendProgress): void {
    this.progress[key] = { ...progress, at: Date.now() };
    this.write("progress.json", JSON.stringify(this.progress));
  }

  private saveState() {
    this.write("contexts.json", JSON.stringify(this.state));
  }

  private write(name: string, data: string) {
    ensurePrivateDir(this.dir);
    writePrivateFileAtomic(join(this.dir, name), data);
  }
}
