// The approval card as the conversation view holds and draws it: what an `approval.requested` notification
// becomes, its lines above the prompt (the question and its answers always on screen, a long diff paged), and its
// paging. Which key answers what is approval-keys.ts'; the card itself reads no keys.
import type { Style as Theme } from "../terminal/style";
import { prefixText } from "../guard/prefix-text";
import { sanitize, truncate, wrapLine, wrapPhrases } from "./text";
import type { NotificationParams } from "../protocol/schema";
import { riskInWords } from "../scope";
import { redactSecrets } from "../text/redact";
import { unifiedDiff } from "../tools/line-diff";
import { diffLine } from "./blocks";

export interface ApprovalCard {
  approvalId: string;
  callId: string;
  tool: string;
  risk: string;
  summary: string;
  /** Identity of the call for "approve identical calls" (the server's fingerprint when it sent one). */
  identity: string;
  /** Why the command guard asks, for a command. */
  guardReason?: string;
  /** How the command runs (the guard's `sandbox`): `sandboxed: …` or `not sandboxed: …`. */
  sandbox?: string;
  /** Only a person's answer approves it (a request to run outside the sandbox): never "a" for the session. */
  personOnly?: boolean;
  /** The prefix the person may keep as a rule ("always allow commands starting with …"). */
  rulePrefix?: string[];
  /** The server keeps an "always" answer for the workspace (an MCP server's connection). */
  rememberable?: boolean;
  /** The parts of a request the person may approve one by one (MCP servers), and which are left out so far. */
  choices?: string[];
  leftOut?: Set<string>;
  /** The first summary line shown: Down/Space and Up page through a diff longer than the card. */
  offset?: number;
  /** After `n`: the reason being typed for the model (Enter sends it, Esc denies without one). */
  reason?: string;
}

export type ApprovalOutcome = "approved" | "approved for this session" | "approved for this workspace" | `${string} approved for this session` | "approved and kept as a rule" | "allowed by the command's allowed-tools" | "denied";

/** Lines of a file change's diff a card can page through (Down/Space): the whole change, not the preview. */
const CARD_DIFF_LINES = 5000;

/**
 * A file change's card: the summary's first line (`write x.ts +80 -0 lines:`), then the whole diff made from the
 * request's `change` (the summary's own diff stops at a preview), secret-looking values masked as the tools do.
 */
function wholeDiffSummary(summary: string, change: { old_text: string | null; new_text: string } | undefined): string {
  if (!change) return summary;
  const diff = unifiedDiff(change.old_text ?? "", change.new_text, { maxLines: CARD_DIFF_LINES, maxChars: 400 });
  return `${summary.split("\n", 1)[0]}\n${diff.text.split("\n").map(redactSecrets).join("\n")}`;
}

/** The card an `approval.requested` notification asks for. */
export function approvalCardFor(p: NotificationParams<"approval.requested">): ApprovalCard {
  return {
    approvalId: p.approval_id,
    callId: p.call_id,
    tool: p.tool,
    risk: p.risk,
    summary: wholeDiffSummary(String(p.summary ?? ""), p.change),
    // The server's fingerprint names identical calls (same tool and arguments); a request relayed from a
    // delegated agent has none, and counts as identical only with the same summary.
    identity: typeof p.fingerprint === "string" ? p.fingerprint : `${p.tool}\u0000${p.summary}`,
    ...(typeof p.guard?.reason === "string" ? { guardReason: p.guard.reason } : {}),
    ...(typeof p.guard?.sandbox === "string" ? { sandbox: p.guard.sandbox } : {}),
    ...(p.guard?.person_only === true ? { personOnly: true } : {}),
    ...(Array.isArray(p.rule_prefix) ? { rulePrefix: p.rule_prefix.map(String) } : {}),
    ...(p.rememberable === true ? { rememberable: true } : {}),
    ...(Array.isArray(p.choices) && p.choices.length ? { choices: p.choices.map(String), leftOut: new Set<string>() } : {}),
  };
}

/** Summary lines a card shows at once when the live part may take `liveRows` rows. */
export function cardRoom(liveRows: number): number {
  return Math.max(3, Math.min(40, liveRows - 10));
}

/** Down/Space (1) and Up (-1): the card's next or previous page of its summary; false when it fits on one. */
export function pageCard(a: ApprovalCard, room: number, direction: 1 | -1): boolean {
  const lines = a.summary.split("\n").length;
  if (lines <= room) return false;
  a.offset = Math.max(0, Math.min(lines - room, (a.offset ?? 0) + direction * room));
  return true;
}

/** The card's lines: the question, `room` lines of its summary, then its answers (or the reason being typed). */
export function approvalCardLines(a: ApprovalCard, t: Theme, w: number, room: number): string[] {
  const bar = t.yellow("│");
  const out = [truncate(t.yellow(`╭─ Allow ${a.tool}? `) + t.bold(`${a.risk}: ${riskInWords(a.risk, a.sandbox)}`), w)];
  const summary = sanitize(a.summary).split("\n");
  // The question and its answers must stay on screen: the summary gives way on a short terminal, and the
  // rest is paged with Down/Space and Up.
  const from = Math.min(a.offset ?? 0, Math.max(0, summary.length - room));
  const shown = summary.slice(from, from + room);
  if (from > 0) out.push(`${bar} ${t.dim(`… ${from} lines above (Up)`)}`);
  for (const l of shown) for (const wrapped of wrapLine(diffLine(t, l), w - 2)) out.push(`${bar} ${wrapped}`);
  const below = summary.length - from - shown.length;
  if (below > 0) out.push(`${bar} ${t.dim(`… ${below} more lines (Down or Space: next page)`)}`);
  if (a.guardReason) for (const wrapped of wrapLine(t.dim(`guard: asks because ${sanitize(a.guardReason)}`), w - 2)) out.push(`${bar} ${wrapped}`);
  if (a.rulePrefix) {
    const rule = [`${t.bold("p")} always allow commands starting with \`${sanitize(prefixText(a.rulePrefix))}\` in this project`, `${t.bold("u")} … in every project`];
    for (const wrapped of wrapPhrases(rule, w - 2)) out.push(`${bar} ${wrapped}`);
  }
  return [...out, ...(a.reason !== undefined ? reasonLines(a.reason, t, w) : answerLines(a, t, w))];
}

/** After `n`: the line where the reason for the model is typed. */
function reasonLines(reason: string, t: Theme, w: number): string[] {
  const out: string[] = [];
  const ask = `${t.bold("n")}: what should it do instead? ${t.dim("(Enter sends · Enter alone: no reason · Esc: deny now)")}`;
  for (const wrapped of wrapLine(ask, w - 2)) out.push(`${t.yellow("│")} ${wrapped}`);
  const typed = sanitize(reason);
  const room = Math.max(10, w - 5);
  out.push(`${t.yellow("╰─")} › ${typed.length > room ? `…${typed.slice(typed.length - room + 1)}` : typed}${t.dim("▌")}`);
  return out;
}

/** The parts to tick (when the request has them) and the footer of answers. */
function answerLines(a: ApprovalCard, t: Theme, w: number): string[] {
  const out: string[] = [];
  if (a.choices) {
    // Each part on its own line, a digit toggles it: y and a approve the ones ticked.
    a.choices.forEach((c, i) => out.push(`${t.yellow("│")} ${i < 9 ? t.bold(String(i + 1)) : " "} ${a.leftOut?.has(c) ? "☐" : "☑"} ${sanitize(c)}`));
  }
  const perTool = a.guardReason === undefined && !a.rulePrefix && !a.rememberable ? [`${t.bold("t")} don't ask again for ${sanitize(a.tool)} this session`] : [];
  // A request the server keeps (an MCP server's connection) keeps "a" for this workspace: the card says so.
  const always = a.rememberable ? "always for this workspace" : "identical calls this session";
  const ticked = a.choices ? ` the ticked (${t.bold("1")}-${t.bold(String(Math.min(9, a.choices.length)))} toggle)` : " once";
  // Broken between answers only: a footer never splits "n deny and say why" across lines.
  const wrapped = wrapPhrases([`${t.bold("y")} approve${ticked}`, `${t.bold("a")} ${always}`, ...perTool, `${t.bold("n")} deny and say why`, `${t.bold("Esc")} deny`], w - 3);
  wrapped.forEach((l, i) => out.push((i === wrapped.length - 1 ? t.yellow("╰─ ") : `${t.yellow("│")}  `) + l));
  return out;
}
