// Drives a program in a real terminal: a private tmux server (its own socket, no user config) runs one
// window; tests type with send-keys and read the screen with capture-pane. The window stays after the
// program exits (a shell prints `[exited N]` and waits), so its last screen and exit status can be read.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TmuxPane {
  /** Keys as tmux names them (`Enter`, `C-c`, `Escape`) or literal text with `{ literal: true }`. */
  send(...keys: string[]): void;
  type(text: string): void;
  /** The visible screen as text; with `escapes`, including colour codes. */
  screen(opts?: { escapes?: boolean }): string;
  /** Polls the screen until `match` holds; throws with the last screen after `timeoutMs`. */
  waitFor(match: string | RegExp | ((screen: string) => boolean), timeoutMs?: number): Promise<string>;
  resize(width: number, height: number): void;
  /** The program's exit status once it has exited, else undefined. */
  exitStatus(): number | undefined;
  close(): void;
}

function tmux(socket: string, args: string[]): string {
  const r = Bun.spawnSync(["tmux", "-S", socket, "-f", "/dev/null", ...args], { stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`tmux ${args[0]} failed: ${r.stderr.toString().trim()}`);
  return r.stdout.toString();
}

export function startTmux(argv: string[], opts: { env: Record<string, string>; cwd: string; width?: number; height?: number }): TmuxPane {
  // A socket in a directory of our own, removed on close: tmux leaves its socket file behind otherwise.
  const socketDir = mkdtempSync(join(tmpdir(), "scv-tmux-"));
  const socket = join(socketDir, "socket");
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const envArgs = Object.entries({ TERM: "xterm-256color", ...opts.env }).map(([k, v]) => `${k}=${quote(v)}`);
  // A shell waits for the program and prints its status: tmux 3.3 sometimes leaves its own exited child
  // unreaped for seconds, so the status line is a surer sign of exit than tmux's dead-pane flag.
  const run = `env -i ${envArgs.join(" ")} ${argv.map(quote).join(" ")}; echo "[exited $?]"; exec sleep 3600`;
  const command = `cd ${quote(opts.cwd)} && exec bash -c ${quote(run)}`;
  tmux(socket, ["new-session", "-d", "-x", String(opts.width ?? 100), "-y", String(opts.height ?? 30), "-s", "t", command]);
  const pane = {
    send: (...keys: string[]) => void tmux(socket, ["send-keys", "-t", "t", ...keys]),
    type: (text: string) => void tmux(socket, ["send-keys", "-t", "t", "-l", text]),
    screen: (o: { escapes?: boolean } = {}) => tmux(socket, ["capture-pane", "-p", "-t", "t", ...(o.escapes ? ["-e"] : [])]),
    async waitFor(match: string | RegExp | ((screen: string) => boolean), timeoutMs = 10_000) {
      const test = typeof match === "string" ? (s: string) => s.includes(match) : match instanceof RegExp ? (s: string) => match.test(s) : match;
      const deadline = Date.now() + timeoutMs;
      let last = "";
      while (Date.now() < deadline) {
        last = pane.screen();
        if (test(last)) return last;
        await Bun.sleep(50);
      }
      throw new Error(`timed out waiting for ${String(match)}; the screen was:\n${last}`);
    },
    resize: (width: number, height: number) => void tmux(socket, ["resize-window", "-t", "t", "-x", String(width), "-y", String(height)]),
    exitStatus() {
      const m = /\[exited (\d+)\]/.exec(pane.screen());
      return m ? Number(m[1]) : undefined;
    },
    close() {
      try {
        tmux(socket, ["kill-server"]);
      } catch {
        // already gone
      }
      rmSync(socketDir, { recursive: true, force: true });
    },
  };
  return pane;
}
