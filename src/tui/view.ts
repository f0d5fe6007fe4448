// The conversation as a person sees it, built from protocol notifications alone (the same events any client
// gets), with no terminal in sight: finished lines are handed out once for the scrollback (`takeCommitted`),
// and what still changes (streaming text, running tools, the approval card, the thinking line) is drawn
// fresh each frame (`live`). Tools appear by the label the server gives them; nothing here knows a tool.
import { createMarkdownRenderer, type MarkdownRenderer } from "./markdown";
import type { Style as Theme } from "../terminal/style";
import { prefixText } from "../guard/prefix-text";
import { sanitize, truncate, wrapLine, wrapPhrases, wrapText } from "./text";
import type { NotificationArgs, NotificationParams, RequestResult } from "../protocol/schema";
import { riskInWords } from "../scope";
import { planLines, planProgress, type PlanItem } from "../plan/plan";
import { PASTE_COLLAPSE_CHARS, PASTE_COLLAPSE_LINES } from "./editor";
import { counted } from "../text/plural";
import { goalEventLines } from "../server/goal";
import { redactSecrets } from "../text/redact";
import { unifiedDiff } from "../tools/line-diff";

/** The lines of a long prompt shown before it is collapsed. */
const PROMPT_PREVIEW_LINES = 3;
/** The lines of a file change's diff kept in the scrollback before the rest is collapsed (Ctrl-O shows it). */
const DIFF_PREVIEW_LINES = 12;

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

interface RunningTool {
  label: string;
  startedAt: number;
  progress?: string;
  /** How the person answered its approval: said on the call's own line when it completes (one line per call). */
  decision?: { outcome: ApprovalOutcome; reason?: string };
}

interface TurnState {
  id: string;
  startedAt: number;
  background: boolean;
  lastEventAt: number;
}

/** Plan steps shown at most above the prompt (the first open step and those after it). */
const PLAN_LINES = 8;

type TurnEndParams = NotificationParams<"turn.ended">;
/** A turn's end as the view shows it: live, or replayed from a stored session (which may say `interrupted`). */
type TurnEndView = Omit<TurnEndParams, "status" | "usage"> & { status: TurnEndParams["status"] | "interrupted"; usage?: TurnEndParams["usage"] };
type ResumedTurn = RequestResult<"session.resume">["turns"][number];

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];


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

export class ConversationView {
  private committed: string[] = [];
  private partial = "";
  private streamed = "";
  private afterTool = false;
  private md: MarkdownRenderer;
  private reasoning = "";
  private readonly running = new Map<string, RunningTool>();
  private turn?: TurnState;
  /** What is shown collapsed (tool results, long prompts), newest last, for Ctrl-O; and how far back it has gone. */
  private readonly collapsed: { label: string; output: string }[] = [];
  private expandedBack = 0;
  readonly jobs = new Map<string, string>();
  approval?: ApprovalCard;
  lastUsage?: { input_tokens: number; output_tokens: number };
  totalTokens = 0;
  private notice?: string;
  /** The model's task list (plan.updated), shown above the prompt while a step is open. */
  plan: PlanItem[] = [];
  /** The person asked to cancel the running turn: failures that follow are the cancellation, not errors. */
  cancelling = false;
  /** Rows the live part may take (the app sets it from the terminal's height): a card's summary is cut to fit. */
  liveRows = Number.POSITIVE_INFINITY;

  constructor(
    private readonly theme: Theme,
    private readonly width: () => number,
    private readonly now: () => number = Date.now,
  ) {
    this.md = createMarkdownRenderer(theme, width);
  }

  get turnRunning(): boolean {
    return !!this.turn;
  }

  /** Lines for the scrollback since the last call; each line is handed out once. */
  takeCommitted(): string[] {
    const out = this.committed;
    this.committed = [];
    return out;
  }

  /** A line of the app's own (slash command output, notices) into the scrollback. */
  say(text: string, style: (s: string) => string = (s) => s): void {
    for (const l of wrapText(sanitize(text), this.width())) this.committed.push(style(l));
  }

  /** A transient line under the conversation until the next event (`cancelling…`). */
  setNotice(text: string | undefined): void {
    this.notice = text;
  }

  /** One notification of the session this view shows. */
  apply(...[method, p]: NotificationArgs): void {
    if (this.turn && "turn_id" in p && p.turn_id === this.turn.id) this.turn.lastEventAt = this.now();
    switch (method) {
      case "turn.started":
        this.startTurn(p);
        break;
      case "assistant.delta":
        if (this.notice?.startsWith("retrying")) this.notice = undefined;
        this.appendText(String(p.text ?? ""));
        break;
      case "reasoning.delta":
        this.reasoning += String(p.text ?? "");
        break;
      case "tool.started":
        if (!this.afterTool && (this.partial || this.streamed)) {
          this.flushText();
          this.committed.push("");
        }
        this.afterTool = false;
        this.flushText();
        this.streamed = "";
        this.flushReasoning();
        this.running.set(p.call_id, { label: sanitize(p.label ?? p.tool), startedAt: this.now() });
        break;
      case "tool.progress": {
        const r = this.running.get(p.call_id);
        if (r) r.progress = sanitize(String(p.line ?? ""));
        break;
      }
      case "tool.completed":
        this.completeTool(p);
        break;
      case "approval.requested": {
        this.approval = {
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
        break;
      }
      case "turn.ended":
        this.endTurn(p);
        break;
      case "model.retrying": {
        const after = p.error?.status ? `HTTP ${p.error.status}` : (p.error?.class ?? "an error");
        this.notice = `retrying in ${(Number(p.delay_ms) / 1000).toFixed(1)} s after ${after} (${p.attempt}/${p.max_retries})`;
        break;
      }
      case "approval.denied_unattended": {
        const who = p.job ? ` (${p.job})` : "";
        this.say(`⊘ denied without asking${who}: ${firstLine(String(p.summary ?? ""))} — ${p.reason}`, this.theme.yellow);
        break;
      }
      case "job.progress":
        if (this.jobs.has(p.job)) this.jobs.set(p.job, sanitize(String(p.line ?? "")));
        break;
      case "model.notice":
        this.say(`note: ${p.message}`, this.theme.yellow);
        break;
      case "plan.updated":
        this.plan = Array.isArray(p.items) ? p.items : [];
        break;
      case "goal.started":
      case "goal.progress":
      case "goal.ended":
        for (const l of goalEventLines(...([method, p] as Parameters<typeof goalEventLines>))) {
          this.say(l.text, l.tone === "ok" ? this.theme.green : l.tone === "warn" ? this.theme.yellow : l.tone === "fail" ? this.theme.red : this.theme.dim);
        }
        break;
      case "session.compacted":
        this.say(`compacted ${counted(p.turns, "earlier turn")} into a summary (about ${p.tokens_before} → ${p.tokens_after} tokens)`, this.theme.dim);
        break;
      default:
        break;
    }
  }

  /** The approval was answered (by the person or by an earlier `a`). */
  clearApproval(decision: ApprovalOutcome, reason?: string): void {
    const a = this.approval;
    if (!a) return;
    // The call's completion line says the answer: one line per call, not the approval and then the result.
    const running = this.running.get(a.callId);
    if (running) {
      running.decision = { outcome: decision, ...(reason ? { reason } : {}) };
      this.approval = undefined;
      return;
    }
    const mark = decision === "denied" ? this.theme.red("✗ denied") : this.theme.green(`✓ ${decision}`);
    this.committed.push(`  ${mark} ${this.theme.dim(truncate(firstLine(a.summary), this.width() - 20))}`);
    if (reason) for (const l of wrapLine(this.theme.dim(`    told the model: ${sanitize(reason)}`), this.width())) this.committed.push(l);
    this.approval = undefined;
  }

  /** Ctrl-O: the last tool result in full (bounded), into the scrollback. */
  /**
   * A prompt as it was sent; a long one (a pasted log) stays collapsed to its first lines, live and in a replay,
   * and Ctrl-O shows it in full.
   */
  private showPrompt(prompt: string) {
    const t = this.theme;
    const all = wrapText(sanitize(prompt), this.width() - 2);
    const long = prompt.split("\n").length > PASTE_COLLAPSE_LINES || prompt.length > PASTE_COLLAPSE_CHARS;
    const shown = long ? all.slice(0, PROMPT_PREVIEW_LINES) : all;
    shown.forEach((l, i) => this.committed.push(t.bold(`${i === 0 ? "›" : " "} ${l}`)));
    if (!long) return;
    const lineCount = prompt.split("\n").length;
    this.committed.push(t.dim(`  … pasted text, ${lineCount} line${lineCount === 1 ? "" : "s"}, ${prompt.length} characters (Ctrl-O shows it)`));
    this.keepCollapsed({ label: "prompt", output: prompt });
  }

  private keepCollapsed(entry: { label: string; output: string }) {
    this.collapsed.push(entry);
    if (this.collapsed.length > 50) this.collapsed.shift();
    this.expandedBack = 0;
  }

  /** Ctrl-O: the newest collapsed result or prompt in full; pressed again, the one before it. */
  expandLastResult(): boolean {
    if (!this.collapsed.length) return false;
    if (this.expandedBack >= this.collapsed.length) this.expandedBack = 0;
    const shownEntry = this.collapsed[this.collapsed.length - 1 - this.expandedBack++]!;
    this.committed.push(this.theme.dim(`── ${shownEntry.label} ──`));
    const lines = sanitize(shownEntry.output).split("\n");
    const shown = lines.slice(0, 400);
    for (const l of shown) this.committed.push(...wrapLine(l, this.width()));
    if (lines.length > shown.length) this.committed.push(this.theme.dim(`… ${lines.length - shown.length} more lines`));
    this.committed.push(this.theme.dim("──"));
    return true;
  }

  /** The changing part of the screen, top to bottom, for this frame. */
  live(frame: number): string[] {
    const t = this.theme;
    const w = this.width();
    const out: string[] = [];
    const spin = t.cyan(SPINNER[frame % SPINNER.length]!);
    out.push(...this.planBlock());
    for (const [callId, r] of this.running) {
      if (this.approval?.callId === callId) continue; // the card below stands for it
      out.push(truncate(`${spin} ${r.label} ${t.dim(elapsed(this.now() - r.startedAt))}`, w));
      if (r.progress) out.push(truncate(t.dim(`  ${r.progress}`), w));
    }
    if (this.reasoning && !this.partial) out.push(truncate(t.dim(t.italic(`thinking: ${lastLine(this.reasoning)}`)), w));
    if (this.partial) out.push(...this.md.preview(this.partial));
    else out.push(...this.md.pending());
    if (this.turn && this.running.size === 0 && !this.approval && !this.partial) {
      const label = this.turn.background ? "background report" : "working";
      out.push(`${spin} ${t.dim(`${label}… ${elapsed(this.now() - this.turn.startedAt)} · Ctrl-C to cancel`)}`);
    }
    if (this.notice) out.push(t.yellow(truncate(this.notice, w)));
    if (this.approval) out.push(...this.approvalCard(this.approval));
    return out;
  }

  /** The plan while any step is open: done steps dimmed, the current one bold; long plans keep the open steps. */
  private planBlock(): string[] {
    const items = this.plan;
    if (!items.length || items.every((i) => i.status === "done")) return [];
    const t = this.theme;
    const w = this.width();
    const lines = planLines(items).map((l, i) => {
      const status = items[i]!.status;
      const text = truncate(`  ${sanitize(l)}`, w);
      return status === "done" ? t.dim(text) : status === "in_progress" ? t.bold(text) : text;
    });
    const firstOpen = Math.max(0, items.findIndex((i) => i.status !== "done"));
    const from = Math.max(0, Math.min(firstOpen, lines.length - PLAN_LINES));
    const shown = lines.slice(from, from + PLAN_LINES);
    return [t.cyan(truncate(`plan · ${planProgress(items)}`, w)), ...shown];
  }

  private approvalCard(a: ApprovalCard): string[] {
    const t = this.theme;
    const w = this.width();
    const words = riskInWords(a.risk, a.sandbox);
    const out = [truncate(t.yellow(`╭─ Allow ${a.tool}? `) + t.bold(`${a.risk}: ${words}`), w)];
    const summary = sanitize(a.summary).split("\n");
    // The question and its answers must stay on screen: the summary gives way on a short terminal, and the
    // rest is paged with Down/Space and Up.
    const room = this.cardRoom();
    const from = Math.min(a.offset ?? 0, Math.max(0, summary.length - room));
    const shown = summary.slice(from, from + room);
    if (from > 0) out.push(`${t.yellow("│")} ${t.dim(`… ${from} lines above (Up)`)}`);
    for (const l of shown) {
      const styled = this.diffLine(l);
      for (const wrapped of wrapLine(styled, w - 2)) out.push(`${t.yellow("│")} ${wrapped}`);
    }
    const below = summary.length - from - shown.length;
    if (below > 0) out.push(`${t.yellow("│")} ${t.dim(`… ${below} more lines (Down or Space: next page)`)}`);
    if (a.guardReason) for (const wrapped of wrapLine(t.dim(`guard: asks because ${sanitize(a.guardReason)}`), w - 2)) out.push(`${t.yellow("│")} ${wrapped}`);
    if (a.rulePrefix) {
      const rule = [`${t.bold("p")} always allow commands starting with \`${sanitize(prefixText(a.rulePrefix))}\` in this project`, `${t.bold("u")} … in every project`];
      for (const wrapped of wrapPhrases(rule, w - 2)) out.push(`${t.yellow("│")} ${wrapped}`);
    }
    if (a.reason !== undefined) {
      const ask = `${t.bold("n")}: what should it do instead? ${t.dim("(Enter sends · Enter alone: no reason · Esc: deny now)")}`;
      for (const wrapped of wrapLine(ask, w - 2)) out.push(`${t.yellow("│")} ${wrapped}`);
      const typed = sanitize(a.reason);
      const room = Math.max(10, w - 5);
      out.push(`${t.yellow("╰─")} › ${typed.length > room ? `…${typed.slice(typed.length - room + 1)}` : typed}${t.dim("▌")}`);
      return out;
    }
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

  /** Summary lines an approval card shows at once on this terminal. */
  private cardRoom(): number {
    return Math.max(3, Math.min(40, this.liveRows - 10));
  }

  /** Down/Space (1) and Up (-1) at a card: the next or previous page of its summary (a long diff). */
  pageApproval(direction: 1 | -1): boolean {
    const a = this.approval;
    if (!a) return false;
    const lines = a.summary.split("\n").length;
    const room = this.cardRoom();
    if (lines <= room) return false;
    a.offset = Math.max(0, Math.min(lines - room, (a.offset ?? 0) + direction * room));
    return true;
  }

  private appendText(delta: string) {
    this.flushReasoning();
    if (this.afterTool && delta.trim()) {
      this.committed.push("");
      this.afterTool = false;
    }
    this.streamed += delta;
    this.partial += delta;
    const nl = this.partial.lastIndexOf("\n");
    if (nl < 0) return;
    const complete = this.partial.slice(0, nl);
    this.partial = this.partial.slice(nl + 1);
    for (const line of complete.split("\n")) this.committed.push(...this.md.line(line));
  }

  private flushText() {
    if (this.partial) this.committed.push(...this.md.line(this.partial));
    this.partial = "";
    this.committed.push(...this.md.flush());
  }

  /** A reasoning summary is shown dimmed and folded to its first lines; it is never part of the reply. */
  private flushReasoning() {
    if (!this.reasoning.trim()) {
      this.reasoning = "";
      return;
    }
    const lines = sanitize(this.reasoning.trim()).split("\n").filter((l) => l.trim());
    const shown = lines.slice(0, 3).flatMap((l) => wrapLine(l, this.width() - 2));
    for (const l of shown) this.committed.push(this.theme.dim(this.theme.italic(`  ${l}`)));
    if (lines.length > 3) this.committed.push(this.theme.dim(`  … ${lines.length - 3} more lines of reasoning`));
    this.reasoning = "";
  }

  /** A stored turn of a resumed session, shown as it was. */
  replay(sessionId: string, turn: ResumedTurn): void {
    const ids = { session_id: sessionId, turn_id: `stored-${turn.turn_id ?? ""}` };
    this.startTurn({ ...ids, origin: turn.origin ?? { kind: "user" }, prompt: turn.prompt ?? "" });
    // Its tool calls as their one-line results, as they were shown then (no output preview: the reply follows).
    (turn.calls ?? []).forEach((c, i) => {
      const call = { ...ids, call_id: `${ids.turn_id}-${i}`, tool: c.tool };
      this.apply("tool.started", { ...call, label: c.label });
      this.apply("tool.completed", { ...call, ok: c.ok, output: "", ...(c.display ? { display: c.display } : {}), ...(c.denied ? { denied: true } : {}), ...(c.diff ? { diff: c.diff } : {}) });
    });
    this.endTurn({ ...ids, origin: turn.origin ?? { kind: "user" }, status: turn.status, error: turn.error, reply: turn.reply ?? "", usage: turn.usage });
  }

  private startTurn(p: NotificationParams<"turn.started">) {
    const t = this.theme;
    this.flushText();
    this.streamed = "";
    const background = p.origin?.kind === "background";
    this.turn = { id: p.turn_id, startedAt: this.now(), background, lastEventAt: this.now() };
    this.committed.push("");
    if (p.origin?.kind === "background") {
      const jobs = (p.origin.jobs ?? []).join(", ");
      this.committed.push(t.magenta(`◆ background report${jobs ? `: ${jobs}` : ""}`));
    } else this.showPrompt(p.prompt ?? "");
    this.committed.push("");
  }

  private completeTool(p: NotificationParams<"tool.completed">) {
    const t = this.theme;
    const r = this.running.get(p.call_id);
    this.running.delete(p.call_id);
    const label = r?.label ?? sanitize(p.tool ?? "tool");
    // What the tool wrote for a person (an agent's reply) when the output is for the model (its JSON).
    const output = typeof p.preview === "string" ? p.preview : String(p.output ?? "");
    const denied = p.denied === true || (!p.ok && /^not run:/.test(String(p.output ?? "")));
    // The tool's own account of how the call went (`exit 0, 1.2 s`, `+12 -3 lines`) when it gives one.
    const detail = typeof p.display === "string" && p.display ? p.display : r ? elapsed(this.now() - r.startedAt) : "";
    const mark = p.ok ? t.green("✓") : denied || this.cancelling ? t.yellow("⊘") : t.red("✗");
    const byHook = p.hook ? ` by ${sanitize(p.hook.event)} hook: ${sanitize(firstLine(p.hook.reason))}` : "";
    const status = p.ok ? "" : denied ? t.yellow(` denied${byHook}`) : this.cancelling ? t.yellow(" cancelled") : t.red(" failed");
    // A denial's why (the guard's refusal, the person's words) is said on the line itself.
    const why = denied && !byHook && typeof p.display === "string" && p.display;
    // How the person answered, when it says more than the mark does (a plain yes is the ✓, a denial the ⊘ and
    // its reason): "approved for this session", "approved and kept as a rule".
    const outcome = r?.decision?.outcome;
    const answered = outcome && outcome !== "approved" && outcome !== "denied" ? outcome : "";
    const said = [detail ? sanitize(detail) : "", answered].filter(Boolean).join(" · ");
    if (why) this.committed.push(...wrapLine(`${mark} ${label} ${t.yellow(sanitize(why))}`, this.width()));
    else this.committed.push(truncate(`${mark} ${label}${status}${said ? t.dim(` (${said})`) : ""}`, this.width()));
    for (const job of Array.isArray(p.jobs) ? p.jobs : []) this.jobs.set(String(job), "running");
    for (const job of Array.isArray(p.jobs_settled) ? p.jobs_settled : []) this.jobs.delete(String(job));
    this.afterTool = true;
    if (typeof p.diff === "string" && p.diff && p.ok) return this.showDiff(label, p.diff);
    // A short preview of what the model got back: its first lines.
    const shownLines = denied ? [] : output.split("\n").filter((l) => l.trim());
    // `exit 0` first in a command's output is already on the call's line (`exit 0, 0.6 s`).
    if (shownLines.length && detail && detail.startsWith(`${shownLines[0]!.trim()},`)) shownLines.shift();
    if (shownLines.length === 1 && shownLines[0] === "[no output]") shownLines.shift(); // the call's line says it all
    const preview = shownLines.slice(0, 3);
    const hidden = shownLines.length - preview.length;
    preview.forEach((line, i) => {
      const more = i === preview.length - 1 && hidden > 0 ? t.dim(` (+${counted(hidden, "line")}, Ctrl-O)`) : "";
      this.committed.push(truncate(`  ${t.dim(i === 0 ? "└" : " ")} ${sanitize(line)}`, this.width() - (more ? 20 : 0)) + more);
    });
    this.keepCollapsed({ label, output });
  }

  /** A file change stays in the scrollback as its diff: the first lines, the rest behind Ctrl-O. */
  private showDiff(label: string, diff: string) {
    const lines = diff.split("\n");
    const shown = lines.slice(0, DIFF_PREVIEW_LINES);
    for (const l of shown) this.committed.push(truncate(`    ${this.diffLine(sanitize(l))}`, this.width()));
    const hidden = lines.length - shown.length;
    if (hidden > 0) this.committed.push(this.theme.dim(`    … ${counted(hidden, "more line")} (Ctrl-O shows the whole diff)`));
    this.keepCollapsed({ label, output: diff });
  }

  /** A diff line coloured as a person expects: additions green, removals red, hunk headers cyan. */
  private diffLine(l: string): string {
    const t = this.theme;
    if (/^@@ .* @@/.test(l)) return t.cyan(l);
    if (l.startsWith("+") && !l.startsWith("+++")) return t.green(l);
    if (l.startsWith("-") && !l.startsWith("---")) return t.red(l);
    return l;
  }

  private endTurn(p: TurnEndView) {
    const t = this.theme;
    this.flushText();
    this.flushReasoning();
    // Text the stream did not carry (a Sources list added at the end, a reply from a resumed record) follows.
    const reply = String(p.reply ?? "");
    const rest = reply.startsWith(this.streamed) ? reply.slice(this.streamed.length) : this.streamed ? "" : reply;
    if (rest.trim()) for (const line of rest.replace(/^\n+|\n+$/g, "").split("\n")) this.committed.push(...this.md.line(line));
    this.committed.push(...this.md.flush());
    this.streamed = "";
    for (const job of p.origin?.kind === "background" ? (p.origin.jobs ?? []) : []) this.jobs.delete(String(job));
    if (p.status === "failed") {
      this.committed.push(t.red(`✗ turn failed: ${sanitize(p.error?.message ?? "unknown error")}`));
    } else if (p.status === "cancelled") this.committed.push(t.yellow("⊘ cancelled"));
    else if (p.status === "interrupted") this.committed.push(t.yellow("⊘ interrupted: the process running this turn ended"));
    if (p.usage) {
      this.lastUsage = { input_tokens: p.usage.input_tokens, output_tokens: p.usage.output_tokens };
      this.totalTokens += p.usage.input_tokens + p.usage.output_tokens;
    }
    this.running.clear();
    this.approval = undefined;
    this.notice = undefined;
    this.cancelling = false;
    if (!this.turn || p.turn_id === this.turn.id) this.turn = undefined;
  }
}

function firstLine(s: string): string {
  return s.split("\n").find((l) => l.trim()) ?? "";
}

function lastLine(s: string): string {
  const lines = s.trim().split("\n");
  return sanitize(lines[lines.length - 1] ?? "");
}

function elapsed(ms: number): string {
  const s = Math.floor(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
}
