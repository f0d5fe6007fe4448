// Conversations: one SCV session per chat conversation, one turn at a time, queued messages in order, the chat
// commands (commands.ts) dispatched, background reports as unprompted messages, and every reply through the outbox.
// Who gets what is access.ts: the owner's direct chat gets tools and auto_approve; anyone else a tool-free session,
// and a session is only ever used for the access it was opened for. Direct and group conversations are separate,
// even with equal IDs. One conversation's shape and durable state is conversation.ts; its session over its life
// (opened, resumed, retired, closed when idle) conversation-sessions.ts; what the sessions say is relayed to their
// conversation by session-events.ts; what leaves goes through delivery.ts.
import type { LoggedTool } from "../../chatlog/log";
import type { Button, ButtonOutcome, InboundMessage } from "./adapter";
import { answerPress, STALE_CARD } from "./cards";
import type { QueuedInbound } from "./inbound";
import { saveInboundFiles } from "./media";
import { hearVoice } from "./transcribe";
import { capInbound, failedMessageNotice, inboundImages, interruptedNotice, promptFor, rateLimitNotice, replyFor, replyId, replyText, stoppedJobsNotice, CANNOT_ANSWER_NOW, type TurnEnd } from "./messages";
import { openSessionStore } from "../../sessions/index";
import { type Attachment, SessionLink } from "./sessions";
import { conversationRefusal } from "./usage";
import { accessFor, isOwner, SenderRate } from "./access";
import { answerFromText } from "../../tools/clarify";
import { type ChatCommandContext, chatCommand, commandArg, ownCommandPrompt } from "./commands";
import { TurnSlots } from "./turn-slots";
import { type ChannelRuntime, chatWorkspace, type Conversation, type ConversationOptions, newConversation, type ScheduledTurn } from "./conversation";
import { ConversationSessions } from "./conversation-sessions";
import { reply, tellOwner } from "./delivery";
import { relaySessionEvents } from "./session-events";

// The shapes callers pass in and get back (host.ts), defined beside the conversation they describe.
export type { ChannelRuntime, ConversationOptions, ScheduledTurn } from "./conversation";

export class Conversations {
  private readonly conversations = new Map<string, Conversation>();
  private readonly sessions: SessionLink;
  /** Each conversation's session over its life: opened, resumed, retired, closed when idle (conversation-sessions.ts). */
  private readonly lifecycle: ConversationSessions;
  /** Every channel seen, so a notice for the owner reaches their direct chat. */
  private readonly channels = new Map<string, ChannelRuntime>();
  private accepting = true;
  private closing = false;
  private readonly turnSlots: TurnSlots;
  private readonly senderRate = new SenderRate();

  constructor(private readonly opts: ConversationOptions) {
    const events = relaySessionEvents({
      opts,
      link: () => this.sessions,
      conversationOf: (sessionId) => this.lifecycle.conversationOf(sessionId),
      say: (conv, text, attachments, author, buttons) => this.reply(conv, undefined, text, attachments, author, buttons),
      tellOwner: (text) => this.tellOwner(text),
    });
    // Chat sessions are stored like any other, so a conversation resumes its session after a restart.
    this.sessions = new SessionLink(opts.env, events, openSessionStore({ home: opts.scvHome, warn: opts.log }), "scv-chat-bridge", opts.live);
    this.lifecycle = new ConversationSessions({ opts, link: this.sessions, conversations: () => this.conversations.values(), notice: (conv, text) => this.reply(conv, undefined, text, [], "system") });
    this.turnSlots = new TurnSlots(opts.config.channels.max_concurrent_turns);
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
    this.lifecycle.stop();
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
    conv = newConversation(channel, id, direct, this.opts);
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
      const session = await this.lifecycle.open(conv, access);
      record.state = "running";
      conv.channel.inbound.update(record); // from here a restart reports it instead of running it again
      conv.running = { record, sessionId: session.id };
      try {
        const { images, notes } = inboundImages(record, session);
        // The owner's `/name args` of a command file runs as its prompt (src/command-files).
        const own = access.owner ? ownCommandPrompt(record.text, this.opts.scvHome, chatWorkspace(this.opts)) : undefined;
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

  /** What a chat command sent in `conv` as `record` may see and do (commands.ts). */
  private commandContext(conv: Conversation, record: QueuedInbound): ChatCommandContext {
    const access = accessFor(conv.channel, record);
    return {
      owner: access.owner,
      arg: commandArg(record.text),
      scvHome: this.opts.scvHome,
      config: this.opts.config,
      workspace: chatWorkspace(this.opts),
      reply: (text, author = "scv") => this.reply(conv, record, text, [], author),
      sessions: () => [conv.session, ...conv.retired],
      cancelTurn: async () => {
        const session = conv.session;
        if (!session || this.sessions.running(session.id) === 0) return false;
        await this.sessions.cancel(session.id);
        return true;
      },
      // A session closed while idle is resumed (to read its plan, say).
      currentSession: () => this.lifecycle.current(conv, access),
      rewind: (sessionId, params) => this.sessions.rewind(sessionId, params),
      startOver: () => {
        conv.log.end(); // the acknowledgement closes the old episode
        if (conv.session) this.lifecycle.retire(conv);
      },
    };
  }


  /** A notice for the owner, in each channel's direct chat with them (delivery.ts). */
  private tellOwner(text: string): void {
    tellOwner(this.opts.outbox, this.channels.values(), text);
  }

  /** Queues a message in the outbox (and the log). `record` is the message it answers, if any (delivery.ts). */
  private reply(conv: Conversation, record: QueuedInbound | undefined, text: string, attachments: Attachment[], author: "scv" | "system" = "scv", buttons: Button[][] = [], tools: LoggedTool[] = []): void {
    reply(this.opts.outbox, conv, record, text, attachments, author, buttons, tools);
  }
}
