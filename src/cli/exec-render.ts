// What `scv exec` shows a person: the reply on stdout; on stderr each tool call as the protocol labels it
// (`$ cargo test`, `write src/x.ts`) with its outcome (`exit 0, 1.2 s`, `+12 -3 lines`, `denied`), approval
// cards, and — on a terminal only — the last output line of a running call, a waiting indicator and provider
// retries. It knows no tool by name: everything it prints comes from the notifications.
import { prefixText } from "../guard/prefix-text";
import type { NotificationArgs, NotificationParams } from "../protocol/schema";
import { planLines } from "../plan/plan";
import { goalEventLines } from "../server/goal";
import { riskInWords } from "../scope";
import { type Style, styleFor } from "../terminal/style";
import { ellipsize } from "../text/cut";
import { terminalSafe } from "../text/terminal-safe";
import { counted } from "../text/plural";

/** Text SCV did not write itself, as a terminal may show it (src/text/terminal-safe.ts): controls visible. */
const safe = (text: unknown) => terminalSafe(String(text ?? ""));

export interface Stream {
  write(s: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

const WAIT_AFTER_MS = 1000;
/** Lines of a file change's diff shown under its call. */
const DIFF_LINES = 20;
const RUNNING = "  running…";

export function createExecRenderer(opts: { stdout: Stream; stderr: Stream; json: boolean; env?: Record<string, string | undefined> }): ExecRenderer {
  return new ExecRenderer(opts.stdout, opts.stderr, opts.json, styleFor(opts.stderr, opts.env));
}

/** How a finished call reads after its label, and whether that is bad news. */
function outcomeOf(p: NotificationParams<"tool.completed">, blockedBecause: string | undefined): { text: string; bad: boolean } {
  if (blockedBecause !== undefined) return { text: `blocked: ${safe(blockedBecause.replace(/^refused: /, ""))}`, bad: true };
  const hook = p.hook ? `${p.hook.event} hook \`${safe(p.hook.command)}\`: ${safe(ellipsize(p.hook.reason.split("\n", 1)[0]!, 200))}` : undefined;
  // A denial says why when there is a why: the person's words (`denied: use the helper`), the guard's refusal.
  if (p.denied) return { text: hook ? `blocked by ${hook}` : typeof p.display === "string" && p.display ? safe(p.display) : "denied", bad: true };
  if (hook) return { text: `${p.display ? `${safe(p.display)}; ` : ""}${hook}`, bad: true };
  if (typeof p.display === "string" && p.display) return { text: safe(p.display), bad: !p.ok };
  if (p.ok) return { text: "", bad: false };
  const first = safe(String(p.output ?? "").split("\n", 1)[0]!.slice(0, 200));
  return { text: `failed: ${first}`, bad: true };
}

export class ExecRenderer {
  private readonly tty: boolean;
  /** A transient line (progress, the waiting indicator) is on stderr, to be cleared before anything else. */
  private transient = false;
  /** The call whose start line is the last line written to stderr (its outcome can complete that line). */
  private lastStart: { callId: string; label: string } | undefined;
  /** Labels of calls still running, to name a call again when its outcome comes after other lines. */
  private readonly labels = new Map<string, string>();
  /** Calls approved without a card, with how: said on their outcome line. */
  private readonly answered = new Map<string, string>();
  /** Calls whose card showed their change: the outcome line does not show the diff again. */
  private readonly carded = new Set<string>();
  /** Calls the command guard blocked: their outcome says so, with the reason. */
  private readonly blocked = new Map<string, string>();
  /**
   * The main turn's reply text written to stdout so far, as its chunks (joined once, at the turn's end: nothing
   * per chunk looks at the whole text), and whether it ends a line.
   */
  private streamed: string[] = [];
  private streamedEndsLine = true;
  /** The text streamed before the latest call line (a goal's check follows the model's last text). */
  private streamedBeforeCall = "";
  private waitTimer: ReturnType<typeof setInterval> | undefined;
  /**
   * Not on a terminal a start line cannot be completed in place, so it waits: a quick call becomes one line
   * (`$ ls (exit 0, 0.0 s)`); a call still running after a second, or asking first, shows its start line then.
   */
  private deferred: { callId: string; text: string; timer: ReturnType<typeof setTimeout> } | undefined;

  /** The reply on stdout: sanitised when stdout is a terminal (a reply redirected to a file keeps its bytes). */
  private reply(text: string): string {
    return this.stdout.isTTY ? terminalSafe(text) : text;
  }

  constructor(
    private readonly stdout: Stream,
    private readonly stderr: Stream,
    private readonly json: boolean,
    private readonly s: Style,
  ) {
    this.tty = !!stderr.isTTY;
  }

  /** Turn events; returns nothing, writes what a person should see. `mainTurn` is the turn exec started. */
  notify(mainTurn: string, ...[method, p]: NotificationArgs): void {
    switch (method) {
      case "turn.started":
        // (The main turn's id is not known yet: turn.started comes before the turn.start answer.)
        return this.startWaiting();
      case "assistant.delta":
        return this.onAssistantText(p, mainTurn);
      case "model.retrying":
        return this.onRetrying(p);
      case "approval.denied_unattended":
        if (!this.json) this.line(this.s.yellow(`  denied without asking${p.job ? ` (${safe(p.job)})` : ""}: ${safe(String(p.summary ?? "").split("\n", 1)[0])} (${safe(p.reason)})`));
        return;
      case "model.notice":
        if (!this.json) this.line(this.s.yellow(`scv exec: ${safe(p.message)}`));
        return;
      case "plan.updated":
        // A person at a terminal follows the plan as it changes; a log or a pipe has the tool lines.
        // Its steps under the plan call's line, which already says how far it is (`plan: 1/3 done`).
        if (!this.json && this.tty) this.line(this.s.cyan(safe(p.items.length ? planLines(p.items).map((l) => `  ${l}`).join("\n") : "  (plan cleared)")));
        return;
      case "session.compacted":
        if (!this.json) this.line(this.s.dim(`· compacted ${counted(p.turns, "earlier turn")} into a summary (about ${p.tokens_before} → ${p.tokens_after} tokens)`));
        return;
      case "goal.started":
      case "goal.progress":
      case "goal.ended":
        if (this.json) return;
        for (const l of goalEventLines(...([method, p] as Parameters<typeof goalEventLines>))) {
          const paint = l.tone === "ok" ? this.s.green : l.tone === "warn" ? this.s.yellow : l.tone === "fail" ? this.s.red : this.s.dim;
          this.line(paint(safe(l.text)));
        }
        return;
      case "tool.started":
        return this.onToolStarted(p);
      case "tool.progress":
        return this.onToolProgress(p);
      case "tool.completed":
        return this.onToolCompleted(p, mainTurn);
      case "turn.ended":
        return this.onTurnEnded(p, mainTurn);
    }
  }

  /** The approval card: what will happen, the risk in words, why the guard asks, then the question (asked by the caller). */
  approvalCard(p: { call_id?: string; tool: string; risk: string; summary: string; guard?: { reason: string; sandbox?: string }; rule_prefix?: string[]; perTool?: boolean; rememberable?: boolean; choices?: string[] }): string {
    const s = this.s;
    if (p.call_id) this.carded.add(p.call_id);
    this.flushDeferred();
    this.stopWaiting();
    this.endStdoutLine();
    this.lastStart = undefined;
    // Exactly what will run, every control shown as \xNN and never interpreted: the card cannot be redrawn.
    const body = safe(p.summary)
      .split("\n")
      .map((l) => {
        if (/^@@ .* @@$/.test(l)) return `  ${s.cyan(l)}`;
        if (l.startsWith("+")) return `  ${s.green(l)}`;
        if (l.startsWith("-")) return `  ${s.red(l)}`;
        return `  ${l}`;
      })
      .join("\n");
    const guard = p.guard ? `\n  ${s.dim(`guard: asks because ${safe(p.guard.reason)}`)}` : "";
    const prefix = p.rule_prefix ? safe(prefixText(p.rule_prefix)) : undefined;
    const rules = prefix ? `\nor ${s.bold("p")}: always allow commands starting with \`${prefix}\` in this project, ${s.bold("u")}: in every project` : "";
    const perTool = p.perTool ? `\nor ${s.bold("t")}: don't ask again for ${safe(p.tool)} in this run` : "";
    // A request that keeps its own answer (an MCP server's connection) keeps "always" for this workspace: say so.
    const always = p.rememberable ? "lways, kept for this workspace" : "lways for identical calls in this run";
    const some = p.choices?.length ? ` / ${s.bold("s")}ome of them (${p.choices.length}, asked one by one)` : "";
    const yes = p.choices?.length ? "es, all" : "es";
    return `\n${s.bold(`Approve ${safe(p.tool)}?`)} ${s.yellow(`It ${riskInWords(p.risk, p.guard?.sandbox)} (${p.risk}).`)}\n${body}${guard}${rules}${perTool}\nAllow? ${s.bold("y")}${yes} / ${s.bold("n")}o (then say why) / ${s.bold("a")}${always}${some} [y/N/a${p.perTool ? "/t" : ""}${some ? "/s" : ""}] `;
  }

  /** A call approved without a card (an identical one allowed with `a`): its line says so when it completes. */
  answeredBy(callId: string, why: string): void {
    this.answered.set(callId, why);
  }

  /** The person approved the call the card was about: it runs now. */
  approved(): void {
    this.startWaiting(RUNNING);
  }

  /** A permanent stderr line (notes from exec itself). */
  note(text: string): void {
    this.stopWaiting();
    this.line(text);
  }

  stop(): void {
    this.flushDeferred();
    this.stopWaiting();
  }

  private onAssistantText(p: NotificationParams<"assistant.delta">, mainTurn: string) {
    this.stopWaiting();
    if (this.json || p.turn_id !== mainTurn) return;
    if (p.text) {
      this.streamed.push(p.text);
      this.streamedEndsLine = p.text.endsWith("\n");
    }
    this.lastStart = undefined;
    this.flushDeferred();
    this.stdout.write(this.reply(p.text));
  }

  private onRetrying(p: NotificationParams<"model.retrying">) {
    const after = p.error?.status ? `HTTP ${p.error.status}` : (p.error?.class ?? "an error");
    if (this.tty) this.line(this.s.yellow(`retrying in ${(p.delay_ms / 1000).toFixed(1)} s after ${after} (${p.attempt}/${p.max_retries})`));
    this.startWaiting();
  }

  private onToolStarted(p: NotificationParams<"tool.started">) {
    this.stopWaiting();
    if (this.json) return;
    if (p.guard?.decision === "block") this.blocked.set(p.call_id, String(p.guard.reason));
    const label = safe(p.label);
    // Text before a tool call is its own segment; keep stdout lines whole around tool lines.
    this.endStdoutLine();
    if (!this.tty) {
      this.flushDeferred();
      this.deferred = { callId: p.call_id, text: this.s.bold(label), timer: setTimeout(() => this.flushDeferred(), WAIT_AFTER_MS) };
      this.labels.set(p.call_id, label);
      return;
    }
    this.line(this.s.bold(this.fit(label)));
    this.lastStart = { callId: p.call_id, label: this.fit(label) };
    this.labels.set(p.call_id, this.fit(label));
    this.startWaiting(RUNNING);
  }

  /**
   * A sample of the output (at most two lines a second): on a terminal the last line replaces the one before;
   * in a log, samples with gaps between them would read like lost output, so none are kept.
   */
  private onToolProgress(p: NotificationParams<"tool.progress">) {
    if (this.json || !this.tty) return;
    this.stopWaiting(false); // output is a sign of life of its own
    this.showTransient(`  ${safe(p.line)}`);
  }

  private onToolCompleted(p: NotificationParams<"tool.completed">, mainTurn: string) {
    this.stopWaiting();
    if (!this.json) this.writeOutcome(p);
    if (p.turn_id === mainTurn) this.startWaiting();
  }

  /** The call's label with its outcome: in place of its start line when that is the last line, else anew. */
  private writeOutcome(p: NotificationParams<"tool.completed">) {
    const s = this.s;
    const guard = this.blocked.get(p.call_id);
    this.blocked.delete(p.call_id);
    const outcome = outcomeOf(p, guard);
    const why = this.answered.get(p.call_id);
    this.answered.delete(p.call_id);
    const { bad } = outcome;
    const text = why ? [outcome.text, `approved: ${why}`].filter(Boolean).join("; ") : outcome.text;
    const label = this.labels.get(p.call_id) ?? safe(p.tool);
    this.labels.delete(p.call_id);
    const full = `${s.bold(label)}${text ? ` ${(bad ? s.red : s.dim)(`(${text})`)}` : ""}`;
    const waiting = this.deferred?.callId === p.call_id;
    if (waiting) {
      clearTimeout(this.deferred!.timer);
      this.deferred = undefined;
      this.line(full);
    } else if (this.tty && this.lastStart?.callId === p.call_id) {
      // Complete the start line in place: `read src/x.ts (bytes 0-400)`.
      this.clearTransient();
      this.stderr.write(`\x1b[1A\r\x1b[2K${full}\n`);
      this.lastStart = undefined;
    } else if (text) this.line(full); // output or a question came between: name the call again
    else this.clearTransient();
    // A diff the card already showed is not shown twice: the call's line says it was made.
    const carded = this.carded.delete(p.call_id);
    if (p.ok && typeof p.diff === "string" && p.diff && !carded) this.showDiff(p.diff);
    if (Array.isArray(p.jobs) && p.jobs.length) {
      this.line(`  started ${p.jobs.join(", ")}; waiting for the report before exiting (Ctrl-C cancels)`);
    }
  }

  /** A file change's diff under its line, bounded: the session record keeps all of it (`scv sessions show`). */
  private showDiff(diff: string) {
    const s = this.s;
    const lines = diff.split("\n").map(safe);
    const shown = lines.slice(0, DIFF_LINES);
    for (const l of shown) this.line(`  ${/^@@ .* @@/.test(l) ? s.cyan(l) : l.startsWith("+") ? s.green(l) : l.startsWith("-") ? s.red(l) : l}`);
    if (lines.length > shown.length) this.line(s.dim(`  … ${counted(lines.length - shown.length, "more line")} (scv sessions show has the whole diff)`));
  }

  private onTurnEnded(p: NotificationParams<"turn.ended">, mainTurn: string) {
    this.stopWaiting();
    if (this.json) return;
    if (p.origin?.kind === "background") {
      this.line(`\n[background report: ${safe((p.origin.jobs ?? []).join(", "))}]`);
      this.stdout.write(this.reply(p.reply.endsWith("\n") || !p.reply ? p.reply : `${p.reply}\n`));
      return;
    }
    if (p.turn_id !== mainTurn) return;
    // What the stream did not carry (a Sources list added at the end) follows what it did.
    // A goal's check runs after the model's last text: that text was streamed before the check's call line.
    const ended = !this.streamed.length && !!p.reply && p.reply === this.streamedBeforeCall; // its line already ended
    const streamed = ended ? p.reply : this.streamed.join("");
    this.streamedBeforeCall = "";
    const rest = p.reply.startsWith(streamed) ? p.reply.slice(streamed.length) : `\n${p.reply}`;
    this.stdout.write(this.reply(rest));
    const whole = rest || (ended ? "" : streamed);
    if (whole && !whole.endsWith("\n")) this.stdout.write("\n");
    this.streamed = [];
    this.streamedEndsLine = true;
    if (p.error) this.line(this.s.red(`scv exec: turn ${p.status}: ${safe(p.error.message)}`));
  }

  private width(): number {
    return Math.max(20, (this.stderr.columns ?? 80) - 1);
  }

  private fit(text: string): string {
    return this.tty ? ellipsize(text, this.width()) : text;
  }

  private clearTransient() {
    if (!this.transient) return;
    this.stderr.write("\r\x1b[2K");
    this.transient = false;
  }

  private showTransient(text: string) {
    if (!this.tty) return;
    this.stderr.write(`\r\x1b[2K${this.s.dim(this.fit(text))}`);
    this.transient = true;
  }

  private flushDeferred() {
    if (!this.deferred) return;
    clearTimeout(this.deferred.timer);
    const { text } = this.deferred;
    this.deferred = undefined;
    this.line(text);
  }

  private line(text: string) {
    this.flushDeferred();
    this.clearTransient();
    this.stderr.write(`${text}\n`);
    this.lastStart = undefined;
  }

  private endStdoutLine() {
    this.streamedBeforeCall = this.streamed.join("");
    if (!this.streamedEndsLine) this.stdout.write("\n");
    this.streamed = [];
    this.streamedEndsLine = true;
  }

  /** On a terminal, once a wait passes a second, a ticking line: the model thinking, or a call with no output yet. */
  private startWaiting(what = "waiting for the model…") {
    this.stopWaiting();
    if (!this.tty) return;
    const since = Date.now();
    this.waitTimer = setInterval(() => {
      const elapsed = Date.now() - since;
      if (elapsed >= WAIT_AFTER_MS) this.showTransient(`${what} ${Math.floor(elapsed / 1000)} s`);
    }, 250);
  }

  private stopWaiting(clear = true) {
    if (this.waitTimer) clearInterval(this.waitTimer);
    this.waitTimer = undefined;
    if (clear) this.clearTransient();
  }
}
