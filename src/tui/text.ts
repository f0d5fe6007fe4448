// Display width and wrapping of text that may hold SGR escapes. Widths come from Bun.stringWidth (East Asian
// wide characters and emoji count 2, escapes 0), so CJK text and colour never break the layout.
import { terminalSafe } from "../text/terminal-safe";

const ESC_RE = /\x1b\[[0-9;?]*[ -/]*[@-~]/y;

export function displayWidth(s: string): number {
  return Bun.stringWidth(s);
}

/** Removes SGR and other CSI escapes (tests and width-free comparisons). */
export function stripAnsi(s: string): string {
  return s.replace(/\x1b\[[0-9;?]*[ -/]*[@-~]/g, "");
}

/**
 * Text from a model, a tool or a stored session, safe for the TUI: escape sequences dropped whole, every other
 * control (8-bit C1 included) and bidi override made visible (src/text/terminal-safe.ts), a tab four spaces.
 */
export function sanitize(s: string): string {
  return terminalSafe(s.replace(/\t/g, "    "), { escapes: "drop" });
}

interface Token {
  text: string;
  esc: boolean;
}

function tokenize(s: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  let plain = "";
  while (i < s.length) {
    if (s.charCodeAt(i) === 0x1b) {
      ESC_RE.lastIndex = i;
      const m = ESC_RE.exec(s);
      if (m) {
        if (plain) out.push({ text: plain, esc: false });
        plain = "";
        out.push({ text: m[0], esc: true });
        i += m[0].length;
        continue;
      }
    }
    const cp = s.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    plain += ch;
    i += ch.length;
  }
  if (plain) out.push({ text: plain, esc: false });
  return out;
}

/**
 * Wraps one line (no newlines) to `width` columns, at spaces where it can and inside a word only when the word
 * is longer than a line. Active SGR styles are closed at each break and reopened on the next line, so a
 * styled line never bleeds into the prompt below it.
 */
/**
 * Phrases (`y approve once`, `n deny and say why`) joined by ` · ` on as few lines as fit `width`, each line
 * broken only between phrases, so no phrase is split; a phrase wider than a line alone is wrapped by words.
 */
export function wrapPhrases(phrases: readonly string[], width: number, sep = " · "): string[] {
  const lines: string[] = [];
  let cur = "";
  for (const p of phrases) {
    const next = cur ? `${cur}${sep}${p}` : p;
    if (displayWidth(next) <= width || !cur) cur = next;
    else {
      lines.push(cur);
      cur = p;
    }
  }
  if (cur) lines.push(cur);
  return lines.flatMap((l) => (displayWidth(l) <= width ? [l] : wrapLine(l, width)));
}

export function wrapLine(line: string, width: number, indent = ""): string[] {
  const w = Math.max(1, width);
  if (displayWidth(line) <= w) return [line];
  const lines: string[] = [];
  let cur = "";
  let curWidth = 0;
  let active: string[] = [];
  let lastSpace = -1; // index in `cur` just after a space, for word breaks
  let widthAtSpace = 0;
  const indentWidth = displayWidth(indent);
  const pushLine = (text: string) => lines.push(active.length ? `${text}\x1b[0m` : text);
  for (const tok of tokenize(line)) {
    if (tok.esc) {
      cur += tok.text;
      if (/^\x1b\[(0)?m$/.test(tok.text)) active = [];
      else if (tok.text.endsWith("m")) active.push(tok.text);
      continue;
    }
    for (const ch of tok.text) {
      const cw = Bun.stringWidth(ch);
      if (curWidth + cw > w && curWidth > 0) {
        if (ch !== " " && lastSpace > 0 && widthAtSpace > indentWidth) {
          const head = cur.slice(0, lastSpace).trimEnd();
          const tail = cur.slice(lastSpace);
          pushLine(head);
          cur = indent + active.join("") + tail;
          curWidth = displayWidth(cur);
        } else {
          pushLine(cur);
          cur = indent + active.join("");
          curWidth = indentWidth;
        }
        lastSpace = -1;
        if (ch === " ") continue;
      }
      cur += ch;
      curWidth += cw;
      if (ch === " ") {
        lastSpace = cur.length;
        widthAtSpace = curWidth;
      }
    }
  }
  if (stripAnsi(cur).trim() !== "" || lines.length === 0) lines.push(cur);
  return lines;
}

/** Wraps text that may hold newlines. */
export function wrapText(text: string, width: number, indent = ""): string[] {
  return text.split("\n").flatMap((l) => wrapLine(l, width, indent));
}

/** Cuts a line to `width` columns with an ellipsis (for one-line summaries). */
export function truncate(line: string, width: number): string {
  if (displayWidth(line) <= width) return line;
  let out = "";
  let w = 0;
  let styled = false;
  for (const tok of tokenize(line)) {
    if (tok.esc) {
      out += tok.text;
      styled = true;
      continue;
    }
    for (const ch of tok.text) {
      const cw = Bun.stringWidth(ch);
      if (w + cw > width - 1) return `${out}…${styled ? "\x1b[0m" : ""}`;
      out += ch;
      w += cw;
    }
  }
  return out;
}

/** A token count as the status line shows it: 950, 12.3k. */
export function formatTokens(n: number): string {
  return n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

/** The share of the context window that `used` tokens take: `10%`. */
export function contextShare(used: number, window: number): string {
  return `${Math.round((used / window) * 100)}%`;
}
