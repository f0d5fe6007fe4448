// What the daemon's sessions are doing now, for a watcher (the web page): each hosted session's running turn with
// its streamed text and tool calls, and the approvals waiting for a person. The session links feed it; a watcher
// subscribes and answers approvals through it. Bounded: only running turns and open approvals are kept.
import type { NotificationArgs, NotificationParams } from "../../protocol/schema";

export interface LiveTool {
  call_id: string;
  label: string;
  display?: string;
  ok?: boolean;
  denied?: boolean;
}

export interface LiveTurn {
  turn_id: string;
  prompt: string;
  /** The reply so far (the last LIVE_TEXT_MAX bytes). */
  text: string;
  tools: LiveTool[];
  started: number;
}

export interface LiveSession {
  id: string;
  /** Who drives it, as a person reads it: `web chat`, `wechat/bot1 wxid_…`, `schedules`. */
  source: string;
  /** A chat session's channel kind (`web` for the web chat). */
  channel?: string;
  turn?: LiveTurn;
  last?: { status: string; at: number };
}

export type ApprovalRequested = NotificationParams<"approval.requested">;

export interface ApprovalAnswer {
  approved: boolean;
  /** Keep the request's rule (or, for a rememberable request, the approval) for this workspace. */
  always?: boolean;
  /** Why it was denied, passed to the model. */
  reason?: string;
}

export interface LiveApproval {
  id: string;
  session: string;
  source: string;
  channel?: string;
  request: ApprovalRequested;
  at: number;
}

export type LiveEvent =
  | { type: "session"; session: LiveSession }
  | { type: "closed"; session: string }
  | { type: "notification"; session: string; source: string; channel?: string; method: NotificationArgs[0]; params: unknown }
  | { type: "approval"; approval: LiveApproval }
  | { type: "approval.settled"; id: string; approved: boolean }
  /** Something for the owner ([notify]): a schedule's result, a turn that ended while they were away. */
  | { type: "notice"; id: string; text: string; at: number };

const LIVE_TEXT_MAX = 64 * 1024;
const LIVE_TOOLS_MAX = 50;

export class LiveHub {
  private readonly sessions = new Map<string, LiveSession>();
  private readonly approvals = new Map<string, LiveApproval & { answer(a: ApprovalAnswer): Promise<void> }>();
  private readonly watchers = new Set<(e: LiveEvent) => void>();
  private readonly noticed = new Set<string>();

  subscribe(watcher: (e: LiveEvent) => void): () => void {
    this.watchers.add(watcher);
    return () => void this.watchers.delete(watcher);
  }

  watching(): number {
    return this.watchers.size;
  }

  opened(id: string, source: string, channel?: string): void {
    const session: LiveSession = { id, source, ...(channel ? { channel } : {}) };
    this.sessions.set(id, session);
    this.emit({ type: "session", session });
  }

  closed(id: string): void {
    if (!this.sessions.delete(id)) return;
    for (const [key, a] of this.approvals) if (a.session === id) this.approvals.delete(key);
    this.emit({ type: "closed", session: id });
  }

  /** Every hosted session, with its running turn, and every open approval. */
  snapshot(): { sessions: LiveSession[]; approvals: LiveApproval[] } {
    return { sessions: [...this.sessions.values()], approvals: [...this.approvals.values()].map(({ answer: _, ...a }) => a) };
  }

  session(id: string): LiveSession | undefined {
    return this.sessions.get(id);
  }

  notify(...[method, p]: NotificationArgs): void {
    const s = this.sessions.get(p.session_id);
    if (!s) return;
    switch (method) {
      case "turn.started":
        s.turn = { turn_id: p.turn_id, prompt: p.prompt.slice(0, 2000), text: "", tools: [], started: Date.now() };
        break;
      case "assistant.delta":
        if (s.turn) s.turn.text = (s.turn.text + p.text).slice(-LIVE_TEXT_MAX);
        break;
      case "tool.started":
        if (s.turn) s.turn.tools = [...s.turn.tools, { call_id: p.call_id, label: p.label }].slice(-LIVE_TOOLS_MAX);
        break;
      case "tool.completed": {
        const t = s.turn?.tools.find((x) => x.call_id === p.call_id);
        if (t) Object.assign(t, { ok: p.ok, ...(p.display ? { display: p.display } : {}), ...(p.denied ? { denied: true } : {}) });
        break;
      }
      case "turn.ended":
        if (s.turn?.turn_id === p.turn_id) s.turn = undefined;
        s.last = { status: p.status, at: Date.now() };
        for (const [key, a] of this.approvals) if (a.session === s.id && a.request.turn_id === p.turn_id) this.approvals.delete(key);
        break;
    }
    this.emit({ type: "notification", session: s.id, source: s.source, ...(s.channel ? { channel: s.channel } : {}), method, params: p });
  }

  /** A session asks a person: the request waits here until a watcher answers it or its turn ends. */
  ask(request: ApprovalRequested, answer: (a: ApprovalAnswer) => Promise<void>, source?: string): void {
    const s = this.sessions.get(request.session_id);
    const approval: LiveApproval = { id: request.approval_id, session: request.session_id, source: s?.source ?? source ?? "a session", ...(s?.channel ? { channel: s.channel } : {}), request, at: Date.now() };
    this.approvals.set(approval.id, { ...approval, answer });
    this.emit({ type: "approval", approval });
  }

  /** Answers an open approval; false when none is open under that ID (answered already, or its turn ended). */
  async answer(id: string, a: ApprovalAnswer): Promise<boolean> {
    const open = this.approvals.get(id);
    if (!open) return false;
    this.approvals.delete(id);
    try {
      await open.answer(a);
    } catch (e) {
      // The session refused the answer (the approval timed out or its turn ended): it is settled, and the person is told.
      this.emit({ type: "approval.settled", id, approved: false });
      throw new Error(`the answer was not taken: ${(e as Error).message}`);
    }
    this.emit({ type: "approval.settled", id, approved: a.approved });
    return true;
  }

  /** An open approval answered elsewhere (a session's own screen, a chat): it leaves the pages. */
  withdraw(id: string): void {
    if (!this.approvals.delete(id)) return;
    this.emit({ type: "approval.settled", id, approved: false });
  }

  /** A notice for the owner to every open page; the same ID is shown once. */
  notice(id: string, text: string): void {
    if (this.noticed.has(id)) return;
    this.noticed.add(id);
    if (this.noticed.size > 500) this.noticed.delete(this.noticed.values().next().value!);
    this.emit({ type: "notice", id, text: text.slice(0, 4000), at: Date.now() });
  }

  private emit(e: LiveEvent): void {
    for (const w of this.watchers) {
      try {
        w(e);
      } catch {}
    }
  }
}
