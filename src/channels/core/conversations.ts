// Conversations: one SCV session per chat conversation, one turn at a time, queued messages in order, the
// `/new`, `/stop` and `/jobs` commands, background reports as unprompted messages, and every reply through
// the outbox. The owner's direct chat gets tools and auto_approve; anyone else a tool-free session.
import { homedir } from "node:os";
import { join } from "node:path";
import { ChatLog, type LoggedFile } from "../../chatlog/log";
import { conversationDirName, conversationLogDir, conversationMediaDir } from "../../chatlog/paths";
import { ensurePrivateDir, writePrivateFileAtomic } from "../../config/private-file";
import { readBoundedTextIfExists } from "../../config/safe-read";
import type { Config } from "../../config/schema";
import { createInProcessClient } from "../../server/in-process-client";
import type { Session } from "../../server/session";
import type { ChannelAdapter, InboundMessage, OutboundFile } from "./adapter";
import type { InboundStore, QueuedInbound } from "./inbound";
import { saveInboundFiles } from "./media";
import { interruptedNotice, jobsListing, jobsOf, promptFor, replyId, replyText, stoppedJobsNotice, type TurnEnd } from "./messages";
import type { Outbox } from "./outbox";

/** The most files one reply carries; the rest are reported as not sent. */
export const MAX_FILES_PER_REPLY = 8;

export interface ChannelRuntime {
  /** `<kind>/<account>` */
  key: string;
  adapter: ChannelAdapter;
  inbound: InboundStore;
}

interface Attachment {
  path: string;
  name: string;
  caption?: string;
}

interface Conversation {
  channel: ChannelRuntime;
  id: string;
  owner: boolean;
  log: ChatLog;
  mediaDir: string;
  stateFile: string;
  session?: Session;
  /** Sessions ended by /new whose background jobs still run; closed once those are reported. */
  retired: Session[];
  /** The queued message whose turn runs now. */
  running?: { record: QueuedInbound; sessionId: string; turnId?: string };
  pumping: boolean;
}

export interface ConversationOptions {
  scvHome: string;
  config: Config;
  env: NodeJS.ProcessEnv;
  outbox: Outbox;
  log(line: string): void;
}

export class Conversations {
  private readonly conversations = new Map<string, Conversation>();
  private readonly bySession = new Map<string, Conversation>();
  private readonly sessions = new Map<string, Session>();
  /** Turns running in each session (user and background ones). */
  private readonly activeTurns = new Map<string, Set<string>>();
  private readonly attachments = new Map<string, Attachment[]>();
  private readonly turnWaiters = new Map<string, (end: TurnEnd) => void>();
  private readonly endedEarly = new Map<string, TurnEnd>();
  private readonly client: ReturnType<typeof createInProcessClient>;
  private ready: Promise<void>;
  private accepting = true;
  private closing = false;
  private sweepTimer?: ReturnType<typeof setInterval>;

  constructor(private readonly opts: ConversationOptions) {
    this.client = createInProcessClient({
      env: opts.env,
      onSession: (s) => this.sessions.set(s.id, s),
      onNotification: (method, p) => this.onNotification(method, p),
    });
    this.ready = this.client.request("initialize", { protocol_version: 3, client: { name: "scv-chat-bridge" } }).then(() => undefined);
    this.sweepTimer = setInterval(() => void this.closeRetired(), 2000);
  }

  /** Running turns plus running background jobs, over every conversation (a planned stop waits for these). */
  busy(): number {
    let n = 0;
    for (const turns of this.activeTurns.values()) n += turns.size;
    for (const s of this.sessions.values()) n += jobsOf(s)?.running().length ?? 0;
    return n;
  }

  /** A planned stop began: no new turn starts (messages stay queued for the next start). */
  pause(): void {
    this.accepting = false;
  }

  /** Closes every session (cancelling what still runs; its queued message is reported after the restart). */
  async close(): Promise<void> {
    this.accepting = false;
    this.closing = true;
    clearInterval(this.sweepTimer);
    // Jobs still running now are stopped with their sessions: say so (durably, sent after the restart).
    for (const conv of this.conversations.values()) {
      const running = [conv.session, ...conv.retired].flatMap((s) => (s ? (jobsOf(s)?.running() ?? []) : []));
      if (!running.length) continue;
      this.reply(conv, undefined, stoppedJobsNotice(running), [], "system");
    }
    await this.client.closeAll();
  }

  /** After a restart: turns that were running are reported, not re-run; queued messages are processed. */
  recover(channel: ChannelRuntime): void {
    for (const record of channel.inbound.list()) {
      if (record.state !== "running") continue;
      const conv = this.conversation(channel, record.conversation, record.from, record.direct);
      const id = replyId(record);
      if (!this.opts.outbox.known(id)) {
        const text = interruptedNotice(record);
        this.opts.outbox.add({ id, channel: channel.key, conversation: record.conversation, text, inReplyTo: record.id });
        conv.log.add({ author: "system", text });
      }
      channel.inbound.remove(record);
    }
    const waiting = new Set(channel.inbound.list().map((r) => `${r.conversation}\u0000${r.from}\u0000${r.direct}`));
    for (const key of waiting) {
      const [conversation, from, direct] = key.split("\u0000") as [string, string, string];
      void this.pump(this.conversation(channel, conversation, from, direct === "true"));
    }
  }

  /** A new message from the adapter: dedupe, save its files, queue it durably, log it; resolves once queued. */
  receive(channel: ChannelRuntime, message: InboundMessage): void {
    if (channel.inbound.has(message.id)) return;
    const conv = this.conversation(channel, message.conversation, message.from, message.direct);
    const files = saveInboundFiles(message.files, conv.mediaDir);
    const record = channel.inbound.add({
      id: message.id,
      conversation: message.conversation,
      from: message.from,
      direct: message.direct,
      text: message.text,
      files,
      ...(message.quote ? { quote: message.quote } : {}),
      ...(message.transcript ? { transcript: message.transcript } : {}),
    });
    conv.log.add({
      author: conv.owner ? "owner" : "user",
      text: message.text,
      ...(message.quote ? { quote: message.quote } : {}),
      ...(files.length ? { files } : {}),
      ...(message.transcript ? { transcript: message.transcript } : {}),
    });
    this.opts.outbox.release(channel.key, message.conversation);
    const command = message.text.trim().toLowerCase();
    if (command === "/stop" || command === "/jobs") {
      channel.inbound.remove(record);
      void (command === "/stop" ? this.stop(conv, record) : this.jobs(conv, record));
      return;
    }
    void this.pump(conv);
  }

  private conversation(channel: ChannelRuntime, id: string, from: string, direct: boolean): Conversation {
    const key = `${channel.key}\u0000${id}`;
    let conv = this.conversations.get(key);
    if (conv) return conv;
    const place = { kind: channel.adapter.kind, account: channel.adapter.account, conversation: id };
    const stateDir = join(channel.inbound.dir, "conversations");
    ensurePrivateDir(stateDir);
    conv = {
      channel,
      id,
      owner: direct && from === channel.adapter.owner,
      log: new ChatLog(conversationLogDir(this.opts.config, this.opts.scvHome, place)),
      mediaDir: conversationMediaDir(this.opts.scvHome, place),
      stateFile: join(stateDir, `${conversationDirName(id)}.json`),
      retired: [],
      pumping: false,
    };
    this.conversations.set(key, conv);
    return conv;
  }

  /** Runs the conversation's queued messages one at a time, in order. */
  private async pump(conv: Conversation): Promise<void> {
    if (conv.pumping) return;
    conv.pumping = true;
    try {
      while (this.accepting) {
        const next = conv.channel.inbound.list().find((r) => r.conversation === conv.id && r.state === "queued");
        if (!next) break;
        try {
          await this.process(conv, next);
        } catch (e) {
          this.opts.log(`channel ${conv.channel.key}: message ${next.id} failed: ${(e as Error).message}`);
          this.reply(conv, next, `[SCV could not process this message: ${(e as Error).message}]`, []);
          conv.channel.inbound.remove(next);
        }
      }
    } finally {
      conv.pumping = false;
    }
  }

  private async process(conv: Conversation, record: QueuedInbound): Promise<void> {
    if (record.text.trim().toLowerCase() === "/new") {
      this.reply(conv, record, "Started a new conversation. The previous one stays in the chat log.", [], "system");
      conv.log.end(); // the acknowledgement closes the old episode
      if (conv.session) this.retire(conv);
      conv.channel.inbound.remove(record);
      return;
    }
    const session = await this.openSession(conv);
    record.state = "running";
    conv.channel.inbound.update(record); // from here a restart reports it instead of running it again
    conv.running = { record, sessionId: session.id };
    try {
      const { turn_id } = await this.client.request<{ turn_id: string }>("turn.start", { session_id: session.id, prompt: promptFor(record) });
      conv.running.turnId = turn_id;
      const end = await this.turnEnd(session.id, turn_id);
      // Cut off by the daemon stopping: the record stays `running`, so the next start reports it as interrupted.
      if (this.closing && end.status === "cancelled") return;
      const text = replyText(end);
      this.reply(conv, record, text, this.attachments.get(`${session.id}/${turn_id}`) ?? []);
      this.attachments.delete(`${session.id}/${turn_id}`);
    } finally {
      conv.running = undefined;
    }
    conv.channel.inbound.remove(record);
  }

  /** The session ID a conversation had before a restart, from its durable state. */
  private storedSessionId(conv: Conversation): string | undefined {
    try {
      const raw = readBoundedTextIfExists(conv.stateFile, { what: "conversation state", maxBytes: 64 * 1024, followSymlink: false });
      return raw ? (JSON.parse(raw) as { session_id?: string }).session_id : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * The conversation's session. After a restart the stored session ID names one this process no longer has:
   * a new session starts and the chat log carries on (resuming the stored session comes with durable sessions).
   */
  private async openSession(conv: Conversation): Promise<Session> {
    if (conv.session) return conv.session;
    await this.ready;
    const place = { kind: conv.channel.adapter.kind, account: conv.channel.adapter.account, conversation: conv.id };
    const previous = this.storedSessionId(conv);
    // Durable sessions (issue 13) will resume `previous` here; until then a new session starts and the
    // conversation's history lives on in the chat log.
    if (previous && !this.sessions.has(previous)) this.opts.log(`channel ${conv.channel.key}: starting a new session for a conversation that had ${previous}`);
    const { session_id } = await this.client.request<{ session_id: string }>("session.start", {
      cwd: this.opts.config.channels.workspace ?? this.opts.env.HOME ?? homedir(),
      tools: conv.owner,
      auto_approve: conv.owner,
      channel: { ...place, ...(conv.owner ? { log: conv.log.dir } : {}) },
    });
    const session = this.sessions.get(session_id)!;
    conv.session = session;
    this.bySession.set(session_id, conv);
    writePrivateFileAtomic(conv.stateFile, JSON.stringify({ conversation: conv.id, session_id, owner: conv.owner, started: new Date().toISOString() }));
    return session;
  }

  private retire(conv: Conversation) {
    const old = conv.session!;
    conv.session = undefined;
    conv.retired.push(old);
    void this.closeRetired();
  }

  /** Closes sessions ended by /new once nothing of theirs runs or waits to be reported. */
  private async closeRetired() {
    for (const conv of this.conversations.values()) {
      for (const s of [...conv.retired]) {
        const jobs = jobsOf(s);
        const pending = jobs ? jobs.list().some((j) => j.status === "running" || !j.seen) : false;
        if (pending || (this.activeTurns.get(s.id)?.size ?? 0) > 0 || s.scope.turns.busy()) continue;
        conv.retired.splice(conv.retired.indexOf(s), 1);
        await this.client.request("session.close", { session_id: s.id }).catch(() => {});
        this.sessions.delete(s.id);
        this.bySession.delete(s.id);
      }
    }
  }

  private async stop(conv: Conversation, record: QueuedInbound) {
    const session = conv.session;
    if (session && (this.activeTurns.get(session.id)?.size ?? 0) > 0) {
      await this.client.request("turn.cancel", { session_id: session.id }).catch(() => {});
      return; // the cancelled turn's own reply says it stopped
    }
    this.reply(conv, record, "Nothing is running in this conversation.", []);
  }

  private jobs(conv: Conversation, record: QueuedInbound) {
    this.reply(conv, record, jobsListing([conv.session, ...conv.retired]), []);
  }

  /** Queues a message in the outbox (and the log). `record` is the message it answers, if any. */
  private reply(conv: Conversation, record: QueuedInbound | undefined, text: string, attachments: Attachment[], author: "scv" | "system" = "scv") {
    const sent = attachments.slice(0, MAX_FILES_PER_REPLY);
    const dropped = attachments.slice(MAX_FILES_PER_REPLY);
    const captions = sent.filter((a) => a.caption).map((a) => `${a.name}: ${a.caption}`);
    const notSent = dropped.length ? [`[not sent, a reply carries at most ${MAX_FILES_PER_REPLY} files: ${dropped.map((a) => a.name).join(", ")}]`] : [];
    for (const a of dropped) this.opts.outbox.discard(a.path);
    const body = [text, ...captions, ...notSent].filter(Boolean).join("\n\n");
    const files: OutboundFile[] = sent.map((a) => ({ path: a.path, name: a.name }));
    this.opts.outbox.add({
      ...(record ? { id: replyId(record) } : {}),
      channel: conv.channel.key,
      conversation: conv.id,
      text: body,
      files,
      ...(record ? { inReplyTo: record.id } : {}),
    });
    const logged: LoggedFile[] = sent.map((a) => ({ name: a.name, state: "sent" }));
    conv.log.add({ author, text: body, ...(logged.length ? { files: logged } : {}) });
  }

  private turnEnd(sessionId: string, turnId: string): Promise<TurnEnd> {
    const key = `${sessionId}/${turnId}`;
    const early = this.endedEarly.get(key);
    if (early) {
      this.endedEarly.delete(key);
      return Promise.resolve(early);
    }
    return new Promise((resolve) => this.turnWaiters.set(key, resolve));
  }

  private onNotification(method: string, p: any) {
    const sessionId = p?.session_id as string | undefined;
    if (!sessionId) return;
    const conv = this.bySession.get(sessionId);
    const key = `${sessionId}/${p.turn_id}`;
    switch (method) {
      case "turn.started": {
        let turns = this.activeTurns.get(sessionId);
        if (!turns) this.activeTurns.set(sessionId, (turns = new Set()));
        turns.add(p.turn_id);
        if (conv) void conv.channel.adapter.typing?.(conv.id, true).catch(() => {});
        break;
      }
      case "tool.completed":
        if (p.chat_attachment) {
          const list = this.attachments.get(key) ?? [];
          list.push(p.chat_attachment as Attachment);
          this.attachments.set(key, list);
        }
        break;
      case "approval.requested":
        // Owner sessions approve unasked and others have no tools; nobody in a chat can answer a request.
        void this.client.request("approval.resolve", { session_id: sessionId, approval_id: p.approval_id, approved: false }).catch(() => {});
        break;
      case "turn.ended": {
        const turns = this.activeTurns.get(sessionId);
        turns?.delete(p.turn_id);
        if (conv && !turns?.size) void conv.channel.adapter.typing?.(conv.id, false).catch(() => {});
        const end = p as TurnEnd;
        const waiter = this.turnWaiters.get(key);
        if (waiter) {
          this.turnWaiters.delete(key);
          waiter(end);
        } else if (end.origin?.kind === "background") {
          if (conv) {
            this.reply(conv, undefined, replyText(end), this.attachments.get(key) ?? []);
            this.attachments.delete(key);
          }
        } else this.endedEarly.set(key, end);
        break;
      }
    }
  }
}

