// The terminal's modes for the TUI: raw input and bracketed paste on entry, and the original state restored
// on every way out (normal exit, a signal, an uncaught error), so a crash never leaves a broken terminal.
import type { Output } from "./screen";

export interface Terminal extends Output {
  onInput(fn: (chunk: string) => void): void;
  onResize(fn: () => void): void;
  /** Restores the terminal; safe to call more than once. */
  restore(): void;
}

export function openTerminal(): Terminal {
  const stdin = process.stdin;
  const stdout = process.stdout;
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    try {
      stdout.write("\x1b[?2004l\x1b[?25h\x1b[0m");
      if (stdin.isTTY) stdin.setRawMode(false);
      stdin.pause();
    } catch {
      // the terminal may already be gone (hang-up); nothing left to restore
    }
  };
  process.on("exit", restore);
  process.on("uncaughtException", (e) => {
    restore();
    process.stderr.write(`\nscv: internal error: ${e?.stack ?? e}\n`);
    process.exit(1);
  });
  process.on("unhandledRejection", (e) => {
    restore();
    process.stderr.write(`\nscv: internal error: ${(e as Error)?.stack ?? e}\n`);
    process.exit(1);
  });
  stdin.setRawMode(true);
  stdin.setEncoding("utf8");
  stdin.resume();
  stdout.write("\x1b[?2004h");
  return {
    write: (s) => void stdout.write(s),
    columns: () => stdout.columns || 80,
    rows: () => stdout.rows || 24,
    onInput: (fn) => void stdin.on("data", (d) => fn(String(d))),
    onResize: (fn) => void stdout.on("resize", fn),
    restore,
  };
}
