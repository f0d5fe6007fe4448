// The chat bridge inside the daemon: runs each configured adapter (reconnecting with backoff), feeds its
// messages to the conversations, runs the outbox, expires old media, and reports each channel's state.
import { daemonHooks } from "../daemon-hooks";
import { mediaRoot } from "../../chatlog/paths";
import type { Config } from "../../config/schema";
import type { Button, ChannelAdapter, ChannelState } from "./adapter";
import { type ChannelRuntime, type ConversationOptions, Conversations, type ScheduledTurn } from "./conversations";
import { channelStateDir, InboundStore } from "./inbound";
import { expireMedia } from "./media";
import { Outbox } from "./outbox";
import type { LiveHub } from "./live";
import { sleep } from "./sleep";

export interface ChannelStatus {
  name: string;
  kind: string;
  account: string;
  state: ChannelState["state"];
  reason?: string;
  inbound_queued: number;
  outbound_pending: number;
  outbound_held: number;
  outbound_failed: number;
  last_error?: string;
}

export interface HostOptions {
  scvHome: string;
  config: Config;
  env: NodeJS.ProcessEnv;
  adapters: ChannelAdapter[];
  log(line: string): void;
  /** Where the web page watches the sessions and answers approvals, when it is served. */
  live?: LiveHub;
  /** A schedule's fire queued in a conversation ended (src/schedules keeps its outcome). */
  scheduleSettled?(fireId: string, outcome: "answered" | "failed" | "interrupted", note?: string, reply?: string): void;
  /** Answers approval cards of sessions the daemon does not host (channels/away-cards.ts). */
  cardReply?: ConversationOptions["cardReply"];
  cardPress?: ConversationOptions["cardPress"];
}

/** A configured channel as schedules see it: where its owner is, and whether it can send now. */
export interface OwnerChannel {
  /** `<kind>/<account>` */
  key: string;
  ownerConversation: string;
  state: ChannelState;
}

interface Running extends ChannelRuntime {
  state: ChannelState;
  lastError?: string;
  /** Receives run one at a time per channel, so a duplicate can never slip in beside its original. */
  chain: Promise<void>;
}

const MEDIA_SWEEP_MS = 3_600_000;

export class ChannelHost {
  private readonly channels = new Map<string, Running>();
  private readonly outbox: Outbox;
  private readonly conversations: Conversations;
  private readonly abort = new AbortController();
  private readonly tasks: Promise<void>[] = [];
  private sweepTimer?: ReturnType<typeof setInterval>;

  constructor(private readonly opts: HostOptions) {
    const hooks = daemonHooks(opts.config, opts.env, opts.log);
    this.outbox = new Outbox({
      scvHome: opts.scvHome,
      maxAttempts: opts.config.channels.send_max_attempts,
      retryBaseMs: opts.config.channels.send_retry_seconds * 1000,
      adapter: (key) => this.channels.get(key)?.adapter,
      ready: (key) => this.channels.get(key)?.state.state === "connected",
      log: opts.log,
      onSettled: (r) => {
        if (r.state !== "failed") return;
        // The user's ChatUndeliverable hooks: the reply is lost to the chat, so the owner may want it elsewhere.
        hooks.fire("ChatUndeliverable", { channel: r.channel, conversation: r.conversation, message_id: r.id, text: r.text.slice(0, 4000), files: r.files.length, attempts: r.attempts, error: r.lastError ?? "" });
      },
    });
    this.conversations = new Conversations({
      scvHome: opts.scvHome,
      config: opts.config,
      env: opts.env,
      outbox: this.outbox,
      log: opts.log,
      ...(opts.live ? { live: opts.live } : {}),
      ...(opts.scheduleSettled ? { scheduleSettled: opts.scheduleSettled } : {}),
      ...(opts.cardReply ? { cardReply: opts.cardReply } : {}),
      ...(opts.cardPress ? { cardPress: opts.cardPress } : {}),
      budgetReached: (input) => hooks.fire("BudgetReached", input),
    });
    for (const adapter of opts.adapters) {
      const key = `${adapter.kind}/${adapter.account}`;
      const inbound = new InboundStore(channelStateDir(opts.scvHome, adapter.kind, adapter.account), (line) => opts.log(`${key}: ${line}`));
      this.channels.set(key, { key, adapter, inbound, state: { state: "connecting" }, chain: Promise.resolve() });
    }
  }

  start(): void {
    this.sweepMedia();
    this.sweepTimer = setInterval(() => this.sweepMedia(), MEDIA_SWEEP_MS);
    for (const ch of this.channels.values()) {
      this.conversations.recover(ch);
      this.tasks.push(this.runAdapter(ch));
    }
    this.tasks.push(this.outbox.run(this.abort.signal));
  }

  busy(): number {
    return this.conversations.busy();
  }

  /** A planned stop began: queued messages wait for the next start. */
  pause(): void {
    this.conversations.pause();
  }

  async stop(): Promise<void> {
    clearInterval(this.sweepTimer);
    this.conversations.pause();
    this.abort.abort();
    await this.conversations.close();
    await Promise.allSettled(this.tasks);
  }

  status(): ChannelStatus[] {
    return [...this.channels.values()].map((ch) => {
      const out = this.outbox.counts(ch.key);
      const lastError = out.last_error ?? ch.lastError;
      return {
        name: ch.adapter.kind,
        kind: ch.adapter.kind,
        account: ch.adapter.account,
        state: ch.state.state,
        ...("reason" in ch.state ? { reason: ch.state.reason } : {}),
        inbound_queued: ch.inbound.list().length,
        outbound_pending: out.pending,
        outbound_held: out.held,
        outbound_failed: out.failed,
        ...(lastError ? { last_error: lastError } : {}),
      };
    });
  }

  /** The running adapter of a channel (`<kind>/<account>`), if configured. */
  adapter(key: string): ChannelAdapter | undefined {
    return this.channels.get(key)?.adapter;
  }

  /** Every configured channel with its owner's conversation (empty when no owner is set) and its state. */
  ownerChannels(): OwnerChannel[] {
    return [...this.channels.values()].map((ch) => ({ key: ch.key, ownerConversation: ch.adapter.owner ? ch.adapter.ownerConversation() : "", state: ch.state }));
  }

  /** Queues a schedule's fire in a conversation of `channel`; false when no such channel is configured. */
  enqueueScheduled(channel: string, conversation: string, turn: ScheduledTurn): boolean {
    const ch = this.channels.get(channel);
    if (!ch) return false;
    this.conversations.receiveScheduled(ch, conversation, turn);
    return true;
  }

  scheduledPending(channel: string, fireId: string): boolean {
    const ch = this.channels.get(channel);
    return !!ch && this.conversations.scheduledPending(ch, fireId);
  }

  /** Queues an unprompted message in a conversation; the same `id` is queued once (also across restarts). */
  send(channel: string, conversation: string, text: string, id: string, notBefore?: number, buttons?: Button[][]): void {
    this.outbox.add({ id, channel, conversation, text, ...(notBefore ? { notBefore } : {}), ...(buttons?.length && this.channels.get(channel)?.adapter.buttons ? { buttons } : {}) });
  }

  private sweepMedia() {
    const removed = expireMedia(mediaRoot(this.opts.scvHome), this.opts.config.channels.keep_days);
    if (removed) this.opts.log(`channels: removed ${removed} media file(s) older than ${this.opts.config.channels.keep_days} days`);
  }

  private async runAdapter(ch: Running): Promise<void> {
    const signal = this.abort.signal;
    let delay = 1000;
    while (!signal.aborted) {
      ch.state = { state: "connecting" };
      try {
        await ch.adapter.connect(
          {
            receive: (message) => {
              const next = ch.chain.then(() => this.conversations.receive(ch, message));
              ch.chain = next.then(() => {}, () => {}); // the caller of receive() gets the failure through `next`; the chain only orders
              return next;
            },
            setState: (state) => {
              ch.state = state;
              if (state.state === "connected") {
                delay = 1000;
                this.outbox.wake();
              }
            },
            release: (conversation) => this.outbox.release(ch.key, conversation),
            log: (line) => this.opts.log(`channel ${ch.key}: ${line}`),
          },
          signal,
        );
      } catch (e) {
        ch.lastError = (e as Error).message;
        this.opts.log(`channel ${ch.key}: ${ch.lastError}; reconnecting in ${delay / 1000} s`);
      }
      if (signal.aborted) break;
      await sleep(delay, signal); // a stop must not wait out a backoff of up to a minute
      delay = Math.min(delay * 2, 60_000);
    }
    ch.state = { state: "stopped" };
  }
}
