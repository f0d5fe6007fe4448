// The model's questions to a person (the `clarify` tool): each is put to the client as clarify.requested and
// stays open until clarify.answer, the turn's cancellation, or the bounded wait (tools.clarify_timeout_seconds),
// so a question nobody answers never holds a turn for ever. A client that cannot put questions to a person
// (a pipe, a schedule, a nested run) gets none: the answer is at once that nobody can answer here.
import { randomHex } from "../digest";
import type { NotificationMethod, NotificationParams } from "../protocol/schema";
import type { Question, QuestionOutcome } from "../tools/tool";

/** How the session sends a notification (turn.ts's Emit; named here so this file needs nothing from the loop). */
type Emit = <M extends NotificationMethod>(method: M, params: NotificationParams<M>) => void;

export interface QuestionTarget {
  sessionId: string;
  turnId: string;
  callId: string;
  signal: AbortSignal;
}

export class OpenQuestions {
  private readonly open = new Map<string, (outcome: QuestionOutcome) => void>();

  constructor(
    private readonly emit: Emit,
    /** Whether the client declared that it puts questions to a person (session.start `questions`). */
    private readonly clientAsks: () => boolean,
    private readonly timeoutSeconds: () => number,
    /** A question was put to the person (the session's Notification hooks). */
    private readonly onAsked?: (target: QuestionTarget, question: string) => void,
  ) {}

  ask(target: QuestionTarget, q: Question): Promise<QuestionOutcome> {
    const ids = { session_id: target.sessionId, turn_id: target.turnId, call_id: target.callId };
    const clarifyId = `q-${randomHex(4)}`;
    const settled = (outcome: QuestionOutcome): QuestionOutcome => {
      this.emit("clarify.answered", { ...ids, clarify_id: clarifyId, by: outcome.by, ...(outcome.by === "person" ? { answer: outcome.answer } : {}) });
      return outcome;
    };
    if (!this.clientAsks()) return Promise.resolve(settled({ by: "nobody" }));
    if (target.signal.aborted) return Promise.resolve(settled({ by: "cancelled" }));
    const timeout = this.timeoutSeconds();
    return new Promise<QuestionOutcome>((resolve) => {
      const finish = (outcome: QuestionOutcome) => {
        if (!this.open.delete(clarifyId)) return;
        clearTimeout(timer);
        target.signal.removeEventListener("abort", onAbort);
        resolve(settled(outcome));
      };
      const onAbort = () => finish({ by: "cancelled" });
      const timer = setTimeout(() => finish({ by: "timeout" }), timeout * 1000);
      target.signal.addEventListener("abort", onAbort, { once: true });
      this.open.set(clarifyId, finish);
      this.emit("clarify.requested", { ...ids, clarify_id: clarifyId, question: q.question, ...(q.choices?.length ? { choices: q.choices } : {}), timeout_seconds: timeout });
      this.onAsked?.(target, q.question);
    });
  }

  /** The client's answer; false when no such question is open (answered already, or its turn ended). */
  answer(clarifyId: string, answer: string | undefined): boolean {
    const finish = this.open.get(clarifyId);
    if (!finish) return false;
    finish(answer === undefined ? { by: "declined" } : { by: "person", answer });
    return true;
  }
}
