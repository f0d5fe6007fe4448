// Each conversation's session over its life: opened for the access the sender has (resumed after a restart from
// the conversation's state, a new one when that fails or the access changed), retired by /new and closed once
// nothing of it runs or waits to be reported, closed when idle (its next message resumes it), and dropped at once
// when the channel's owner changed. A sweep every 2 s does the closing while any conversation holds a session.
import type { HostedSession } from "../../server/hosted-session";
import { type Access, formerOwners, sameAccess } from "./access";
import { chatWorkspace, type Conversation, type ConversationOptions, saveRetired, saveSession, storedSession } from "./conversation";
import { ACCESS_CHANGED } from "./messages";
import type { SessionLink } from "./sessions";

export interface ConversationSessionsDeps {
  opts: ConversationOptions;
  link: SessionLink;
  /** Every conversation this process has seen. */
  conversations(): Iterable<Conversation>;
  /** Says something in a conversation from SCV itself (a system message through the outbox). */
  notice(conv: Conversation, text: string): void;
}

export class ConversationSessions {
  /** The conversation each open session (current or retired) belongs to. */
  private readonly bySession = new Map<string, Conversation>();
  private sweepTimer?: ReturnType<typeof setInterval>;
  private stopped = false;
  /** Each channel's owner as last seen: a change drops every owner session of the channel. */
  private readonly knownOwner = new Map<string, string>();

  constructor(private readonly deps: ConversationSessionsDeps) {}

  /** The conversation a session belongs to, while the session is open. */
  conversationOf(sessionId: string): Conversation | undefined {
    return this.bySession.get(sessionId);
  }

  /** The daemon is closing: no more sweeps (its sessions are closed with the link). */
  stop(): void {
    this.stopped = true;
    clearInterval(this.sweepTimer);
  }

  /**
   * The conversation's session. After a restart the stored session ID names one this process no longer has:
   * it is resumed with its history; only when that fails (removed, pruned) does a new session start, and the
   * chat log carries on either way.
   */
  async open(conv: Conversation, access: Access): Promise<HostedSession> {
    const { opts, link } = this.deps;
    if (conv.closing) await conv.closing;
    if (conv.session && conv.access && sameAccess(conv.access, access)) return conv.session;
    let changed = false;
    if (conv.session) {
      // Opened for another access (the owner changed, or this sender stopped or started being the owner).
      this.retire(conv);
      changed = true;
    }
    const stored = storedSession(conv);
    const resumable = stored && sameAccess(stored.access, access) && !link.has(stored.id) ? stored.id : undefined;
    if (stored && !resumable && !link.has(stored.id)) changed = true;
    const { session, resumed, error } = await link.start({
      cwd: chatWorkspace(opts),
      tools: access.owner,
      // The owner's chat approves unasked, unless its channel asks the person (the web page's cards).
      autoApprove: access.owner && conv.channel.adapter.approvals !== "ask",
      askApprovals: access.owner && conv.channel.adapter.approvals === "ask",
      questions: access.owner,
      channel: { kind: conv.channel.adapter.kind, account: conv.channel.adapter.account, conversation: conv.id, ...(access.owner ? { log: conv.log.dir, owner: true } : {}) },
      ...(resumable ? { previous: resumable } : {}),
    });
    for (const notice of session.notices) opts.log(`channel ${conv.channel.key}: ${notice}`);
    if (resumable && !resumed) opts.log(`channel ${conv.channel.key}: a new session for a conversation that had ${resumable}${error ? ` (${error})` : ""}`);
    if (changed) {
      opts.log(`channel ${conv.channel.key}: a new session for a conversation whose access changed (${access.owner ? "now the owner's" : "no longer the owner's"})`);
      this.deps.notice(conv, ACCESS_CHANGED);
    }
    conv.session = session;
    conv.access = access;
    this.bySession.set(session.id, conv);
    this.sweepWhileOpen();
    saveSession(conv, session.id, access);
    return session;
  }

  /** The conversation's session for this access, resumed if it was closed while idle; undefined when it has none. */
  async current(conv: Conversation, access: Access): Promise<HostedSession | undefined> {
    if (conv.session && conv.access && sameAccess(conv.access, access)) return conv.session;
    if (!storedSession(conv)) return undefined;
    return await this.open(conv, access).catch((e) => {
      this.deps.opts.log(`channel ${conv.channel.key}: the stored session of conversation ${conv.id} could not be resumed: ${(e as Error).message}`);
      return undefined;
    });
  }

  /** The episode ended (/new, or the access changed): the session is closed once nothing of it runs. */
  retire(conv: Conversation): void {
    const old = conv.session!;
    conv.session = undefined;
    // The episode ended (/new): the next session starts fresh, also after a restart.
    saveRetired(conv, old.id);
    conv.access = undefined;
    conv.retired.push(old);
    void this.closeRetired();
  }

  /**
   * Sweeps every 2 s while some conversation holds a session (a former owner's is dropped, retired and idle ones
   * closed); with none it stops, so a daemon idle for months does not wake for it.
   */
  private sweepWhileOpen(): void {
    if (this.sweepTimer || this.stopped) return;
    this.sweepTimer = setInterval(() => {
      if (![...this.deps.conversations()].some((c) => c.session || c.retired.length)) {
        clearInterval(this.sweepTimer);
        this.sweepTimer = undefined;
        return;
      }
      void this.dropFormerOwners().then(() => this.closeRetired()).then(() => this.closeIdle());
    }, 2000);
  }

  /**
   * A channel whose owner changed (a WeChat re-login by another account, a config change): every session opened
   * for the former owner is closed at once, its running turn and jobs cancelled; its conversation's next
   * message starts a new session for whatever access the sender has now.
   */
  private async dropFormerOwners(): Promise<void> {
    for (const conv of [...this.deps.conversations()]) {
      const owner = conv.channel.adapter.owner;
      const known = this.knownOwner.get(conv.channel.key);
      if (known === undefined) this.knownOwner.set(conv.channel.key, owner);
      const s = conv.session;
      if (!s || !formerOwners(conv.channel, conv.access)) continue;
      conv.session = undefined;
      conv.access = undefined;
      this.bySession.delete(s.id);
      this.deps.opts.log(`channel ${conv.channel.key}: the owner changed; closed the former owner's session ${s.id}`);
      await this.deps.link.close(s.id);
    }
    for (const conv of this.deps.conversations()) this.knownOwner.set(conv.channel.key, conv.channel.adapter.owner);
  }

  /** Nothing of the session runs (turn, report turn, background job) and no job result waits to be reported. */
  private settled(s: HostedSession): boolean {
    const pending = s.jobs()?.list().some((j) => j.status === "running" || !j.seen) ?? false;
    return !pending && this.deps.link.running(s.id) === 0 && !s.busy();
  }

  /** Closes sessions ended by /new once nothing of theirs runs or waits to be reported. */
  private async closeRetired() {
    for (const conv of this.deps.conversations()) {
      for (const s of [...conv.retired]) {
        if (!this.settled(s)) continue;
        conv.retired.splice(conv.retired.indexOf(s), 1);
        await this.deps.link.close(s.id);
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
    const idleMs = this.deps.opts.config.channels.session_idle_seconds * 1000;
    const now = Date.now();
    for (const conv of this.deps.conversations()) {
      const s = conv.session;
      if (!s || conv.pumping || conv.running || conv.closing || now - conv.lastActive < idleMs || !this.settled(s)) continue;
      conv.session = undefined;
      conv.closing = this.deps.link.close(s.id).finally(() => {
        this.bySession.delete(s.id);
        conv.closing = undefined;
      });
      this.deps.opts.log(`channel ${conv.channel.key}: closed the idle session ${s.id} of conversation ${conv.id}; its next message resumes it`);
      await conv.closing;
    }
  }
}
