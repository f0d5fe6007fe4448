// Conversations: one SCV session per chat conversation, one turn at a time, queued messages in order, the chat
// commands (commands.ts) dispatched, background reports as unprompted messages, and every reply through the outbox.
// Who gets what is access.ts: the owner's direct chat gets tools and auto_approve; anyone else a tool-free session,
// and a session is only ever used for the access it was opened for. Direct and group conversations are separate,
// even with equal IDs.
import { defaultChatWorkspace } from "../../user-home";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ChatLog, type LoggedFile, type LoggedTool } from "../../chatlog/log";
import { conversationDirName, conversationLogDir, conversationMediaDir } from "../../chatlog/paths";
import { ensurePrivateDir, writePrivateFileAtomic } from "../../fs/private-file";
import { readBoundedTextIfExists } from "../../fs/safe-read";
import type { Config } from "../../config/schema";
import type { HostedSession } from "../../server/hosted-session";
import type { Button, ButtonOutcome, ChannelAdapter, InboundMessage, OutboundFile } from "./adapter";
import { answerPress, approvalButtons, approvalText, cardToken, questionButtons, STALE_CARD } from "./cards";
import type { InboundStore, QueuedInbound } from "./inbound";
import { saveInboundFiles } from "./media";
import { hearVoice } from "./transcribe";
import { ACCESS_CHANGED, capInbound, failedMessageNotice, filesNotSentNotice, inboundImages, interruptedNotice, MAX_FILES_PER_REPLY, promptFor, questionText, rateLimitNotice, replyFor, replyId, replyText, stoppedJobsNotice, CANNOT_ANSWER_NOW, type TurnEnd } from "./messages";
import type { Outbox } from "./outbox";
import { openSessionStore } from "../../sessions/index";
import { type Attachment, SessionLink, type TurnResult } from "./sessions";
import { conversationRefusal } from "./usage";
import { type Access, accessFor, formerOwners, isOwner, sameAccess, SenderRate } from "./access";
import { answerFromText } from "../../tools/clarify";
import { type ChatCommandContext, chatCommand, commandArg, ownCommandPrompt } from "./commands";
import { TurnSlots } from "./turn-slots";
import type { ApprovalRequested, LiveHub } from "./live";

export interface ChannelRuntime {
  /** `<kind>/<account>` */
  key: string;
  adapter: ChannelAdapter;
  inbound: InboundStore;
}

interface Conversation {
  channel: ChannelRuntime;
  /** The platform's conversation ID (replies go there). */
  id: string;
  /** A direct chat; a group conversation with the same ID is another conversation. */
  direct: boolean;
  /** The access the current session (if any) was opened for. */
  access?: Access;
  log: ChatLog;
  mediaDir: string;
  stateFile: string;
  session?: HostedSession;
  /** Sessions ended by /new whose background jobs still run; closed once those are reported. */
  retired: HostedSession[];
  /** The queued message whose turn runs now, and its reply so far (streamed to adapters that show drafts). */
  running?: { record: QueuedInbound; sessionId: string; draft?: string };
  pumping: boolean;
  /** When a message last came in or a turn last ended (ms): an idle session is closed after session_idle_seconds. */
  lastActive: number;
  /** An idle session being closed: the next message waits for it, then resumes the session. */
  closing?: Promise<void>;
  /** The model's open question (clarify) to the owner: their next message answers it. */
  question?: { sessionId: string; clarifyId: string; choices: string[] };
  /** Approval cards waiting for a button, by card token (adapters with buttons and approvals "ask"). */
  cards: Map<string, { sessionId: string; answer(a: { approved: boolean; always?: boolean }): Promise<void> }>;
}

export interface ConversationOptions {
  scvHome: string;
  config: Config;
  env: NodeJS.ProcessEnv;
  outbox: Outbox;
  log(line: string): void;
  /** Where a watcher (the web page) sees the sessions' turns and answers approvals, when one is served. */
  live?: LiveHub;
  /** A short reply answering an approval card of another session (`y 3f2`): what to say back, else undefined. */
  cardReply?(who: { channel: string; from: string; owner: boolean }, text: string): string | undefined;
  /** A button pressed on such a card (data `w:<id>:y|a|n`). */
  cardPress?(who: { channel: string; from: string; owner: boolean }, data: string): ButtonOutcome | undefined;
  /** A schedule's fire queued here ended: answered (its reply is in the outbox), failed, or interrupted by a restart. */
  scheduleSettled?(fireId: string, outcome: "answered" | "failed" | "interrupted", note?: string, reply?: string): void;
  /** A conversation's own limit refused a message (the user's BudgetReached hooks). */
  budgetReached?(input: { message: string; channel: string; conversation: string }): void;
}

/** A schedule's fire as a turn of the owner's conversation (src/schedules). */
export interface ScheduledTurn {
  /** The fire's ID: the turn is queued at most once per ID, also across restarts. */
  id: string;
  schedule: string;
  prompt: string;
  /** What the chat log records in place of the prompt. */
  label: string;
  /** Put before the reply, so the owner reads which reminder it answers: `[SCV schedule sch-… “stretch”]`. */
  heading: string;
}

export class Conversations {
  private readonly conversations = new Map<string, Conversation>();
  private readonly bySession = new Map<string, Conversation>();
  private readonly sessions: SessionLink;
  /** Every channel seen, so a notice for the owner reaches their direct chat. */
  private readonly channels = new Map<string, ChannelRuntime>();
  private accepting = true;
  private closing = false;
  private sweepTimer?: ReturnType<typeof setInterval>;
  private readonly turnSlots: TurnSlots;
  private readonly senderRate = new SenderRate();
  /** Each channel's owner as last seen: a change drops every owner session of the channel. */
  private readonly knownOwner = new Map<string, string>();

  constructor(private readonly opts: ConversationOptions) {
    const events = {
      activity: (sessionId: string, busy: boolean) => {
        const conv = this.bySession.get(sessionId);
        // Typing is a courtesy: a platform that refuses it changes nothing the person gets.
        if (conv) void conv.channel.adapter.typing?.(conv.id, busy).catch(() => {});
      },
      unprompted: (sessionId: string, { end, attachments }: TurnResult) => {
        const conv = this.bySession.get(sessionId);
        if (conv) this.reply(conv, undefined, replyText(end), attachments);
      },
      limitReached: (message: string) => this.tellOwner(`SCV reached a spending limit: ${message}`),
      question: (sessionId: string, q: { clarify_id: string; question: string; choices?: string[] }) => {
        const conv = this.bySession.get(sessionId);
        // A schedule's run has nobody at hand: it goes on without an answer, as a pipe's does.
        if (!conv || conv.running?.record.scheduled) return void this.sessions.answerQuestion(sessionId, q.clarify_id);
        conv.question = { sessionId, clarifyId: q.clarify_id, choices: q.choices ?? [] };
        const buttons = conv.channel.adapter.buttons ? questionButtons(q.clarify_id, q.choices ?? []) : [];
        this.reply(conv, undefined, questionText(q.question, q.choices ?? [], this.opts.config.tools.clarify_timeout_seconds), [], "scv", buttons);
      },
      approval: (sessionId: string, request: ApprovalRequested, answer: (a: { approved: boolean; always?: boolean }) => Promise<void>) => {
        const conv = this.bySession.get(sessionId);
        if (!conv?.channel.adapter.buttons || conv.channel.adapter.approvals !== "ask") return false;
        conv.cards.set(cardToken(request.approval_id), { sessionId, answer });
        this.reply(conv, undefined, approvalText(request), [], "system", approvalButtons(request.approval_id));
        return true;
      },
      streamed: (sessionId: string, text: string | undefined) => {
        const conv = this.bySession.get(sessionId);
        const run = conv?.running;
        const adapter = conv?.channel.adapter;
        if (!run || !adapter?.draft || run.record.scheduled || run.sessionId !== sessionId) return;
        run.draft = text === undefined ? "" : (run.draft ?? "") + text;
        if (run.draft.trim()) adapter.draft({ conversation: conv!.id, inReplyTo: run.record.id, text: run.draft });
      },
      questionSettled: (sessionId: string, clarifyId: string) => {
        const conv = this.bySession.get(sessionId);
        if (conv?.question?.clarifyId === clarifyId) conv.question = undefined;
      },
      log: opts.log,
    };
    // Chat sessions are stored like any other, so a conversation resumes its session after a restart.
    this.sessions = new SessionLink(opts.env, events, openSessionStore({ home: opts.scvHome, warn: opts.log }), "scv-chat-bridge", opts.live);
    this.turnSlots = new TurnSlots(opts.config.channels.max_concurrent_turns);
  }

  /**
   * Sweeps every 2 s while some conversation holds a session (a former owner's is dropped, retired and idle ones
   * closed); with none it stops, so a daemon idle for months does not wake for it.
   */
  private sweepWhileOpen(): void {
    if (this.sweepTimer || this.closing) return;
    this.sweepTimer = setInterval(() => {
      if (![...this.conversations.values()].some((c) => c.session || c.retired.length)) {
        clearInterval(this.sweepTimer);
        this.sweepTimer = undefined;
        return;
      }
      void this.dropFormerOwners().then(() => this.closeRetired()).then(() => this.closeIdle());
    }, 2000);
  }

  /** Running turns plus running background jobs, over every conversation (a planned stop waits for these). */
  busy(): number {
    return this.sessions.busy();
  }

  /** A planned stop began: no new turn starts (messages stay queued for the next start). */
  pause(): void {
    this.accepting = false;
  }

  /** Closes every session (cancelling what still runs; its queued message is reported after the restart). */
  async close(): Promise<void> {
    this.accepting = false;
    this.closing = true;
    this.turnSlots.releaseAll();
    clearInterval(this.sweepTimer);
    // Jobs still running now are stopped with their sessions: say so (durably, sent after the restart).
    for (const conv of this.conversations.values()) {
      const running = [conv.session, ...conv.retired].flatMap((s) => (s?.jobs()?.running() ?? []));
      if (!running.length) continue;
      this.reply(conv, undefined, stoppedJobsNotice(running), [], "system");
    }
    await this.sessions.closeAll();
  }

  /** After a restart: turns that were running are reported, not re-run; queued messages are processed. */
  recover(channel: ChannelRuntime): void {
    this.channels.set(channel.key, channel);
    for (const record of channel.inbound.list()) {
      if (record.state !== "running") continue;
      const conv = this.conversation(channel, record.conversation, record.direct);
      const id = replyId(record);
      if (!this.opts.outbox.known(id)) {
        const text = interruptedNotice(record);
        this.opts.outbox.add({ id, channel: channel.key, conversation: record.conversation, text, ...(record.scheduled ? {} : { inReplyTo: record.id }) });
        conv.log.add({ author: "system", text });
      }
      channel.inbound.remove(record);
      if (record.scheduled) this.opts.scheduleSettled?.(record.id, "interrupted", "SCV was restarted during the turn");
    }
    const waiting = new Set(channel.inbound.list().map((r) => `${r.direct}\u0000${r.conversation}`));
    for (const key of waiting) {
      const [direct, conversation] = key.split("\u0000") as [string, string];
      void this.pump(this.conversation(channel, conversation, direct === "true"));
    }
  }

  /** A new message from the adapter: dedupe, save its files, queue it durably, log it; returns once queued. */
  receive(channel: ChannelRuntime, arrived: InboundMessage): ButtonOutcome | undefined {
    this.channels.set(channel.key, channel);
    if (arrived.answers !== undefined) return this.pressed(channel, arrived);
    if (channel.inbound.has(arrived.id)) return;
    const message = capInbound(arrived); // before queueing: a 17 MiB text must never become a queue record
    const conv = this.conversation(channel, message.conversation, message.direct);
    conv.lastActive = Date.now();
    const owner = isOwner(channel, message);
    if (!owner && !this.withinRate(conv, message)) return;
    const files = saveInboundFiles(message.files, conv.mediaDir, { scvHome: this.opts.scvHome, channelDir: channel.inbound.dir });
    const at = message.transcript ? -1 : message.files.findIndex((f) => f.voice);
    const voice = at >= 0 ? { name: files[at]!.name, ...(files[at]!.path ? { path: files[at]!.path } : {}), ...(message.files[at]!.voice?.seconds ? { seconds: message.files[at]!.voice!.seconds } : {}) } : undefined;
    const record = channel.inbound.add({
      ...(voice ? { voice } : {}),
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
      author: owner ? "owner" : "user",
      text: message.text,
      ...(message.quote ? { quote: message.quote } : {}),
      ...(files.length ? { files } : {}),
      ...(message.transcript ? { transcript: message.transcript } : {}),
    });
    this.opts.outbox.release(channel.key, message.conversation);
    const card = message.text ? this.opts.cardReply?.({ channel: channel.key, from: message.from, owner }, message.text) : undefined;
    if (card !== undefined) {
      channel.inbound.remove(record);
      this.opts.outbox.add({ id: `${record.id}-card`, channel: channel.key, conversation: record.conversation, text: card, inReplyTo: record.id });
      return;
    }
    const command = chatCommand(message.text, owner);
    if (owner && conv.question && !command) {
      // The owner's next message answers the model's question; it never becomes a prompt of its own.
      const { sessionId, clarifyId, choices } = conv.question;
      conv.question = undefined;
      channel.inbound.remove(record);
      void this.sessions.answerQuestion(sessionId, clarifyId, answerFromText(message.text, choices));
      return;
    }
    if (command?.when === "now") {
      channel.inbound.remove(record);
      void command.run(this.commandContext(conv, record));
      return;
    }
    void this.pump(conv);
  }

  /** A button pressed on a card: answers the question or approval it belongs to, if that still waits (cards.ts). */
  private pressed(channel: ChannelRuntime, arrived: InboundMessage): ButtonOutcome {
    if (channel.inbound.has(arrived.id)) return { stale: STALE_CARD };
    channel.inbound.skip(arrived.id);
    const away = this.opts.cardPress?.({ channel: channel.key, from: arrived.from, owner: isOwner(channel, arrived) }, arrived.answers ?? "");
    if (away) return away;
    if (!isOwner(channel, arrived)) return { refused: "Only the owner of this SCV answers its questions." };
    const conv = this.conversation(channel, arrived.conversation, arrived.direct);
    return answerPress(conv, arrived.answers ?? "", (sessionId, clarifyId, answer) => void this.sessions.answerQuestion(sessionId, clarifyId, answer));
  }

  /**
   * Queues a schedule's fire as a turn of the owner's conversation, behind messages already queued; its reply goes
   * out unprompted. A fire ID already seen (a fire repeated after a crash) is not queued again.
   */
  receiveScheduled(channel: ChannelRuntime, conversation: string, turn: ScheduledTurn): void {
    if (channel.inbound.has(turn.id)) return;
    const conv = this.conversation(channel, conversation, true);
    channel.inbound.add({ id: turn.id, conversation, from: channel.adapter.owner, direct: true, text: turn.prompt, files: [], scheduled: turn.schedule, heading: turn.heading });
    conv.log.add({ author: "system", text: turn.label });
    void this.pump(conv);
  }

  /** Whether a schedule's fire is still queued or running here. */
  scheduledPending(channel: ChannelRuntime, fireId: string): boolean {
    return channel.inbound.list().some((r) => r.id === fireId);
  }

  /**
   * A non-owner's message within the per-sender rate; else it is logged, remembered as seen and not answered,
   * and the sender is told once (until the rate frees up again).
   */
  private withinRate(conv: Conversation, message: InboundMessage): boolean {
    const verdict = this.senderRate.take(`${conv.channel.key}\u0000${message.from}`, this.opts.config.channels.sender_messages_per_minute);
    if (verdict === "ok") return true;
    conv.channel.inbound.skip(message.id);
    conv.log.add({ author: "user", text: message.text });
    if (verdict === "tell") this.reply(conv, undefined, rateLimitNotice(this.opts.config.channels.sender_messages_per_minute), [], "system");
    this.opts.log(`channel ${conv.channel.key}: a message from a non-owner over the rate was not answered`);
    return false;
  }

  private conversation(channel: ChannelRuntime, id: string, direct: boolean): Conversation {
    const key = `${channel.key}\u0000${direct ? "direct" : "group"}\u0000${id}`;
    let conv = this.conversations.get(key);
    if (conv) return conv;
    // A group's log, media and state live apart from a direct chat with the same ID.
    const place = { kind: channel.adapter.kind, account: channel.adapter.account, conversation: direct ? id : `group\u0000${id}` };
    const stateDir = join(channel.inbound.dir, "conversations");
    ensurePrivateDir(stateDir);
    conv = {
      channel,
      id,
      direct,
      log: new ChatLog(conversationLogDir(this.opts.config, this.opts.scvHome, place)),
      mediaDir: conversationMediaDir(this.opts.scvHome, place),
      stateFile: join(stateDir, `${conversationDirName(place.conversation)}.json`),
      retired: [],
      cards: new Map(),
      pumping: false,
      lastActive: Date.now(),
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
        const next = conv.channel.inbound.list().find((r) => r.conversation === conv.id && r.direct === conv.direct && r.state === "queued");
        if (!next) break;
        try {
          await this.process(conv, next);
        } catch (e) {
          this.opts.log(`channel ${conv.channel.key}: message ${next.id} failed: ${(e as Error).message}`);
          this.reply(conv, next, failedMessageNotice((e as Error).message), []);
          conv.channel.inbound.remove(next);
          if (next.scheduled) this.opts.scheduleSettled?.(next.id, "failed", (e as Error).message);
        }
      }
    } finally {
      conv.pumping = false;
    }
  }

  private async process(conv: Conversation, record: QueuedInbound): Promise<void> {
    const command = chatCommand(record.text, isOwner(conv.channel, record));
    if (command?.when === "in_order") {
      await command.run(this.commandContext(conv, record));
      conv.channel.inbound.remove(record);
      return;
    }
    if (!isOwner(conv.channel, record)) {
      const place = { kind: conv.channel.adapter.kind, account: conv.channel.adapter.account, conversation: conv.id };
      const refusal = await conversationRefusal(this.opts.scvHome, this.opts.config, place).catch((e) => {
        this.opts.log(`channel ${conv.channel.key}: the conversation's limit could not be checked, so the message is answered: ${(e as Error).message}`);
        return undefined;
      });
      if (refusal) {
        // The sender learns only that there is no answer now; the figures and how to raise the limit are the owner's.
        this.reply(conv, record, CANNOT_ANSWER_NOW, [], "system");
        if (refusal.first) this.tellOwner(`A conversation reached its limit (${conv.channel.key}, ${conv.id}): ${refusal.message}`);
        this.opts.budgetReached?.({ message: refusal.message, channel: conv.channel.key, conversation: conv.id });
        conv.channel.inbound.remove(record);
        return;
      }
    }
    // At most channels.max_concurrent_turns chat turns run at once, over every conversation; the rest wait here.
    await this.turnSlots.take();
    let ended: TurnEnd | undefined;
    try {
      if (!this.accepting) return; // a planned stop began while it waited: it stays queued for the next start
      const access = accessFor(conv.channel, record);
      if (record.voice && !record.voice.done) await this.hear(conv, record);
      const session = await this.openSession(conv, access);
      record.state = "running";
      conv.channel.inbound.update(record); // from here a restart reports it instead of running it again
      conv.running = { record, sessionId: session.id };
      try {
        const { images, notes } = inboundImages(record, session);
        // The owner's `/name args` of a command file runs as its prompt (src/command-files).
        const own = access.owner ? ownCommandPrompt(record.text, this.opts.scvHome, this.chatWorkspace()) : undefined;
        const { end, attachments, tools } = await this.sessions.runTurn(session.id, promptFor(own ? { ...record, text: own } : record, notes), images);
        // Cut off by the daemon stopping: the record stays `running`, so the next start reports it as interrupted.
        if (this.closing && end.status === "cancelled") return;
        this.reply(conv, record, replyFor(end, access.owner, record.heading), attachments, "scv", [], tools);
        ended = end;
      } finally {
        conv.running = undefined;
        conv.cards.clear(); // the turn's approvals ended with it
        conv.lastActive = Date.now();
      }
    } finally {
      this.turnSlots.give();
    }
    conv.channel.inbound.remove(record);
    if (record.scheduled && ended) this.opts.scheduleSettled?.(record.id, ended.status === "completed" ? "answered" : "failed", ended.error?.message ?? (ended.status === "cancelled" ? "stopped" : undefined), replyText(ended));
  }

  /**
   * A voice message turned into text ([transcription]) before its turn: the person is shown what SCV heard, or
   * why it could not, and the outcome is kept on the queued record (a restart does not transcribe it again).
   */
  private async hear(conv: Conversation, record: QueuedInbound): Promise<void> {
    const notice = await hearVoice(record, this.opts.config, this.opts.env, (line) => this.opts.log(`channel ${conv.channel.key}: ${line}`));
    if (notice) {
      // Queued before the record says so: a crash in between transcribes again, and the same ID is queued once.
      this.opts.outbox.add({ id: `h-${record.seq}`, channel: conv.channel.key, conversation: conv.id, text: notice, inReplyTo: record.id });
      conv.log.add({ author: "system", text: notice });
    }
    conv.channel.inbound.update(record);
  }

  /** The session a conversation had before a restart, and the access it was opened for, from its durable state. */
  private storedSession(conv: Conversation): { id: string; access: Access } | undefined {
    try {
      const raw = readBoundedTextIfExists(conv.stateFile, { what: "conversation state", maxBytes: 64 * 1024, followSymlink: false });
      const state = raw ? (JSON.parse(raw) as { session_id?: string; owner?: boolean; owner_key?: string }) : undefined;
      if (!state?.session_id) return undefined;
      return { id: state.session_id, access: { owner: state.owner === true, ownerKey: state.owner_key ?? "" } };
    } catch {
      return undefined;
    }
  }

  /**
   * The conversation's session. After a restart the stored session ID names one this process no longer has:
   * it is resumed with its history; only when that fails (removed, pruned) does a new session start, and the
   * chat log carries on either way.
   */
  private async openSession(conv: Conversation, access: Access): Promise<HostedSession> {
    if (conv.closing) await conv.closing;
    if (conv.session && conv.access && sameAccess(conv.access, access)) return conv.session;
    let changed = false;
    if (conv.session) {
      // Opened for another access (the owner changed, or this sender stopped or started being the owner).
      this.retire(conv);
      changed = true;
    }
    const stored = this.storedSession(conv);
    const resumable = stored && sameAccess(stored.access, access) && !this.sessions.has(stored.id) ? stored.id : undefined;
    if (stored && !resumable && !this.sessions.has(stored.id)) changed = true;
    const { session, resumed, error } = await this.sessions.start({
      cwd: this.chatWorkspace(),
      tools: access.owner,
      // The owner's chat approves unasked, unless its channel asks the person (the web page's cards).
      autoApprove: access.owner && conv.channel.adapter.approvals !== "ask",
      askApprovals: access.owner && conv.channel.adapter.approvals === "ask",
      questions: access.owner,
      channel: { kind: conv.channel.adapter.kind, account: conv.channel.adapter.account, conversation: conv.id, ...(access.owner ? { log: conv.log.dir, owner: true } : {}) },
      ...(resumable ? { previous: resumable } : {}),
    });
    for (const notice of session.notices) this.opts.log(`channel ${conv.channel.key}: ${notice}`);
    if (resumable && !resumed) this.opts.log(`channel ${conv.channel.key}: a new session for a conversation that had ${resumable}${error ? ` (${error})` : ""}`);
    if (changed) {
      this.opts.log(`channel ${conv.channel.key}: a new session for a conversation whose access changed (${access.owner ? "now the owner's" : "no longer the owner's"})`);
      this.reply(conv, undefined, ACCESS_CHANGED, [], "system");
    }
    conv.session = session;
    conv.access = access;
    this.bySession.set(session.id, conv);
    this.sweepWhileOpen();
    writePrivateFileAtomic(conv.stateFile, JSON.stringify({ conversation: conv.id, session_id: session.id, owner: access.owner, owner_key: access.ownerKey, started: new Date().toISOString() }));
    return session;
  }

  /**
   * A channel whose owner changed (a WeChat re-login by another account, a config change): every session opened
   * for the former owner is closed at once, its running turn and jobs cancelled; its conversation's next
   * message starts a new session for whatever access the sender has now.
   */
  private async dropFormerOwners(): Promise<void> {
    for (const conv of [...this.conversations.values()]) {
      const owner = conv.channel.adapter.owner;
      const known = this.knownOwner.get(conv.channel.key);
      if (known === undefined) this.knownOwner.set(conv.channel.key, owner);
      const s = conv.session;
      if (!s || !formerOwners(conv.channel, conv.access)) continue;
      conv.session = undefined;
      conv.access = undefined;
      this.bySession.delete(s.id);
      this.opts.log(`channel ${conv.channel.key}: the owner changed; closed the former owner's session ${s.id}`);
      await this.sessions.close(s.id);
    }
    for (const conv of this.conversations.values()) this.knownOwner.set(conv.channel.key, conv.channel.adapter.owner);
  }

  private retire(conv: Conversation) {
    const old = conv.session!;
    conv.session = undefined;
    // The episode ended (/new): the next session starts fresh, also after a restart.
    writePrivateFileAtomic(conv.stateFile, JSON.stringify({ conversation: conv.id, retired: old.id }));
    conv.access = undefined;
    conv.retired.push(old);
    void this.closeRetired();
  }

  /** Nothing of the session runs (turn, report turn, background job) and no job result waits to be reported. */
  private settled(s: HostedSession): boolean {
    const pending = s.jobs()?.list().some((j) => j.status === "running" || !j.seen) ?? false;
    return !pending && this.sessions.running(s.id) === 0 && !s.busy();
  }

  /** Closes sessions ended by /new once nothing of theirs runs or waits to be reported. */
  private async closeRetired() {
    for (const conv of this.conversations.values()) {
      for (const s of [...conv.retired]) {
        if (!this.settled(s)) continue;
        conv.retired.splice(conv.retired.indexOf(s), 1);
        await this.sessions.close(s.id);
        this.bySession.delete(s.id);
      }
    }
  }

  /**
   * Closes sessions idle for session_idle_seconds with nothing of theirs running or waiting to be reported:
   * a daemon left running for months holds only the conversations in use. The conversation's state keeps the
   * session ID, so its next message resumes the session with its history.
   */
  private async closeIdle() {
    const idleMs = this.opts.config.channels.session_idle_seconds * 1000;
    const now = Date.now();
    for (const conv of this.conversations.values()) {
      const s = conv.session;
      if (!s || conv.pumping || conv.running || conv.closing || now - conv.lastActive < idleMs || !this.settled(s)) continue;
      conv.session = undefined;
      conv.closing = this.sessions.close(s.id).finally(() => {
        this.bySession.delete(s.id);
        conv.closing = undefined;
      });
      this.opts.log(`channel ${conv.channel.key}: closed the idle session ${s.id} of conversation ${conv.id}; its next message resumes it`);
      await conv.closing;
    }
  }

  /** What a chat command sent in `conv` as `record` may see and do (commands.ts). */
  private commandContext(conv: Conversation, record: QueuedInbound): ChatCommandContext {
    const access = accessFor(conv.channel, record);
    return {
      owner: access.owner,
      arg: commandArg(record.text),
      scvHome: this.opts.scvHome,
      config: this.opts.config,
      workspace: this.chatWorkspace(),
      reply: (text, author = "scv") => this.reply(conv, record, text, [], author),
      sessions: () => [conv.session, ...conv.retired],
      cancelTurn: async () => {
        const session = conv.session;
        if (!session || this.sessions.running(session.id) === 0) return false;
        await this.sessions.cancel(session.id);
        return true;
      },
      // A session closed while idle is resumed (to read its plan, say).
      currentSession: async () => {
        if (conv.session && conv.access && sameAccess(conv.access, access)) return conv.session;
        if (!this.storedSession(conv)) return undefined;
        return await this.openSession(conv, access).catch((e) => {
          this.opts.log(`channel ${conv.channel.key}: the stored session of conversation ${conv.id} could not be resumed: ${(e as Error).message}`);
          return undefined;
        });
      },
      rewind: (sessionId, params) => this.sessions.rewind(sessionId, params),
      startOver: () => {
        conv.log.end(); // the acknowledgement closes the old episode
        if (conv.session) this.retire(conv);
      },
    };
  }

  /** Where chat sessions run. */
  private chatWorkspace(): string {
    const set = this.opts.config.channels.workspace;
    if (set) return set;
    const own = defaultChatWorkspace(this.opts.env);
    mkdirSync(own, { recursive: true, mode: 0o700 });
    return own;
  }

  /** A notice for the owner, in each channel's direct chat with them (a channel without an owner has none). */
  private tellOwner(text: string): void {
    for (const channel of this.channels.values()) {
      const conversation = channel.adapter.ownerConversation();
      if (!conversation) continue;
      this.opts.outbox.add({ channel: channel.key, conversation, text });
    }
  }

  /** Queues a message in the outbox (and the log). `record` is the message it answers, if any. */
  private reply(conv: Conversation, record: QueuedInbound | undefined, text: string, attachments: Attachment[], author: "scv" | "system" = "scv", buttons: Button[][] = [], tools: LoggedTool[] = []) {
    const sent = attachments.slice(0, MAX_FILES_PER_REPLY);
    const dropped = attachments.slice(MAX_FILES_PER_REPLY);
    const captions = sent.filter((a) => a.caption).map((a) => `${a.name}: ${a.caption}`);
    const notSent = dropped.length ? [filesNotSentNotice(dropped.map((a) => a.name))] : [];
    for (const a of dropped) this.opts.outbox.discard(a.path);
    const body = [text, ...captions, ...notSent].filter(Boolean).join("\n\n");
    const files: OutboundFile[] = sent.map((a) => ({ path: a.path, name: a.name }));
    this.opts.outbox.add({
      ...(record ? { id: replyId(record) } : {}),
      channel: conv.channel.key,
      conversation: conv.id,
      text: body,
      files,
      ...(record && !record.scheduled ? { inReplyTo: record.id } : {}),
      ...(buttons.length ? { buttons } : {}),
    });
    const logged: LoggedFile[] = sent.map((a) => ({ name: a.name, state: "sent" }));
    conv.log.add({ author, text: body, ...(logged.length ? { files: logged } : {}), ...(tools.length ? { tools } : {}) });
  }
}
