// The conversations' link to SCV sessions: sessions are started and driven through the same protocol any client
// speaks (the in-process client), so a chat session is an ordinary session, stored like any other: after a
// restart a conversation resumes its stored session with the full history.
import type { HostedSession } from "../../server/hosted-session";
import { createInProcessClient } from "../../server/in-process-client";
import type { NotificationArgs } from "../../protocol/schema";
import type { SessionStore } from "../../sessions/index";
import type { LiveHub } from "./live";
import type { LoggedTool } from "../../chatlog/log";
import type { TurnEnd } from "./messages";

export interface Attachment {
  path: string;
  name: string;
  caption?: string;
}

export interface TurnResult {
  end: TurnEnd;
  /** Files chat_attach staged in the outbox during the turn. */
  attachments: Attachment[];
  /** The turn's tool calls with how each ended (the chat log keeps them with the reply). */
  tools?: LoggedTool[];
}

const MAX_TOOLS_KEPT = 50;

export interface SessionStart {
  cwd: string;
  tools: boolean;
  autoApprove: boolean;
  /** The chat the session serves; absent for a session no chat drives (a terminal-made schedule's). */
  channel?: { kind: string; account: string; conversation: string; log?: string; owner?: boolean };
  /** The session this conversation had before a restart. */
  previous?: string;
  /** False: nothing runs unasked inside the sandbox (a terminal-made schedule without --tools stays read-only). */
  sandboxAutoRun?: boolean;
  /** Approvals are asked of a person through the live hub (the web page) instead of being denied. */
  askApprovals?: boolean;
  /** The model's questions (clarify) go to the conversation (the owner's direct chat). */
  questions?: boolean;
}

export interface SessionEvents {
  /** A session began running a turn (`true`) or finished its last one (`false`): typing on and off. */
  activity(sessionId: string, busy: boolean): void;
  /** A turn the session started itself (a background report) ended. */
  unprompted(sessionId: string, result: TurnResult): void;
  /** A spending limit stopped a turn for the first time in its period: tell the owner. */
  limitReached(message: string): void;
  /** The model asks the conversation's person a question (clarify); answered with answerQuestion. */
  question?(sessionId: string, q: { clarify_id: string; question: string; choices?: string[] }): void;
  /** A question was settled (answered, timed out, its turn cancelled). */
  questionSettled?(sessionId: string, clarifyId: string): void;
  /**
   * An approval for a session opened with askApprovals: true when the conversation shows it as a card (answered
   * with `answer`); false leaves it to the live hub (the web page), or denies it when there is none.
   */
  approval?(sessionId: string, request: import("./live").ApprovalRequested, answer: (a: { approved: boolean; always?: boolean }) => Promise<void>): boolean;
  /** A runTurn turn's streamed text: `text` is the next piece; undefined when a tool call starts (the shown text starts over). */
  streamed?(sessionId: string, text: string | undefined): void;
  /** Where a failure nobody waits for is written (the service's log): a refused approval answer, say. */
  log?(line: string): void;
}

export type RewindAnswer = import("../../protocol/schema").RequestResult<"session.rewind">;

export class SessionLink {
  private readonly sessions = new Map<string, HostedSession>();
  private readonly activeTurns = new Map<string, Set<string>>();
  private readonly attachments = new Map<string, Attachment[]>();
  /** Each running turn's tool calls by call ID (`<session>/<turn>`). */
  private readonly tools = new Map<string, Map<string, LoggedTool>>();
  private readonly waiters = new Map<string, (end: TurnEnd) => void>();
  private readonly endedEarly = new Map<string, TurnEnd>();
  /** Turns runTurn started (`<session>/<turn>`), whose text is streamed to the conversation. */
  private readonly promptedTurns = new Set<string>();
  private readonly client: ReturnType<typeof createInProcessClient>;
  private readonly ready: Promise<unknown>;
  /** Sessions whose approvals a person answers through the live hub. */
  private readonly asking = new Set<string>();

  /**
   * `clientName`: how the sessions introduce themselves (the usage ledger counts their turns by it). `live`: where
   * a watcher sees the sessions' turns and answers their approvals (the web page), when one is served.
   */
  constructor(
    env: NodeJS.ProcessEnv,
    private readonly events: SessionEvents,
    store?: SessionStore,
    private readonly clientName = "scv-chat-bridge",
    private readonly live?: LiveHub,
  ) {
    this.client = createInProcessClient({
      env,
      ...(store ? { sessions: store } : {}),
      onSession: (s) => this.sessions.set(s.id, s),
      usageHooks: { onLimit: (message) => events.limitReached(message) },
      onNotification: (...notification) => this.onNotification(...notification),
    });
    this.ready = this.client.request("initialize", { protocol_version: 3, client: { name: clientName } });
  }

  has(sessionId: string): boolean {
    return this.sessions.has(sessionId);
  }

  /**
   * The conversation's session: `previous` resumed with its history when it is stored and can be opened,
   * else a new one (`resumed` says which).
   */
  async start(params: SessionStart): Promise<{ session: HostedSession; resumed: boolean; error?: string }> {
    await this.ready;
    let error: string | undefined;
    if (params.previous) {
      try {
        const { session_id, tools } = await this.client.request<{ session_id: string; tools: string[] }>("session.resume", {
          session_id: params.previous,
          auto_approve: params.autoApprove,
          ...(params.sandboxAutoRun === false ? { sandbox_auto_run: false } : {}),
          ...(params.questions ? { questions: true } : {}),
        });
        // Never a session opened with tools for a chat that has none now (or the other way round).
        if (tools.length > 0 === params.tools) return { session: this.opened(session_id, params), resumed: true };
        await this.close(session_id);
        error = `it was opened ${params.tools ? "without" : "with"} tools`;
      } catch (e) {
        error = (e as Error).message;
      }
    }
    const { session_id } = await this.client.request<{ session_id: string }>("session.start", {
      cwd: params.cwd,
      tools: params.tools,
      auto_approve: params.autoApprove,
      ...(params.sandboxAutoRun === false ? { sandbox_auto_run: false } : {}),
      channel: params.channel,
      ...(params.questions ? { questions: true } : {}),
    });
    return { session: this.opened(session_id, params), resumed: false, ...(error ? { error } : {}) };
  }

  private opened(sessionId: string, params: SessionStart): HostedSession {
    if (params.askApprovals && (this.live || this.events.approval)) this.asking.add(sessionId);
    const c = params.channel;
    this.live?.opened(sessionId, c ? (c.kind === "web" ? "web chat" : `${c.kind}/${c.account} ${c.conversation}`) : this.clientName, c?.kind);
    return this.sessions.get(sessionId)!;
  }

  /** Runs one user turn to its end (queued behind a running one, as any client's prompt). */
  async runTurn(sessionId: string, prompt: string, images: string[] = []): Promise<TurnResult> {
    const { turn_id } = await this.client.request<{ turn_id: string }>("turn.start", { session_id: sessionId, prompt, ...(images.length ? { images } : {}) });
    const key = `${sessionId}/${turn_id}`;
    if (!this.endedEarly.has(key)) this.promptedTurns.add(key);
    const end = this.endedEarly.get(key) ?? (await new Promise<TurnEnd>((resolve) => this.waiters.set(key, resolve)));
    this.endedEarly.delete(key);
    this.promptedTurns.delete(key);
    const tools = [...(this.tools.get(key)?.values() ?? [])];
    this.tools.delete(key);
    return { end, attachments: this.takeAttachments(key), ...(tools.length ? { tools } : {}) };
  }

  /** Turns running in the session now (user and background ones). */
  running(sessionId: string): number {
    return this.activeTurns.get(sessionId)?.size ?? 0;
  }

  /** Running turns plus running background jobs over every session. */
  busy(): number {
    let n = 0;
    for (const turns of this.activeTurns.values()) n += turns.size;
    for (const s of this.sessions.values()) n += s.jobs()?.running().length ?? 0;
    return n;
  }

  /** session.rewind on one of these sessions (the chat owner's /undo). */
  rewind(sessionId: string, params: { undo?: boolean; redo?: boolean; apply?: boolean; plan_id?: string }): Promise<RewindAnswer> {
    return this.client.request<RewindAnswer>("session.rewind", { session_id: sessionId, ...params });
  }

  /** The person's answer to a question (clarify.answer); no answer: they are not asked, or declined. */
  async answerQuestion(sessionId: string, clarifyId: string, answer?: string): Promise<void> {
    await this.client.request("clarify.answer", { session_id: sessionId, clarify_id: clarifyId, ...(answer ? { answer } : {}) }).catch((e) => {
      // Settled meanwhile (timed out, its turn cancelled): the session goes on without it; said in the log.
      this.events.log?.(`session ${sessionId}: the answer to question ${clarifyId} was not taken: ${(e as Error).message}`);
    });
  }

  async cancel(sessionId: string): Promise<void> {
    // Refused only when no turn runs (it ended meanwhile): nothing is left to stop.
    await this.client.request("turn.cancel", { session_id: sessionId }).catch(() => {});
  }

  async close(sessionId: string): Promise<void> {
    // Refused only when the session is closed already: what follows forgets it either way.
    await this.client.request("session.close", { session_id: sessionId }).catch(() => {});
    this.sessions.delete(sessionId);
    this.activeTurns.delete(sessionId);
    this.asking.delete(sessionId);
    this.live?.closed(sessionId);
  }

  closeAll(): Promise<void> {
    return this.client.closeAll();
  }

  private takeAttachments(key: string): Attachment[] {
    const list = this.attachments.get(key) ?? [];
    this.attachments.delete(key);
    return list;
  }

  private onNotification(...[method, p]: NotificationArgs) {
    const sessionId = p.session_id;
    this.live?.notify(...([method, p] as NotificationArgs));
    switch (method) {
      case "turn.started": {
        let turns = this.activeTurns.get(sessionId);
        if (!turns) this.activeTurns.set(sessionId, (turns = new Set()));
        turns.add(p.turn_id);
        if (turns.size === 1) this.events.activity(sessionId, true);
        break;
      }
      case "assistant.delta":
        if (this.promptedTurns.has(`${sessionId}/${p.turn_id}`)) this.events.streamed?.(sessionId, p.text);
        break;
      case "tool.started": {
        const key = `${sessionId}/${p.turn_id}`;
        if (this.promptedTurns.has(key)) this.events.streamed?.(sessionId, undefined);
        let calls = this.tools.get(key);
        if (!calls) this.tools.set(key, (calls = new Map()));
        if (calls.size < MAX_TOOLS_KEPT) calls.set(p.call_id, { label: p.label.slice(0, 500), status: "ran" });
        break;
      }
      case "tool.completed": {
        const key = `${sessionId}/${p.turn_id}`;
        const call = this.tools.get(key)?.get(p.call_id);
        if (call) {
          call.status = p.denied ? "denied" : p.ok ? "ran" : "failed";
          if (p.display) call.display = p.display.slice(0, 200);
          if (p.denied && !p.display) call.reason = p.output.replace(/^(not run: )?denied:?\s*/i, "").split("\n")[0]!.slice(0, 300);
        }
        if (p.chat_attachment) this.attachments.set(key, [...(this.attachments.get(key) ?? []), p.chat_attachment as Attachment]);
        break;
      }
      case "approval.requested":
        if (this.asking.has(sessionId)) {
          // A card in the chat (its "always" keeps the rule, or approves the tool for the session) and/or the web page's card.
          const inChat = this.events.approval?.(sessionId, p, async (a) => {
            const remember = a.approved && a.always ? { remember: p.rule_prefix || p.rememberable ? ("workspace" as const) : ("session" as const) } : {};
            await this.client.request("approval.resolve", { session_id: sessionId, approval_id: p.approval_id, approved: a.approved, ...remember }).catch(() => {});
          });
          this.live?.ask(p, async (a) => {
            const remember = a.approved && a.always && (p.rule_prefix || p.rememberable) ? { remember: "workspace" as const } : {};
            const reason = !a.approved && a.reason ? { reason: a.reason } : {};
            // A refused answer (the approval timed out, its turn ended) reaches whoever answered (the web page says it).
            await this.client.request("approval.resolve", { session_id: sessionId, approval_id: p.approval_id, approved: a.approved, ...remember, ...reason });
          });
          if (inChat || this.live) break;
        }
        // Owner sessions approve unasked and others have no tools; nobody in a chat can answer a request.
        void this.client.request("approval.resolve", { session_id: sessionId, approval_id: p.approval_id, approved: false }).catch((e) => {
          this.events.log?.(`session ${sessionId}: denying approval ${p.approval_id} failed (its call waits until the approval times out): ${(e as Error).message}`);
        });
        break;
      case "clarify.requested":
        if (this.events.question) this.events.question(sessionId, p);
        else void this.answerQuestion(sessionId, p.clarify_id);
        break;
      case "clarify.answered":
        this.events.questionSettled?.(sessionId, p.clarify_id);
        break;
      case "turn.ended": {
        const turns = this.activeTurns.get(sessionId);
        turns?.delete(p.turn_id);
        if (!turns?.size) this.events.activity(sessionId, false);
        const key = `${sessionId}/${p.turn_id}`;
        const end: TurnEnd = p;
        const waiter = this.waiters.get(key);
        if (!waiter && !this.promptedTurns.has(key)) this.tools.delete(key);
        if (waiter) {
          this.waiters.delete(key);
          waiter(end);
        } else if (end.origin?.kind === "background") this.events.unprompted(sessionId, { end, attachments: this.takeAttachments(key) });
        else this.endedEarly.set(key, end);
        break;
      }
    }
  }
}
