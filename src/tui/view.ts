// The conversation as a person sees it, built from protocol notifications alone (the same events any client
// gets), with no terminal in sight: finished lines are handed out once for the scrollback (`takeCommitted`),
// and what still changes (streaming text, running tools, the approval card, the thinking line) is drawn
// fresh each frame (`live`). Tools appear by the label the server gives them; nothing here knows a tool.
import { createMarkdownRenderer, type MarkdownRenderer } from "./markdown";
import type { Style as Theme } from "../terminal/style";
import { sanitize, truncate, wrapLine, wrapText } from "./text";
import type { NotificationArgs, NotificationParams, RequestResult } from "../protocol/schema";
import type { PlanItem } from "../plan/plan";
import { counted } from "../text/plural";
import { goalEventLines } from "../server/goal";
import { type ApprovalCard, approvalCardFor, approvalCardLines, type ApprovalOutcome, cardRoom, pageCard } from "./approval-card";
import { type Block, type Collapsed, completedToolBlock, elapsed, firstLine, lastLine, planBlock, promptBlock, reasoningBlock } from "./blocks";

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

type TurnEndParams = NotificationParams<"turn.ended">;
/** A turn's end as the view shows it: live, or replayed from a stored session (which may say `interrupted`). */
type TurnEndView = Omit<TurnEndParams, "status" | "usage"> & { status: TurnEndParams["status"] | "interrupted"; usage?: TurnEndParams["usage"] };
type ResumedTurn = RequestResult<"session.resume">["turns"][number];

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

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
  private readonly collapsed: Collapsed[] = [];
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
      case "approval.requested":
        this.approval = approvalCardFor(p);
        break;
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

  /** A block's lines into the scrollback; what it collapses is kept for Ctrl-O. */
  private commit(block: Block) {
    this.committed.push(...block.lines);
    if (block.collapsed) this.keepCollapsed(block.collapsed);
  }

  private keepCollapsed(entry: Collapsed) {
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
    out.push(...planBlock(this.plan, t, w));
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
    if (this.approval) out.push(...approvalCardLines(this.approval, t, w, cardRoom(this.liveRows)));
    return out;
  }

  /** Down/Space (1) and Up (-1) at a card: the next or previous page of its summary (a long diff). */
  pageApproval(direction: 1 | -1): boolean {
    return !!this.approval && pageCard(this.approval, cardRoom(this.liveRows), direction);
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
    if (this.reasoning.trim()) this.committed.push(...reasoningBlock(this.reasoning, this.theme, this.width()));
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
    } else this.commit(promptBlock(p.prompt ?? "", t, this.width()));
    this.committed.push("");
  }

  private completeTool(p: NotificationParams<"tool.completed">) {
    const r = this.running.get(p.call_id);
    this.running.delete(p.call_id);
    const call = r && { label: r.label, ranMs: this.now() - r.startedAt, ...(r.decision ? { outcome: r.decision.outcome } : {}) };
    this.commit(completedToolBlock(p, call, this.theme, this.width(), this.cancelling));
    for (const job of Array.isArray(p.jobs) ? p.jobs : []) this.jobs.set(String(job), "running");
    for (const job of Array.isArray(p.jobs_settled) ? p.jobs_settled : []) this.jobs.delete(String(job));
    this.afterTool = true;
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
