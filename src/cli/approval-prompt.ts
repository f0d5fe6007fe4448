// The y/n question at an approval. On a terminal it is read in raw mode, one key at a time as in the TUI: `y`,
// `a` (and `t` when offered, `p`/`u` when a rule is offered) answer at once, Enter alone answers no, Ctrl-C and
// Ctrl-D are plain bytes answered at once. With `reasons`, `n` opens one line for why (Enter sends it, Enter alone
// denies without one, Esc denies at once). Off a terminal (a pipe) the answer is a line, as before.

export type ApprovalAnswer = "yes" | "no" | "always" | "tool" | "some" | "workspace-rule" | "user-rule" | "interrupt" | "eof";

const ESC = 0x1b;

const CTRL_C = 0x03;
const CTRL_D = 0x04;
const BACKSPACE = new Set([0x08, 0x7f]);
// After a single-key answer, people used to line prompts press Enter too; that Enter, arriving within this window,
// is swallowed rather than taken as "no" by the next question.
const HABIT_ENTER_MS = 400;

function meaning(text: string, rules: boolean, perTool = false, some = false): ApprovalAnswer | undefined {
  const answer = text.trim().toLowerCase();
  if (answer === "y" || answer === "yes") return "yes";
  if (answer === "" || answer === "n" || answer === "no") return "no";
  if (answer === "a" || answer === "always") return "always";
  if (perTool && answer === "t") return "tool";
  if (some && answer === "s") return "some";
  if (rules && answer === "p") return "workspace-rule";
  if (rules && answer === "u") return "user-rule";
  return undefined;
}

export interface PromptIo {
  input: NodeJS.ReadStream;
  output: { write(s: string): unknown };
}

// The terminal stays raw for a moment after a single-key answer, to swallow a habitual Enter without echoing it.
let lingering: { stop(): void; input: NodeJS.ReadStream } | undefined;
let habitEnterUntil = 0;

function linger(input: NodeJS.ReadStream, restoreTerminal: () => void) {
  const onData = (chunk: Buffer | string) => {
    const s = String(chunk);
    if (s === "\r" || s === "\n" || s === "\r\n") habitEnterUntil = 0;
    stop();
    // Ctrl-C is a plain byte in raw mode: still the interrupt it always is.
    if (s.includes("\x03")) process.kill(process.pid, "SIGINT");
  };
  const timer = setTimeout(() => stop(), HABIT_ENTER_MS);
  const stop = () => {
    clearTimeout(timer);
    input.off("data", onData);
    if (lingering?.stop === stop) lingering = undefined;
    restoreTerminal();
    process.off("exit", restoreTerminal);
    input.pause();
  };
  lingering = { stop, input };
  input.on("data", onData);
}

/**
 * Asks `question` until the answer is y/yes, n/no/empty or a/always (and, with `rules`, p or u: keep the offered
 * rule for this project or for every one). Ctrl-C answers "interrupt", Ctrl-D "eof"; an aborted `signal`
 * (Ctrl-C delivered as a signal, or SIGTERM) answers "interrupt" too. The terminal is restored on every way out.
 */
export async function askApproval(question: string, io: PromptIo, signal?: AbortSignal, opts: AskOptions = {}): Promise<ApprovalAnswer> {
  return (await askApprovalWithReason(question, io, signal, opts)).answer;
}

export interface AskOptions {
  /** A prefix rule is offered (`p`, `u`). */
  rules?: boolean;
  /** "Don't ask again for this tool" is offered (`t`). */
  perTool?: boolean;
  /** On a terminal, `n` asks for one line saying why. */
  reasons?: boolean;
  /** "Some of them" is offered (`s`): a request listing several parts (MCP servers), each then asked alone. */
  some?: boolean;
}

/** As askApproval; a denial typed after `n` (with `reasons`) carries the person's words. */
export function askApprovalWithReason(question: string, io: PromptIo, signal?: AbortSignal, opts: AskOptions = {}): Promise<{ answer: ApprovalAnswer; reason?: string }> {
  const { input, output } = io;
  const raw = !!input.isTTY && typeof input.setRawMode === "function";
  if (lingering?.input === input) lingering.stop();
  const askedAt = Date.now();
  const againQuestion = opts.rules
    ? `\nPlease answer y (yes), n (no), a (always for identical calls), p (keep the rule for this project) or u (for every project): `
    : opts.some
      ? `\nPlease answer y (yes, all), n (no), a (always, kept for this workspace) or s (some, asked one by one): `
      : `\nPlease answer y (yes), n (no) or a (always for identical calls): `;
  return new Promise((resolve) => {
    let line = "";
    let done = false;
    // After `n` with reasons: the bytes of the reason typed so far (UTF-8, decoded at the end).
    let reason: number[] | undefined;
    let pendingEcho: number[] = [];
    const finish = (answer: ApprovalAnswer, echo: string, singleKey = false, said?: string) => {
      if (done) return;
      done = true;
      input.off("data", onData);
      input.off("end", onEnd);
      signal?.removeEventListener("abort", onAbort);
      output.write(`${echo}\n`);
      if (singleKey && raw) {
        habitEnterUntil = Date.now() + HABIT_ENTER_MS;
        linger(input, restoreTerminal);
      } else {
        process.off("exit", restoreTerminal);
        restoreTerminal();
        input.pause();
      }
      resolve(said ? { answer, reason: said } : { answer });
    };
    // However the process ends while asking, the terminal is not left in raw mode.
    const restoreTerminal = () => {
      if (raw) input.setRawMode(false);
    };
    const onAbort = () => finish("interrupt", "^C");
    const onEnd = () => finish("eof", "");
    const onReasonKey = (b: number): boolean => {
      if (b === 0x0d || b === 0x0a) {
        finish("no", "", false, Buffer.from(reason!).toString("utf8").trim() || undefined);
        return true;
      }
      if (BACKSPACE.has(b)) {
        const text = [...Buffer.from(reason!).toString("utf8")];
        if (text.length) {
          reason = [...Buffer.from(text.slice(0, -1).join(""), "utf8")];
          output.write("\b \b");
        }
        return false;
      }
      if (b < 0x20) return false;
      reason!.push(b);
      // Echoed a whole character at a time: the bytes of a UTF-8 sequence wait for its last one.
      pendingEcho.push(b);
      const whole = Buffer.from(pendingEcho).toString("utf8");
      if (!whole.includes("\uFFFD")) {
        output.write(whole);
        pendingEcho = [];
      } else if (pendingEcho.length >= 4) pendingEcho = [];
      return false;
    };
    const onKey = (b: number): boolean => {
      if (reason) return onReasonKey(b);
      if (opts.reasons && (b === 0x6e || b === 0x4e)) {
        reason = [];
        output.write(`n\n  why not? tell it what to do instead (Enter alone: no reason, Esc: deny now) › `);
        return false;
      }
      if (b === 0x0d || b === 0x0a) {
        // A habitual Enter after the previous single-key answer, buffered before this question appeared.
        if (Date.now() < habitEnterUntil && Date.now() - askedAt < HABIT_ENTER_MS) {
          habitEnterUntil = 0;
          return false;
        }
        finish("no", "", true);
        return true;
      }
      if (b < 0x20 || BACKSPACE.has(b)) return false;
      const ch = String.fromCharCode(b);
      const answer = meaning(ch, !!opts.rules, !!opts.perTool, !!opts.some);
      if (answer && ch.trim()) {
        finish(answer, ch, true);
        return true;
      }
      output.write(`${ch}${againQuestion}`);
      return true;
    };
    const onLine = (b: number) => {
      if (b === 0x0d || b === 0x0a) {
        const answer = meaning(line, !!opts.rules, !!opts.perTool, !!opts.some);
        if (answer) return finish(answer, "");
        line = "";
        output.write(againQuestion);
        return;
      }
      if (BACKSPACE.has(b)) {
        line = line.slice(0, -1);
        return;
      }
      if (b >= 0x20) line += String.fromCharCode(b);
    };
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      for (let i = 0; i < bytes.length && !done; i++) {
        const b = bytes[i]!;
        if (b === CTRL_C) return finish("interrupt", "^C");
        if (b === CTRL_D) return finish("eof", "^D");
        if (b === ESC && reason && (i + 1 >= bytes.length || (bytes[i + 1] !== 0x5b && bytes[i + 1] !== 0x4f))) return finish("no", "");
        if (b === ESC) {
          // An escape sequence (arrow keys): skip it whole rather than echo it.
          while (i + 1 < bytes.length && !(bytes[i + 1]! >= 0x40 && bytes[i + 1]! <= 0x7e && bytes[i + 1] !== 0x5b)) i++;
          i++;
          continue;
        }
        // One key answers on a terminal; the rest of what arrived with it (a paste, "y\r") is dropped.
        if (raw) {
          if (onKey(b)) return;
        } else onLine(b);
      }
    };
    if (signal?.aborted) return onAbort();
    signal?.addEventListener("abort", onAbort, { once: true });
    output.write(question);
    if (raw) input.setRawMode(true);
    process.on("exit", restoreTerminal);
    input.on("data", onData);
    input.on("end", onEnd);
    input.resume();
  });
}
