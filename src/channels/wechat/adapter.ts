// The WeChat channel over Tencent's iLink bot API. Receiving: the getupdates long poll, each batch durably
// queued before its cursor is saved, the login file watched so a new `scv channels login wechat` is picked
// up without a restart, and a stale token (-14) pausing the channel. Sending lives in ./sender.ts.
import { registerSecretSource } from "../../text/scrub";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import type { AdapterContext, ChannelAdapter, OutboundMessage, SendResult } from "../core/adapter";
import { sleep } from "../core/sleep";
import { IlinkClient, IlinkError } from "./api";
import { conversationOf, messageIdOf, toInbound } from "./inbound";
import { WechatSender } from "./sender";
import { loginFingerprint, readLogin, type LoginRecord, WechatStore } from "./store";
import { BaseResponse, GetUpdatesResponse, MessageType, type WeixinMessage } from "./wire";

export interface WechatOptions {
  scvHome: string;
  account: string;
  baseUrl: string;
  cdnBaseUrl: string;
  proxy?: string;
  /** Messages SCV may send after each of the person's, and for how long. */
  replyBudget: number;
  replyWindowMs: number;
  /** The outbox's attempts per message: a refused send is held before the outbox would give it up. */
  sendMaxAttempts: number;
  /** How often the login file is checked (tests shorten it). */
  loginCheckMs?: number;
  /** After a stale token, how long before the old login is tried again. */
  staleRetryMs?: number;
}

const LOGIN_HINT = "run `scv channels login wechat` on the machine that runs SCV";
const STALE_REASON = `the WeChat login expired (errcode -14); ${LOGIN_HINT} to log in again`;
const DEFAULT_POLL_MS = 35_000;
const MAX_BACKOFF_MS = 30_000;
const RECENT_IDS = 2000;

/** Doubling delay from 1 s, capped, with jitter (half to all of it) so many clients do not retry in step. */
export function backoffMs(failures: number, capMs = MAX_BACKOFF_MS): number {
  const full = Math.min(capMs, 1000 * 2 ** Math.max(0, failures - 1));
  return Math.round(full / 2 + Math.random() * (full / 2));
}

/**
 * Runs `fn` with a signal that aborts with `parent` or after `ms` (a TimeoutError). Made by hand rather than with
 * AbortSignal.any, so that months of polls leave no listener behind on the long-lived parent signal.
 */
async function bounded<T>(parent: AbortSignal, ms: number, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ac = new AbortController();
  const onAbort = () => ac.abort(parent.reason);
  parent.addEventListener("abort", onAbort, { once: true });
  const timer = setTimeout(() => ac.abort(new DOMException("the long poll timed out", "TimeoutError")), ms);
  try {
    if (parent.aborted) ac.abort(parent.reason);
    return await fn(ac.signal);
  } finally {
    clearTimeout(timer);
    parent.removeEventListener("abort", onAbort);
  }
}

export class WechatAdapter implements ChannelAdapter {
  readonly kind = "wechat";
  readonly account: string;
  /** The owner is whoever logged in (a platform user ID, not shown, like the rest of the login). */
  readonly loginCommand = "scv channels login wechat";
  private readonly store: WechatStore;
  private readonly sender: WechatSender;
  private login?: LoginRecord;
  private client?: IlinkClient;
  /** IDs taken in this process: a redelivery skips the download (the core dedupes across restarts). */
  private readonly recent = new Set<string>();
  private stale = false;
  private stopPoll?: AbortController;
  private ctx?: AdapterContext;

  constructor(private readonly opts: WechatOptions) {
    this.account = opts.account;
    this.store = new WechatStore(opts.scvHome, opts.account);
    this.sender = new WechatSender({
      store: this.store,
      replyBudget: opts.replyBudget,
      replyWindowMs: opts.replyWindowMs,
      sendMaxAttempts: opts.sendMaxAttempts,
      session: () => (this.client && this.login && !this.stale ? { client: this.client, owner: this.login.owner } : undefined),
      onStale: () => this.goStale(),
    });
  }

  get owner(): string {
    return (this.login ?? readLogin(this.opts.scvHome, this.account))?.owner ?? "";
  }

  ownerConversation(): string {
    return this.owner;
  }

  async connect(ctx: AdapterContext, signal: AbortSignal): Promise<void> {
    this.ctx = ctx;
    try {
      while (!signal.aborted) {
        const fingerprint = loginFingerprint(this.opts.scvHome, this.account);
        const login = readLogin(this.opts.scvHome, this.account);
        if (!login) {
          this.login = this.client = undefined;
          ctx.setState({ state: "logged_out", reason: `not logged in to WeChat; ${LOGIN_HINT}` });
          await this.waitForLogin(fingerprint, signal);
          continue;
        }
        if (this.stale) {
          ctx.setState({ state: "paused", reason: STALE_REASON });
          await this.waitForLogin(fingerprint, signal, this.opts.staleRetryMs ?? 3_600_000);
          this.stale = false;
          continue;
        }
        this.useLogin(login, ctx);
        await this.poll(ctx, signal, login, fingerprint);
      }
    } finally {
      this.sender.stopTyping();
      if (this.client && !this.stale) await this.client.post("msg/notifystop", {}, BaseResponse, AbortSignal.timeout(2000)).catch(() => {}); // a courtesy to the platform on stop; the stop goes on either way
    }
  }

  send(message: OutboundMessage): Promise<SendResult> {
    return this.sender.send(message);
  }

  typing(conversation: string, on: boolean): Promise<void> {
    return this.sender.typing(conversation, on);
  }

  private useLogin(login: LoginRecord, ctx: AdapterContext) {
    let base = this.opts.baseUrl;
    try {
      if (new URL(login.base_url).origin === new URL(base).origin) base = login.base_url;
      else ctx.log(`the login names ${new URL(login.base_url).origin}, not the configured base_url; using the configured one`);
    } catch {}
    this.login = login;
    // The bot token is a secret for everything this process keeps (session files, search results).
    registerSecretSource(`wechat/${this.account}`, () => [this.login?.bot_token]);
    this.client = new IlinkClient({ baseUrl: base, cdnBaseUrl: this.opts.cdnBaseUrl, proxy: this.opts.proxy }, login.bot_token);
  }

  /** Resolves when the login file changes, `signal` aborts, or `timeoutMs` passes; true on a change. */
  private async waitForLogin(fingerprint: string, signal: AbortSignal, timeoutMs = Number.POSITIVE_INFINITY): Promise<boolean> {
    const until = Date.now() + timeoutMs;
    while (!signal.aborted && Date.now() < until) {
      if (loginFingerprint(this.opts.scvHome, this.account) !== fingerprint) return true;
      await sleep(Math.min(this.opts.loginCheckMs ?? 1000, until - Date.now()), signal);
    }
    return false;
  }

  /** The long poll for one login; returns when it goes stale, the login file changes, or `signal` aborts. */
  private async poll(ctx: AdapterContext, signal: AbortSignal, login: LoginRecord, fingerprint: string): Promise<void> {
    const stop = new AbortController();
    this.stopPoll = stop;
    const watch = setInterval(() => {
      if (loginFingerprint(this.opts.scvHome, this.account) !== fingerprint) stop.abort();
    }, this.opts.loginCheckMs ?? 1000);
    const live = AbortSignal.any([signal, stop.signal]);
    const client = this.client!;
    try {
      await bounded(live, 10_000, (signal) => client.post("msg/notifystart", {}, BaseResponse, signal)).catch((e) => {
        if (e instanceof IlinkError && e.stale) this.goStale();
      });
      if (live.aborted) return;
      ctx.setState({ state: "connected" });
      ctx.release(); // anything held for a stale token or a logout may go now
      let cursor = this.store.cursor(login.bot_id);
      let pollMs = DEFAULT_POLL_MS;
      let failures = 0;
      while (!live.aborted) {
        let res;
        try {
          res = await bounded(live, pollMs + 5000, (signal) => client.post("getupdates", { get_updates_buf: cursor }, GetUpdatesResponse, signal));
        } catch (e) {
          if (live.aborted) break;
          if (e instanceof IlinkError && e.stale) {
            this.goStale();
            break;
          }
          if ((e as Error).name === "TimeoutError") continue; // a quiet long poll; the cursor stays
          failures++;
          const wait = backoffMs(failures);
          const why = `getupdates failed: ${(e as Error).message}; retrying in ${(wait / 1000).toFixed(1)} s (cursor kept)`;
          ctx.setState({ state: "connecting", reason: why });
          ctx.log(why);
          await sleep(wait, live);
          continue;
        }
        if (failures) {
          failures = 0;
          ctx.setState({ state: "connected" });
        }
        if (res.longpolling_timeout_ms) pollMs = Math.min(60_000, Math.max(1000, res.longpolling_timeout_ms));
        try {
          for (const msg of res.msgs) {
            if (live.aborted) break;
            await this.take(ctx, msg, live);
          }
        } catch (e) {
          if (!live.aborted) throw e; // the core could not queue it: the host reconnects, the batch comes again
        }
        // Only a batch queued in full moves the cursor: a stop or crash before this line means redelivery, and
        // redelivered messages are dropped as duplicates.
        if (live.aborted) break;
        if (res.get_updates_buf && res.get_updates_buf !== cursor) {
          cursor = res.get_updates_buf;
          this.store.saveCursor(login.bot_id, cursor);
        }
      }
    } finally {
      clearInterval(watch);
      this.stopPoll = undefined;
    }
  }

  private async take(ctx: AdapterContext, msg: WeixinMessage, signal: AbortSignal): Promise<void> {
    if (msg.message_type === MessageType.BOT) return; // SCV's own messages echoed back
    const id = messageIdOf(msg);
    const conversation = conversationOf(msg);
    if (!id || !conversation) return void ctx.log("skipped a message without an ID or sender");
    if (this.recent.has(id)) return;
    // The newest message's token and a fresh reply window, before the core releases what waited for it.
    this.store.inbound(conversation, id, msg.context_token, msg.create_time_ms);
    const tmp = join(this.store.dir, "incoming", randomBytes(6).toString("hex"));
    try {
      const inbound = await toInbound(msg, id, this.client!, tmp, signal);
      if (signal.aborted) return;
      await ctx.receive(inbound);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
    this.recent.add(id);
    if (this.recent.size > RECENT_IDS) this.recent.delete(this.recent.values().next().value!);
  }

  private goStale() {
    if (!this.stale) this.ctx?.log(`paused: ${STALE_REASON}`);
    this.stale = true;
    if (!this.store.staleSince) this.store.setStale(new Date().toISOString());
    this.ctx?.setState({ state: "paused", reason: STALE_REASON });
    this.stopPoll?.abort();
  }
}
