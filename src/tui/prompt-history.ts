// The prompts a person sent from the TUI, kept per user in $SCV_HOME/state/prompt-history.jsonl (0600) so Up/Down
// and Ctrl-R reach earlier sessions' prompts too. A prompt is stored with anything shaped like a credential masked
// (the one redaction in src/text), and long ones (pasted logs) are not kept: history is for what was typed.
import { closeSync, constants, existsSync, openSync, readFileSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { ensurePrivateDir, writePrivateFileAtomic } from "../fs/private-file";
import { redactSecrets } from "../text/redact";
import type { Style as Theme } from "../terminal/style";
import type { Key } from "./keys";
import { sanitize, truncate } from "./text";

const KEEP = 500;
const MAX_PROMPT_CHARS = 4000;
/** Past this size the file is rewritten with its newest KEEP prompts. */
const REWRITE_BYTES = 512 * 1024;

export function promptHistoryFile(home: string): string {
  return join(home, "state", "prompt-history.jsonl");
}

/** The stored prompts, oldest first; an unreadable file or line is skipped, never an error. */
export function readPromptHistory(home: string): string[] {
  const file = promptHistoryFile(home);
  if (!existsSync(file)) return [];
  try {
    const out: string[] = [];
    for (const line of readFileSync(file, "utf8").split("\n")) {
      if (!line) continue;
      try {
        const r = JSON.parse(line) as { text?: unknown };
        if (typeof r.text === "string") out.push(r.text);
      } catch {
        // a torn line: skipped
      }
    }
    return out.slice(-KEEP);
  } catch {
    return [];
  }
}

/** Appends one prompt (masked); best effort: a disk problem loses a history entry, never the prompt. */
export function appendPromptHistory(home: string, prompt: string): void {
  if (!prompt.trim() || prompt.length > MAX_PROMPT_CHARS) return;
  const file = promptHistoryFile(home);
  const line = `${JSON.stringify({ at: Date.now(), text: redactSecrets(prompt) })}\n`;
  try {
    ensurePrivateDir(join(home, "state"));
    const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_NOFOLLOW, 0o600);
    try {
      writeSync(fd, line);
    } finally {
      closeSync(fd);
    }
    if (statSync(file).size > REWRITE_BYTES) {
      const kept = readPromptHistory(home).map((text) => `${JSON.stringify({ at: Date.now(), text })}\n`);
      writePrivateFileAtomic(file, kept.join(""), { durable: false });
    }
  } catch {
    // history is a convenience
  }
}

/** What a key did to the open search: Enter took the match (`text`), or Enter without one, Esc or Ctrl-C left. */
export type SearchEnd = { kind: "take"; text: string } | { kind: "leave" } | undefined;

/**
 * Ctrl-R: a search through the prompts, newest first. Typing narrows it, Ctrl-R again goes to an older match,
 * Enter puts the match in the editor (to edit or send), Esc leaves the editor as it was.
 */
export class HistorySearch {
  query = "";
  private skip = 0;

  constructor(private readonly prompts: () => readonly string[]) {}

  /** The match shown: the newest prompt containing the query (case-insensitive), `skip` matches back. */
  get match(): string | undefined {
    const q = this.query.toLowerCase();
    const all = this.prompts();
    let seen = 0;
    for (let i = all.length - 1; i >= 0; i--) {
      if (!all[i]!.toLowerCase().includes(q)) continue;
      if (seen++ === this.skip) return all[i];
    }
    return undefined;
  }

  type(text: string) {
    this.query += text;
    this.skip = 0;
  }

  backspace() {
    this.query = [...this.query].slice(0, -1).join("");
    this.skip = 0;
  }

  older() {
    this.skip++;
    if (this.match === undefined) this.skip--;
  }

  /** The search as lines above the editor: the query and its match, and the keys. */
  lines(theme: Theme, width: number): string[] {
    const match = this.match;
    const shown = match === undefined ? theme.yellow("no match") : sanitize(match.split("\n")[0]!);
    return [truncate(`${theme.cyan("history search")} ${sanitize(this.query)}${theme.dim(" ›")} ${shown}`, width), truncate(theme.dim("  Ctrl-R older · Enter take it · Esc leave"), width)];
  }

  /** Keys while the search is open (it takes them all); what ended it, once one did. */
  key(key: Key): SearchEnd {
    if (key.kind === "text") this.type(key.text);
    else if (key.kind === "backspace") this.backspace();
    else if (key.kind === "ctrlR") this.older();
    else if (key.kind === "enter") {
      const match = this.match;
      return match === undefined ? { kind: "leave" } : { kind: "take", text: match };
    } else if (key.kind === "escape" || key.kind === "ctrlC") return { kind: "leave" };
    return undefined;
  }
}
