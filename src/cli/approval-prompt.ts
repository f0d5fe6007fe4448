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
  if (lingering?.input === io.input) lingering.stop();
  return new Promise((resolve) => new ApprovalQuestion(io, opts, signal, resolve).ask(question));
}

type Settled = { answer: ApprovalAnswer; reason?: string };

/** One question on screen: reads its keys (raw) or its line (a pipe) until an answer settles it, once. */
class ApprovalQuestion {
  private readonly raw: boolean;
  private readonly askedAt = Date.now();
  private readonly againQuestion: string;
  /** What a pipe typed so far, up to its Enter. */
  private line = "";
  private done = false;
  /** After `n` with reasons: the bytes of the reason typed so far (UTF-8, decoded at the end). */
  private reason: number[] | undefined;
  /** The bytes of a UTF-8 character typed in the reason whose last byte has not come yet. */
  private pendingEcho: number[] = [];

  constructor(
    private readonly io: PromptIo,
    private readonly opts: AskOptions,
    private readonly signal: AbortSignal | undefined,
    private readonly resolve: (settled: Settled) => void,
  ) {
    this.raw = !!io.input.isTTY && typeof io.input.setRawMode === "function";
    this.againQuestion = opts.rules
      ? `\nPlease answer y (yes), n (no), a (always for identical calls), p (keep the rule for this project) or u (for every project): `
      : opts.some
        ? `\nPlease answer y (yes, all), n (no), a (always, kept for this workspace) or s (some, asked one by one): `
        : `\nPlease answer y (yes), n (no) or a (always for identical calls): `;
  }

  ask(question: string): void {
    const { input, output } = this.io;
    if (this.signal?.aborted) return this.onAbort();
    this.signal?.addEventListener("abort", this.onAbort, { once: true });
    output.write(question);
    if (this.raw) input.setRawMode(true);
    process.on("exit", this.restoreTerminal);
    input.on("data", this.onData);
    input.on("end", this.onEnd);
    input.resume();
  }

  // However the process ends while asking, the terminal is not left in raw mode. (Arrow functions: each is
  // added and removed as a listener by identity.)
  private readonly restoreTerminal = () => {
    if (this.raw) this.io.input.setRawMode(false);
  };
  private readonly onAbort = () => this.finish("interrupt", "^C");
  private readonly onEnd = () => this.finish("eof", "");

  private finish(answer: ApprovalAnswer, echo: string, singleKey = false, said?: string) {
    if (this.done) return;
    this.done = true;
    const { input, output } = this.io;
    input.off("data", this.onData);
    input.off("end", this.onEnd);
    this.signal?.removeEventListener("abort", this.onAbort);
    output.write(`${echo}\n`);
    if (singleKey && this.raw) {
      habitEnterUntil = Date.now() + HABIT_ENTER_MS;
      linger(input, this.restoreTerminal);
    } else {
      process.off("exit", this.restoreTerminal);
      this.restoreTerminal();
      input.pause();
    }
    this.resolve(said ? { answer, reason: said } : { answer });
  }

  private readonly onData = (chunk: Buffer | string) => {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    for (let i = 0; i < bytes.length && !this.done; i++) {
      const b = bytes[i]!;
      if (b === CTRL_C) return this.finish("interrupt", "^C");
      if (b === CTRL_D) return this.finish("eof", "^D");
      if (b === ESC && this.reason && (i + 1 >= bytes.length || (bytes[i + 1] !== 0x5b && bytes[i + 1] !== 0x4f))) return this.finish("no", "");
      if (b === ESC) {
        // An escape sequence (arrow keys): skip it whole rather than echo it.
        while (i + 1 < bytes.length && !(bytes[i + 1]! >= 0x40 && bytes[i + 1]! <= 0x7e && bytes[i + 1] !== 0x5b)) i++;
        i++;
        continue;
      }
      // One key answers on a terminal; the rest of what arrived with it (a paste, "y\r") is dropped.
      if (this.raw) {
        if (this.onKey(b)) return;
      } else this.onLineByte(b);
    }
  };

  /** A key on a terminal; true when it answered or asked again (the rest of its chunk is dropped). */
  private onKey(b: number): boolean {
    if (this.reason) return this.onReasonKey(b);
    if (this.opts.reasons && (b === 0x6e || b === 0x4e)) {
      this.reason = [];
      this.io.output.write(`n\n  why not? tell it what to do instead (Enter alone: no reason, Esc: deny now) › `);
      return false;
    }
    if (b === 0x0d || b === 0x0a) {
      // A habitual Enter after the previous single-key answer, buffered before this question appeared.
      if (Date.now() < habitEnterUntil && Date.now() - this.askedAt < HABIT_ENTER_MS) {
        habitEnterUntil = 0;
        return false;
      }
      this.finish("no", "", true);
      return true;
    }
    if (b < 0x20 || BACKSPACE.has(b)) return false;
    const ch = String.fromCharCode(b);
    const answer = this.meaning(ch);
    if (answer && ch.trim()) {
      this.finish(answer, ch, true);
      return true;
    }
    this.io.output.write(`${ch}${this.againQuestion}`);
    return true;
  }

  /** A key of the reason line after `n`: Enter sends it (alone: no reason), Backspace takes a character back. */
  private onReasonKey(b: number): boolean {
    const reason = this.reason!;
    if (b === 0x0d || b === 0x0a) {
      this.finish("no", "", false, Buffer.from(reason).toString("utf8").trim() || undefined);
      return true;
    }
    if (BACKSPACE.has(b)) {
      const text = [...Buffer.from(reason).toString("utf8")];
      if (text.length) {
        this.reason = [...Buffer.from(text.slice(0, -1).join(""), "utf8")];
        this.io.output.write("\b \b");
      }
      return false;
    }
    if (b < 0x20) return false;
    reason.push(b);
    // Echoed a whole character at a time: the bytes of a UTF-8 sequence wait for its last one.
    this.pendingEcho.push(b);
    const whole = Buffer.from(this.pendingEcho).toString("utf8");
    if (!whole.includes("\uFFFD")) {
      this.io.output.write(whole);
      this.pendingEcho = [];
    } else if (this.pendingEcho.length >= 4) this.pendingEcho = [];
    return false;
  }

  /** A byte of a pipe's answer line: Enter answers it, or asks again when it means nothing. */
  private onLineByte(b: number) {
    if (b === 0x0d || b === 0x0a) {
      const answer = this.meaning(this.line);
      if (answer) return this.finish(answer, "");
      this.line = "";
      this.io.output.write(this.againQuestion);
      return;
    }
    if (BACKSPACE.has(b)) {
      this.line = this.line.slice(0, -1);
      return;
    }
    if (b >= 0x20) this.line += String.fromCharCode(b);
  }

  private meaning(text: string): ApprovalAnswer | undefined {
    return meaning(text, !!this.opts.rules, !!this.opts.perTool, !!this.opts.some);
  }
}
