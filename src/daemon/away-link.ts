// A card waiting on this screen (the TUI, `scv exec` on a terminal) is registered with the running daemon at
// once (POST /cards over the control socket): the web page's Live view shows it, and the daemon offers it to the
// owner where they are (their chat) after `[notify] after_seconds` unless it was answered here first. The first
// answer wins: one from there is applied here and shown with where it came from; one given here tells the
// daemon, which tells the owner's chat if it had the card. No daemon: the card just waits here, no error.
import { daemonFetch } from "./client";

export interface RemoteAnswer {
  approved: boolean;
  /** A question's answer. */
  text?: string;
  session?: boolean;
  reason?: string;
  by: string;
}

interface Waiting {
  approvalId: string;
  /** A question (clarify) rather than an approval: the answer is text. */
  question?: { text: string; choices?: string[] };
  timer?: ReturnType<typeof setTimeout>;
  card?: { id: string; token: string };
  poll?: ReturnType<typeof setInterval>;
}

const POLL_MS = 700;

export class AwayLink {
  private waiting: Waiting | undefined;
  private lastKey = Date.now();
  private turnAt = 0;

  constructor(
    private readonly opts: {
      scvHome: string;
      afterSeconds: number;
      /** A turn longer than this that ended with no key pressed for as long is announced to the owner. */
      longTurnSeconds: number;
      /** Where the session runs, as the owner reads it: "the terminal", "scv exec". */
      source: string;
      answered(approvalId: string, a: RemoteAnswer): void;
      log?(line: string): void;
    },
  ) {}

  /** A key was pressed: the person is here. */
  key(): void {
    this.lastKey = Date.now();
  }

  turnStarted(): void {
    this.turnAt = Date.now();
  }

  /**
   * A turn ended: when it ran longer than long_turn_seconds and nobody pressed a key meanwhile, the owner is told
   * where they are (its first line, or why it stopped, and where to see the rest).
   */
  turnEnded(p: { session_id: string; turn_id: string; status: string; reply: string; error?: { message: string } }, workspace: string): void {
    const now = Date.now();
    const long = this.opts.longTurnSeconds * 1000;
    if (!this.turnAt || now - this.turnAt < long || now - this.lastKey < long) return;
    const took = Math.round((now - this.turnAt) / 1000);
    const first = p.reply.split("\n").map((l) => l.trim()).find(Boolean) ?? "";
    const what = p.status === "completed" ? (first ? `“${first.slice(0, 300)}”` : "(no answer)") : p.status === "failed" ? `it stopped: ${p.error?.message ?? "failed"}` : "it was stopped";
    const text = `[SCV: a turn in the terminal (${workspace}) ended after ${took < 120 ? `${took} s` : `${Math.round(took / 60)} min`}: ${what}. The rest: scv sessions show ${p.session_id}, or back at that terminal.]`;
    void daemonFetch(this.opts.scvHome, "/notices", { method: "POST", body: JSON.stringify({ id: `done-${p.session_id}-${p.turn_id}`, text }), headers: { "content-type": "application/json" }, timeoutMs: 3000 }).catch(() => {});
  }

  /** A card is shown and waits for a person. */
  waitingFor(request: { approval_id: string } & Record<string, unknown>, question?: { text: string; choices?: string[] }): void {
    this.stop();
    const w: Waiting = { approvalId: request.approval_id, ...(question ? { question } : {}) };
    // Registered at once (the web page's Live view shows every waiting card); the daemon offers it to the
    // owner's chat after after_seconds unless it was answered here first.
    w.timer = setTimeout(() => void this.offer(w, request), 0);
    w.timer.unref?.();
    this.waiting = w;
  }

  /** The card was answered on this screen, or its turn ended: the daemon (if it has it) tells the owner. */
  answeredHere(where = "the terminal"): void {
    const w = this.waiting;
    this.stop();
    if (w?.card) void daemonFetch(this.opts.scvHome, `/cards/${w.card.id}/settled`, { method: "POST", body: JSON.stringify({ token: w.card.token, where }), headers: { "content-type": "application/json" } }).catch(() => {});
  }

  private stop(): void {
    const w = this.waiting;
    if (!w) return;
    if (w.timer) clearTimeout(w.timer);
    if (w.poll) clearInterval(w.poll);
    this.waiting = undefined;
  }

  private async offer(w: Waiting, request: Record<string, unknown>): Promise<void> {
    let card: { id: string; token: string };
    try {
      const res = await daemonFetch(this.opts.scvHome, "/cards", { method: "POST", body: JSON.stringify({ source: this.opts.source, after_seconds: this.opts.afterSeconds, request, ...(w.question ? { question: w.question } : {}) }), headers: { "content-type": "application/json" }, timeoutMs: 3000 });
      if (!res.ok) return void this.opts.log?.(`the daemon did not take the card: HTTP ${res.status}`);
      card = (await res.json()) as { id: string; token: string };
    } catch {
      return; // no daemon runs: the card waits here as it always did
    }
    if (this.waiting !== w) {
      // Answered here while the card was on its way: the owner is told so.
      void daemonFetch(this.opts.scvHome, `/cards/${card.id}/settled`, { method: "POST", body: JSON.stringify({ token: card.token, where: "the terminal" }), headers: { "content-type": "application/json" } }).catch(() => {});
      return;
    }
    w.card = card;
    w.poll = setInterval(() => void this.check(w), POLL_MS);
    w.poll.unref?.();
  }

  private async check(w: Waiting): Promise<void> {
    if (this.waiting !== w || !w.card) return;
    try {
      const res = await daemonFetch(this.opts.scvHome, `/cards/${w.card.id}?token=${w.card.token}`, { timeoutMs: 3000 });
      if (res.status === 404) return this.stop(); // the daemon restarted: the card waits here
      const r = (await res.json()) as { answer?: RemoteAnswer };
      if (!r.answer || this.waiting !== w) return;
      this.stop();
      this.opts.answered(w.approvalId, r.answer);
    } catch {}
  }
}
