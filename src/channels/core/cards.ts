// Cards with buttons, for platforms that have them (ChannelAdapter.buttons): the model's question with its
// choices, and an approval (allow once, always, deny). A button's data names its card by a short digest of the
// question's or approval's ID (platforms cap it: Telegram at 64 bytes), so a press on a card that is no longer
// waiting finds nothing and is told so.
import { sha256Hex } from "../../digest";
import { riskInWords } from "../../scope";
import { ellipsize } from "../../text/cut";
import type { Button, ButtonOutcome } from "./adapter";
import type { ApprovalRequested } from "./live";

export function cardToken(id: string): string {
  return sha256Hex(id).slice(0, 16);
}

/** The choices of a question, one button a row (at most 8; the rest are typed). */
export function questionButtons(clarifyId: string, choices: readonly string[]): Button[][] {
  const token = cardToken(clarifyId);
  return choices.slice(0, 8).map((c, i) => [{ label: ellipsize(c, 60), data: `q:${token}:${i}` }]);
}

export function approvalButtons(approvalId: string): Button[][] {
  const token = cardToken(approvalId);
  return [
    [
      { label: "Allow once", data: `a:${token}:once` },
      { label: "Always", data: `a:${token}:always` },
      { label: "Deny", data: `a:${token}:deny` },
    ],
  ];
}

/** What the owner reads on an approval card. */
export function approvalText(p: ApprovalRequested): string {
  const lines = [`SCV asks to run ${p.tool}: it ${riskInWords(p.risk, p.guard?.sandbox)}.`, ellipsize(p.summary, 1500)];
  if (p.guard?.reason) lines.push(`Why it asks: ${ellipsize(p.guard.reason, 300)}`);
  lines.push(p.rule_prefix?.length ? `"Always" keeps a rule for commands starting with: ${p.rule_prefix.join(" ")}` : `"Always" allows ${p.tool} for the rest of this conversation's session.`);
  return lines.join("\n\n");
}

export type PressedButton = { kind: "q"; token: string; index: number } | { kind: "a"; token: string; choice: "once" | "always" | "deny" };

export function parseButton(data: string): PressedButton | undefined {
  const q = /^q:([0-9a-f]{16}):(\d{1,2})$/.exec(data);
  if (q) return { kind: "q", token: q[1]!, index: Number(q[2]) };
  const a = /^a:([0-9a-f]{16}):(once|always|deny)$/.exec(data);
  if (a) return { kind: "a", token: a[1]!, choice: a[2] as "once" | "always" | "deny" };
  return undefined;
}

export const APPROVAL_CHOSEN = { once: "Allowed once", always: "Allowed always", deny: "Denied" } as const;

export const STALE_CARD = "SCV is no longer waiting for this.";

/** The cards of one conversation that may wait for a button: the model's question, and open approvals. */
export interface CardHolder {
  question?: { sessionId: string; clarifyId: string; choices: string[] };
  cards: Map<string, { sessionId: string; answer(a: { approved: boolean; always?: boolean }): Promise<void> }>;
  log: { add(entry: { author: "owner"; text: string }): void };
}

/** A pressed button's data answers the conversation's waiting question or approval, or finds it no longer waits. */
export function answerPress(holder: CardHolder, data: string, answerQuestion: (sessionId: string, clarifyId: string, answer: string) => void): ButtonOutcome {
  const b = parseButton(data);
  const q = holder.question;
  if (b?.kind === "q" && q && cardToken(q.clarifyId) === b.token) {
    const choice = q.choices[b.index];
    if (choice === undefined) return { stale: STALE_CARD };
    holder.question = undefined;
    holder.log.add({ author: "owner", text: choice });
    answerQuestion(q.sessionId, q.clarifyId, choice);
    return { chosen: choice };
  }
  const card = b?.kind === "a" ? holder.cards.get(b.token) : undefined;
  if (b?.kind === "a" && card) {
    holder.cards.delete(b.token);
    holder.log.add({ author: "owner", text: `[${APPROVAL_CHOSEN[b.choice]}]` });
    void card.answer({ approved: b.choice !== "deny", always: b.choice === "always" });
    return { chosen: APPROVAL_CHOSEN[b.choice] };
  }
  return { stale: STALE_CARD };
}
