// The y/n question at an approval, read from the terminal in raw mode so Ctrl-C and Ctrl-D are plain bytes we
// answer at once (a line reader waiting on a terminal in raw mode is what hung before).

export type ApprovalAnswer = "yes" | "no" | "always" | "workspace-rule" | "user-rule" | "interrupt" | "eof";

const CTRL_C = 0x03;
const CTRL_D = 0x04;
const BACKSPACE = new Set([0x08, 0x7f]);

function meaning(text: string, rules: boolean): ApprovalAnswer | undefined {
  const answer = text.trim().toLowerCase();
  if (answer === "y" || answer === "yes") return "yes";
  if (answer === "" || answer === "n" || answer === "no") return "no";
  if (answer === "a" || answer === "always") return "always";
  if (rules && answer === "p") return "workspace-rule";
  if (rules && answer === "u") return "user-rule";
  return undefined;
}

export interface PromptIo {
  input: NodeJS.ReadStream;
  output: { write(s: string): unknown };
}

/**
 * Asks `question` until the answer is y/yes, n/no/empty or a/always (and, with `rules`, p or u: keep the offered
 * rule for this project or for every one). Ctrl-C answers "interrupt", Ctrl-D "eof"; an aborted `signal`
 * (Ctrl-C delivered as a signal) answers "interrupt" too.
 */
export function askApproval(question: string, io: PromptIo, signal?: AbortSignal, opts: { rules?: boolean } = {}): Promise<ApprovalAnswer> {
  const { input, output } = io;
  const raw = !!input.isTTY && typeof input.setRawMode === "function";
  return new Promise((resolve) => {
    let line = "";
    let done = false;
    const finish = (answer: ApprovalAnswer, echo: string) => {
      if (done) return;
      done = true;
      input.off("data", onData);
      input.off("end", onEnd);
      signal?.removeEventListener("abort", onAbort);
      process.off("exit", restoreTerminal);
      restoreTerminal();
      input.pause();
      output.write(`${echo}\n`);
      resolve(answer);
    };
    // However the process ends while asking, the terminal is not left in raw mode.
    const restoreTerminal = () => {
      if (raw) input.setRawMode(false);
    };
    const onAbort = () => finish("interrupt", "^C");
    const onEnd = () => finish("eof", "");
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      for (let i = 0; i < bytes.length && !done; i++) {
        const b = bytes[i]!;
        if (b === CTRL_C) return finish("interrupt", "^C");
        if (b === CTRL_D) return finish("eof", "^D");
        if (b === 0x0d || b === 0x0a) {
          const answer = meaning(line, !!opts.rules);
          if (answer) return finish(answer, "");
          line = "";
          output.write(
            opts.rules
              ? `\nPlease answer y (yes), n (no), a (always for identical calls), p (keep the rule for this project) or u (for every project): `
              : `\nPlease answer y (yes), n (no) or a (always for identical calls): `,
          );
          continue;
        }
        if (BACKSPACE.has(b)) {
          if (line) output.write("\b \b");
          line = line.slice(0, -1);
          continue;
        }
        if (b === 0x1b) {
          // An escape sequence (arrow keys): skip it whole rather than echo it.
          while (i + 1 < bytes.length && !(bytes[i + 1]! >= 0x40 && bytes[i + 1]! <= 0x7e && bytes[i + 1] !== 0x5b)) i++;
          i++;
          continue;
        }
        if (b < 0x20) continue;
        const ch = String.fromCharCode(b);
        line += ch;
        if (raw) output.write(ch);
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
