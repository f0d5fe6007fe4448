// The model's question (clarify) as the app holds it: opened when the server asks, it takes the keys until it is
// answered or skipped, and closes when it was settled elsewhere (timed out, or the owner answered from their chat or
// the web page). The card itself, what it draws and which key chooses what, is question.ts', loaded at the first
// question.
import type { AwayLink, RemoteAnswer } from "../daemon/away-link";
import type { SessionScreen } from "./context";
import type { Key } from "./keys";
import type { QuestionCard } from "./question";
import type { Style as Theme } from "../terminal/style";

export interface QuestionContext extends SessionScreen {
  away(): AwayLink | undefined;
  /** The workspace, for the card the owner is offered where they are. */
  cwd: string;
}

export class OpenQuestion {
  private open: { id: string; card: QuestionCard } | undefined;

  constructor(private readonly ctx: QuestionContext) {}

  /** Whether a question is open (it holds the keyboard). */
  get waiting(): boolean {
    return this.open !== undefined;
  }

  lines(theme: Theme, width: number): string[] {
    return this.open?.card.lines(theme, width) ?? [];
  }

  /** clarify.requested: the card opens here, and is offered to the owner where they are if nobody answers. */
  async requested(p: { session_id: string; clarify_id: string; question: string; choices?: string[] }): Promise<void> {
    this.ctx.away()?.waitingFor({ session_id: p.session_id, approval_id: p.clarify_id, tool: "clarify", risk: "read_only", summary: p.question, workspace: this.ctx.cwd }, { text: p.question, ...(p.choices ? { choices: p.choices } : {}) });
    const { QuestionCard } = await import("./question");
    this.open = { id: p.clarify_id, card: new QuestionCard(p.question, p.choices) };
    this.ctx.requestRender();
  }

  /** clarify.answered: a question settled elsewhere (timed out) closes. */
  settled(clarifyId: string): void {
    if (this.open?.id !== clarifyId) return;
    this.open = undefined;
    this.ctx.away()?.answeredHere();
  }

  async key(key: Key): Promise<void> {
    const open = this.open!;
    const chosen = open.card.key(key);
    if (!chosen) return;
    this.open = undefined;
    this.ctx.away()?.answeredHere();
    this.ctx.view.say(chosen.kind === "answer" ? `? ${open.card.question} → ${chosen.text}` : `? ${open.card.question} (skipped)`, this.ctx.theme.dim);
    this.ctx.requestRender();
    await this.answer(open.id, chosen.kind === "answer" ? chosen.text : undefined);
  }

  /** The owner answered the open question elsewhere (their chat, the web page): applied here, with where. */
  async answeredAway(clarifyId: string, a: RemoteAnswer & { text: string }): Promise<void> {
    const open = this.open;
    if (open?.id !== clarifyId) return;
    this.open = undefined;
    this.ctx.view.say(`? ${open.card.question} → ${a.text} (answered from ${a.by})`, this.ctx.theme.dim);
    this.ctx.requestRender();
    await this.answer(clarifyId, a.text);
  }

  /** Sends the answer (none: skipped). A send that fails is dropped: the server's question then ends at its timeout. */
  private async answer(clarifyId: string, answer: string | undefined): Promise<void> {
    await this.ctx.request("clarify.answer", { session_id: this.ctx.sessionId(), clarify_id: clarifyId, ...(answer !== undefined ? { answer } : {}) }).catch(() => undefined);
  }
}
