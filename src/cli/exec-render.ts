// What `scv exec` shows a person: the reply on stdout; on stderr each tool call as the protocol labels it
// (`$ cargo test`, `write src/x.ts`) with its outcome (`exit 0, 1.2 s`, `+12 -3 lines`, `denied`), approval
// cards, and — on a terminal only — the last output line of a running call, a waiting indicator and provider
// retries. It knows no tool by name: everything it prints comes from the notifications.
import { prefixText } from "../guard/prefix-text";
import { styleFor } from "../terminal/style";
import { riskInWords } from "../scope";
import { planText } from "../plan/plan";

export interface Stream {
  write(s: string): unknown;
  isTTY?: boolean;
  columns?: number;
}


const WAIT_AFTER_MS = 1000;
const RUNNING = "  running…";


export function createExecRenderer(opts: { stdout: Stream; stderr: Stream; json: boolean; env?: Record<string, string | undefined> }) {
  const { stdout, stderr, json } = opts;
  const s = styleFor(stderr, opts.env);
  const tty = !!stderr.isTTY;
  const width = () => Math.max(20, (stderr.columns ?? 80) - 1);
  const fit = (text: string) => (tty && text.length > width() ? `${text.slice(0, width() - 1)}…` : text);
  let transient = false;
  /** The call whose start line is the last line written to stderr (its outcome can complete that line). */
  let lastStart: { callId: string; label: string } | undefined;
  /** Labels of calls still running, to name a call again when its outcome comes after other lines. */
  const labels = new Map<string, string>();
  /** Calls the command guard blocked: their outcome says so, with the reason. */
  const blocked = new Map<string, string>();
  let streamed = "";
  let waitTimer: ReturnType<typeof setInterval> | undefined;

  function clearTransient() {
    if (!transient) return;
    stderr.write("\r\x1b[2K");
    transient = false;
  }
  function showTransient(text: string) {
    if (!tty) return;
    stderr.write(`\r\x1b[2K${s.dim(fit(text))}`);
    transient = true;
  }
  /**
   * Not on a terminal a start line cannot be completed in place, so it waits: a quick call becomes one line
   * (`$ ls (exit 0, 0.0 s)`); a call still running after a second, or asking first, shows its start line then.
   */
  let deferred: { callId: string; text: string; timer: ReturnType<typeof setTimeout> } | undefined;
  function flushDeferred() {
    if (!deferred) return;
    clearTimeout(deferred.timer);
    const { text } = deferred;
    deferred = undefined;
    line(text);
  }
  function line(text: string) {
    flushDeferred();
    clearTransient();
    stderr.write(`${text}\n`);
    lastStart = undefined;
  }
  function endStdoutLine() {
    if (streamed && !streamed.endsWith("\n")) stdout.write("\n");
    streamed = "";
  }

  /** On a terminal, once a wait passes a second, a ticking line: the model thinking, or a call with no output yet. */
  function startWaiting(what = "waiting for the model…") {
    stopWaiting();
    if (!tty) return;
    const since = Date.now();
    waitTimer = setInterval(() => {
      const elapsed = Date.now() - since;
      if (elapsed >= WAIT_AFTER_MS) showTransient(`${what} ${Math.floor(elapsed / 1000)} s`);
    }, 250);
  }
  function stopWaiting(clear = true) {
    if (waitTimer) clearInterval(waitTimer);
    waitTimer = undefined;
    if (clear) clearTransient();
  }

  function outcomeOf(p: any): { text: string; bad: boolean } {
    const guard = blocked.get(p.call_id);
    if (guard !== undefined) {
      blocked.delete(p.call_id);
      return { text: `blocked: ${guard.replace(/^refused: /, "")}`, bad: true };
    }
    if (p.denied) return { text: "denied", bad: true };
    if (typeof p.display === "string" && p.display) return { text: p.display, bad: !p.ok };
    if (p.ok) return { text: "", bad: false };
    const first = String(p.output ?? "").split("\n", 1)[0]!.slice(0, 200);
    return { text: `failed: ${first}`, bad: true };
  }

  return {
    /** Turn events; returns nothing, writes what a person should see. */
    notify(method: string, p: any, mainTurn: string) {
      switch (method) {
        case "turn.started":
          // (The main turn's id is not known yet: turn.started comes before the turn.start answer.)
          startWaiting();
          return;
        case "assistant.delta":
          stopWaiting();
          if (json || p.turn_id !== mainTurn) return;
          streamed += p.text;
          lastStart = undefined;
          flushDeferred();
          stdout.write(p.text);
          return;
        case "model.retrying": {
          const after = p.error?.status ? `HTTP ${p.error.status}` : (p.error?.class ?? "an error");
          if (tty) line(s.yellow(`retrying in ${(p.delay_ms / 1000).toFixed(1)} s after ${after} (${p.attempt}/${p.max_retries})`));
          startWaiting();
          return;
        }
        case "approval.denied_unattended":
          if (!json) line(s.yellow(`  denied without asking${p.job ? ` (${p.job})` : ""}: ${String(p.summary ?? "").split("\n", 1)[0]} (${p.reason})`));
          return;
        case "model.notice":
          if (!json) line(s.yellow(`scv exec: ${p.message}`));
          return;
        case "plan.updated":
          // A person at a terminal follows the plan as it changes; a log or a pipe has the tool lines.
          if (!json && tty) line(s.cyan(planText(p.items)));
          return;
        case "session.compacted":
          if (!json) line(s.dim(`· compacted ${p.turns} earlier turns into a summary (about ${p.tokens_before} → ${p.tokens_after} tokens)`));
          return;
        case "tool.started":
          stopWaiting();
          if (json) return;
          if (p.guard?.decision === "block") blocked.set(p.call_id, String(p.guard.reason));
          // Text before a tool call is its own segment; keep stdout lines whole around tool lines.
          endStdoutLine();
          if (!tty) {
            flushDeferred();
            deferred = { callId: p.call_id, text: s.bold(p.label), timer: setTimeout(flushDeferred, WAIT_AFTER_MS) };
            labels.set(p.call_id, p.label);
            return;
          }
          line(s.bold(fit(p.label)));
          lastStart = { callId: p.call_id, label: fit(p.label) };
          labels.set(p.call_id, fit(p.label));
          startWaiting(RUNNING);
          return;
        case "tool.progress":
          if (json) return;
          // A sample of the output (at most two lines a second): on a terminal the last line replaces the one
          // before; in a log, samples with gaps between them would read like lost output, so none are kept.
          if (tty) {
            stopWaiting(false); // output is a sign of life of its own
            showTransient(`  ${p.line}`);
          }
          return;
        case "tool.completed": {
          stopWaiting();
          if (!json) {
            const { text, bad } = outcomeOf(p);
            const label = labels.get(p.call_id) ?? p.tool;
            labels.delete(p.call_id);
            const full = `${s.bold(label)}${text ? ` ${(bad ? s.red : s.dim)(`(${text})`)}` : ""}`;
            const waiting = deferred?.callId === p.call_id;
            if (waiting) {
              clearTimeout(deferred!.timer);
              deferred = undefined;
            }
            if (waiting) line(full);
            else if (tty && lastStart?.callId === p.call_id) {
              // Complete the start line in place: `read src/x.ts (bytes 0-400)`.
              clearTransient();
              stderr.write(`\x1b[1A\r\x1b[2K${full}\n`);
              lastStart = undefined;
            } else if (text) line(full); // output or a question came between: name the call again
            else clearTransient();
            if (Array.isArray(p.jobs) && p.jobs.length) {
              line(`  started ${p.jobs.join(", ")}; waiting for the report before exiting (Ctrl-C cancels)`);
            }
          }
          if (p.turn_id === mainTurn) startWaiting();
          return;
        }
        case "turn.ended":
          stopWaiting();
          if (json) return;
          if (p.origin?.kind === "background") {
            line(`\n[background report: ${(p.origin.jobs ?? []).join(", ")}]`);
            stdout.write(p.reply.endsWith("\n") || !p.reply ? p.reply : `${p.reply}\n`);
            return;
          }
          if (p.turn_id !== mainTurn) return;
          {
            const rest = p.reply.startsWith(streamed) ? p.reply.slice(streamed.length) : `\n${p.reply}`;
            stdout.write(rest);
            if ((streamed + rest).length && !(streamed + rest).endsWith("\n")) stdout.write("\n");
            streamed = "";
            if (p.error) line(s.red(`scv exec: turn ${p.status}: ${p.error.message}`));
          }
          return;
      }
    },

    /** The approval card: what will happen, the risk in words, why the guard asks, then the question (asked by the caller). */
    approvalCard(p: { tool: string; risk: string; summary: string; guard?: { reason: string }; rule_prefix?: string[] }): string {
      flushDeferred();
      stopWaiting();
      endStdoutLine();
      lastStart = undefined;
      const body = p.summary
        .split("\n")
        .map((l) => {
          if (/^@@ .* @@$/.test(l)) return `  ${s.cyan(l)}`;
          if (l.startsWith("+")) return `  ${s.green(l)}`;
          if (l.startsWith("-")) return `  ${s.red(l)}`;
          return `  ${l}`;
        })
        .join("\n");
      const guard = p.guard ? `\n  ${s.dim(`guard: asks because ${p.guard.reason}`)}` : "";
      const prefix = p.rule_prefix ? prefixText(p.rule_prefix) : undefined;
      const rules = prefix ? `\nor ${s.bold("p")}: always allow commands starting with \`${prefix}\` in this project, ${s.bold("u")}: in every project` : "";
      return `\n${s.bold(`Approve ${p.tool}?`)} ${s.yellow(`It ${riskInWords(p.risk)} (${p.risk}).`)}\n${body}${guard}${rules}\nAllow? ${s.bold("y")}es / ${s.bold("n")}o / ${s.bold("a")}lways for identical calls in this run [y/N/a] `;
    },

    /** The person approved the call the card was about: it runs now. */
    approved() {
      startWaiting(RUNNING);
    },

    /** A permanent stderr line (notes from exec itself). */
    note(text: string) {
      stopWaiting();
      line(text);
    },

    stop() {
      flushDeferred();
      stopWaiting();
    },
  };
}
