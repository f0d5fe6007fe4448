// What the chat sessions tell Conversations, relayed to the conversation each session belongs to: typing on and
// off, a background report as an unprompted message, a spending limit to the owner, the model's question and an
// approval as cards (with buttons where the adapter has them), the reply streamed as a draft, a question settled.
import type { Button } from "./adapter";
import { approvalButtons, approvalText, cardToken, questionButtons } from "./cards";
import type { Conversation, ConversationOptions } from "./conversation";
import type { ApprovalRequested } from "./live";
import { questionText, replyText } from "./messages";
import type { Attachment, SessionEvents, SessionLink, TurnResult } from "./sessions";

export interface RelayDeps {
  opts: ConversationOptions;
  /** The link the events come from (built after them, so read when an event arrives). */
  link(): SessionLink;
  conversationOf(sessionId: string): Conversation | undefined;
  /** Says something in a conversation, unprompted (no message it answers). */
  say(conv: Conversation, text: string, attachments: Attachment[], author: "scv" | "system", buttons?: Button[][]): void;
  tellOwner(text: string): void;
}

export function relaySessionEvents(deps: RelayDeps): SessionEvents {
  const { opts } = deps;
  return {
    activity: (sessionId: string, busy: boolean) => {
      const conv = deps.conversationOf(sessionId);
      // Typing is a courtesy: a platform that refuses it changes nothing the person gets.
      if (conv) void conv.channel.adapter.typing?.(conv.id, busy).catch(() => {});
    },
    unprompted: (sessionId: string, { end, attachments }: TurnResult) => {
      const conv = deps.conversationOf(sessionId);
      if (conv) deps.say(conv, replyText(end), attachments, "scv");
    },
    limitReached: (message: string) => deps.tellOwner(`SCV reached a spending limit: ${message}`),
    question: (sessionId: string, q: { clarify_id: string; question: string; choices?: string[] }) => {
      const conv = deps.conversationOf(sessionId);
      // A schedule's run has nobody at hand: it goes on without an answer, as a pipe's does.
      if (!conv || conv.running?.record.scheduled) return void deps.link().answerQuestion(sessionId, q.clarify_id);
      conv.question = { sessionId, clarifyId: q.clarify_id, choices: q.choices ?? [] };
      const buttons = conv.channel.adapter.buttons ? questionButtons(q.clarify_id, q.choices ?? []) : [];
      deps.say(conv, questionText(q.question, q.choices ?? [], opts.config.tools.clarify_timeout_seconds), [], "scv", buttons);
    },
    approval: (sessionId: string, request: ApprovalRequested, answer: (a: { approved: boolean; always?: boolean }) => Promise<void>) => {
      const conv = deps.conversationOf(sessionId);
      if (!conv?.channel.adapter.buttons || conv.channel.adapter.approvals !== "ask") return false;
      conv.cards.set(cardToken(request.approval_id), { sessionId, answer });
      deps.say(conv, approvalText(request), [], "system", approvalButtons(request.approval_id));
      return true;
    },
    streamed: (sessionId: string, text: string | undefined) => {
      const conv = deps.conversationOf(sessionId);
      const run = conv?.running;
      const adapter = conv?.channel.adapter;
      if (!run || !adapter?.draft || run.record.scheduled || run.sessionId !== sessionId) return;
      run.draft = text === undefined ? "" : (run.draft ?? "") + text;
      if (run.draft.trim()) adapter.draft({ conversation: conv!.id, inReplyTo: run.record.id, text: run.draft });
    },
    questionSettled: (sessionId: string, clarifyId: string) => {
      const conv = deps.conversationOf(sessionId);
      if (conv?.question?.clarifyId === clarifyId) conv.question = undefined;
    },
    log: opts.log,
  };
}
