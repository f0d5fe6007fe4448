// A real terminal for tests of what a person sees: one tmux server per terminal (its own -L socket under the
// test temp dir), the command run with an exact environment, the screen polled with a deadline (robust under
// load), and the server killed by close(). The command's exit status appears on screen as `[exit N]`.
import { tmpdir } from "node:os";

export interface Terminal {
  /** The visible screen plus scrollback (`visible`: the screen alone); `escapes` keeps colour sequences. */
  screen(opts?: { escapes?: boolean; visible?: boolean }): string;
  /** The pane's title (an OSC 0/2 the program wrote sets it). */
  title(): string;
  /** tmux's paste buffers (an OSC 52 the program wrote becomes one: set-clipboard is on). */
  buffers(): string;
  /** Polls the screen until `pattern` appears (or the predicate holds); throws with the screen when `timeoutMs` passes. */
  waitFor(pattern: string | RegExp | ((screen: string) => boolean), timeoutMs?: number): Promise<string>;
  /** The exit status once the command has ended. */
  exitCode(timeoutMs?: number): Promise<number>;
  /** Literal text (typed as is). */
  type(text: string): void;
  /** tmux key names: Enter, C-c, C-d. */
  keys(...names: string[]): void;
  resize(width: number, height: number): void;
  close(): void;
}

let counter = 0;
const open = new Set<Terminal>();

/** For afterAll: kills every tmux server this test file started that is still running. */
export function closeAllTerminals(): void {
  for (const t of [...open]) t.close();
}

function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

export function openTerminal(argv: string[], opts: { env: Record<string, string>; cwd: string; width?: number; height?: number }): Terminal {
  const socket = `scv-${process.pid}-${++counter}-${Math.random().toString(36).slice(2, 8)}`;
  // TMUX_TMPDIR puts the socket under the test run's temp dir, which the run removes.
  const tmuxEnv = { PATH: process.env.PATH ?? "/usr/bin:/bin", TMUX_TMPDIR: tmpdir(), TERM: "xterm-256color" };
  const tmux = (...args: string[]) => {
    const r = Bun.spawnSync(["tmux", "-L", socket, "-f", "/dev/null", ...args], { env: tmuxEnv, stdout: "pipe", stderr: "pipe" });
    if (r.exitCode !== 0) throw new Error(`tmux ${args[0]} failed: ${r.stderr.toString()}`);
    return r.stdout.toString();
  };
  const envWords = Object.entries({ TERM: "xterm-256color", ...opts.env }).map(([k, v]) => shellQuote(`${k}=${v}`));
  // The shell stays after the command so its status and last screen can be read.
  // The shell survives Ctrl-C (a trap, which the command does not inherit) so the status still shows.
  const script = `trap : INT; cd ${shellQuote(opts.cwd)} && env -i ${envWords.join(" ")} ${argv.map(shellQuote).join(" ")}; echo "[exit $?]"; sleep 600`;
  tmux("new-session", "-d", "-s", "t", "-x", String(opts.width ?? 120), "-y", String(opts.height ?? 50), "/bin/sh", "-c", script);
  // A program's OSC 52 (clipboard write) then lands in a paste buffer, where a test can see it.
  tmux("set-option", "-g", "set-clipboard", "on");
  let closed = false;
  const screen = (o: { escapes?: boolean; visible?: boolean } = {}) => tmux("capture-pane", "-p", "-t", "t", ...(o.visible ? [] : ["-S", "-500"]), ...(o.escapes ? ["-e"] : []));
  const waitFor = async (pattern: string | RegExp | ((screen: string) => boolean), timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs;
    const matches = typeof pattern === "string" ? (t: string) => t.includes(pattern) : pattern instanceof RegExp ? (t: string) => pattern.test(t) : pattern;
    for (;;) {
      const text = screen();
      if (matches(text)) return text;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}; the screen:\n${text}`);
      await Bun.sleep(100);
    }
  };
  const terminal: Terminal = {
    screen,
    title: () => tmux("display-message", "-p", "-t", "t", "#{pane_title}").trim(),
    buffers: () => tmux("list-buffers"),
    waitFor,
    async exitCode(timeoutMs) {
      const text = await waitFor(/\[exit \d+\]/, timeoutMs);
      return Number(/\[exit (\d+)\]/.exec(text)![1]);
    },
    type: (text) => void tmux("send-keys", "-t", "t", "-l", text),
    keys: (...names) => void tmux("send-keys", "-t", "t", ...names),
    resize: (width, height) => void tmux("resize-window", "-t", "t", "-x", String(width), "-y", String(height)),
    close() {
      if (closed) return;
      closed = true;
      open.delete(terminal);
      try {
        tmux("kill-server");
      } catch {
        // already gone
      }
    },
  };
  open.add(terminal);
  return terminal;
}
