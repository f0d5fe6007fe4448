// The approval card's answers: the keys the card takes while it is open (it holds the keyboard until it is
// answered), the answers given without asking (identical calls approved with `a`, a command file's
// `allowed-tools`), and an answer the owner gave elsewhere (their chat, the web page) applied here. What the card
// shows is approval-card.ts'; the view holds the open card.
import type { AwayLink, RemoteAnswer } from "../daemon/away-link";
import type { ApprovalOutcome } from "./approval-card";
import type { SessionScreen } from "./context";
import type { Key } from "./keys";

export interface ApprovalContext extends SessionScreen {
  /** The link that offers a card nobody answers here to the owner where they are, once it is loaded. */
  away(): AwayLink | undefined;
}

type Remember = "workspace" | "user" | "session";

export class ApprovalAnswers {
  /** Calls approved with `a`, by identity: identical ones are approved unasked for the session. */
  private readonly approvedIdentities = new Set<string>();

  constructor(private readonly ctx: ApprovalContext) {}

  /**
   * A card just opened (approval.requested): answered at once when a command file's `allowed-tools` allow the
   * call (`allowedByCommand`) or an identical call was approved with `a`; else it waits here, and is offered to
   * the owner where they are if nobody answers.
   */
  requested(p: { approval_id: string } & Record<string, unknown>, allowedByCommand: boolean): void {
    const a = this.ctx.view.approval;
    if (!a) return;
    if (allowedByCommand) return void this.answer(true, "allowed by the command's allowed-tools");
    if (!a.personOnly && this.approvedIdentities.has(a.identity)) return void this.answer(true, "approved for this session");
    this.ctx.away()?.waitingFor(p);
  }

  /**
   * y approves once, a approves identical calls for the session, t the tool for the session, p/u keep a rule;
   * n opens one line for the reason (Enter sends it, Enter alone denies without one), Esc denies at once.
   */
  key(key: Key): void {
    const { view } = this.ctx;
    const a = view.approval!;
    if (a.reason !== undefined) return this.reasonKey(key);
    // A diff longer than the card: Down or Space shows the next page, Up the one before.
    if (key.kind === "down" || (key.kind === "text" && key.text === " ")) return void view.pageApproval(1);
    if (key.kind === "up") return void view.pageApproval(-1);
    if (key.kind === "text") return this.letterKey(key.text.toLowerCase());
    if (key.kind === "escape") return void this.answer(false, "denied");
  }

  /** A letter (or a digit toggling a part of a request with parts) at the card. */
  private letterKey(k: string): void {
    const a = this.ctx.view.approval!;
    const digit = Number(k);
    if (a.choices && Number.isInteger(digit) && digit >= 1 && digit <= Math.min(9, a.choices.length)) {
      const c = a.choices[digit - 1]!;
      if (!a.leftOut!.delete(c)) a.leftOut!.add(c);
      return this.ctx.requestRender();
    }
    // Of a request with parts, the ticked ones (all of them when none is left out).
    const chosen = a.choices && a.leftOut!.size ? a.choices.filter((c) => !a.leftOut!.has(c)) : undefined;
    if (chosen?.length === 0 && (k === "y" || k === "a")) return void this.answer(false, "denied");
    if (k === "y") return void this.answer(true, "approved", undefined, undefined, chosen);
    if (k === "a") {
      if (!chosen && !a.personOnly) this.approvedIdentities.add(a.identity);
      // On a request the server keeps (an MCP server's connection), "a" keeps it for this workspace.
      return void this.answer(true, a.rememberable ? "approved for this workspace" : "approved for this session", a.rememberable ? "workspace" : undefined, undefined, chosen);
    }
    if (k === "t" && a.guardReason === undefined && !a.rulePrefix && !a.rememberable) return void this.answer(true, `${a.tool} approved for this session`, "session");
    if (k === "n") {
      a.reason = "";
      return;
    }
    if ((k === "p" || k === "u") && a.rulePrefix) return void this.answer(true, "approved and kept as a rule", k === "p" ? "workspace" : "user");
  }

  /** The reason line after `n`: what is typed here goes to the model with the denial, never into the prompt. */
  private reasonKey(key: Key): void {
    const a = this.ctx.view.approval!;
    if (key.kind === "text") a.reason += key.text;
    else if (key.kind === "paste") a.reason += key.text.split("\n").join(" ");
    else if (key.kind === "backspace") a.reason = [...a.reason!].slice(0, -1).join("");
    else if (key.kind === "enter") return void this.answer(false, "denied", undefined, a.reason!.trim() || undefined);
    else if (key.kind === "escape") return void this.answer(false, "denied");
  }

  /** Answers the open card: closed on screen at once, then sent; a rule the server kept (or refused) is said. */
  async answer(approved: boolean, decision: ApprovalOutcome, remember?: Remember, reason?: string, chosen?: string[]): Promise<void> {
    const { view, theme } = this.ctx;
    const a = view.approval;
    if (!a) return;
    this.ctx.away()?.answeredHere();
    view.clearApproval(decision, reason);
    this.ctx.requestRender();
    const r = await this.ctx
      .request("approval.resolve", { session_id: this.ctx.sessionId(), approval_id: a.approvalId, approved, ...(remember ? { remember } : {}), ...(reason ? { reason } : {}), ...(chosen ? { chosen } : {}) })
      .catch(() => undefined);
    if (r?.rule_error) view.say(remember === "session" ? `not allowed for the session: ${r.rule_error}` : `the rule was not kept: ${r.rule_error}`, theme.yellow);
    else if (r?.rule) view.say(`kept: always allow commands starting with \`${r.rule}\` ${remember === "workspace" ? "in this project" : "in every project"} (scv rules list)`, theme.dim);
    this.ctx.requestRender();
  }

  /** The owner answered the open card elsewhere (their chat, the web page): applied here, with where. */
  async answeredAway(approvalId: string, a: RemoteAnswer): Promise<void> {
    if (this.ctx.view.approval?.approvalId !== approvalId) return;
    const decision = !a.approved ? "denied" : a.session ? "approved for this session" : "approved";
    await this.answer(a.approved, decision, a.session ? "session" : undefined, a.reason);
    this.ctx.view.say(`  answered from ${a.by}`, this.ctx.theme.dim);
    this.ctx.requestRender();
  }
}
