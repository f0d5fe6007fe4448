// The prompt editor: a multi-line buffer with a cursor, prompt history, and large pastes collapsed to a
// marker that expands again on submit (so a pasted log does not fill the screen while the person types).
import type { Key } from "./keys";
import { displayWidth } from "./text";

// A paste this long becomes a marker in the editor; a prompt this long is shown collapsed in the conversation.
export const PASTE_COLLAPSE_LINES = 5;
export const PASTE_COLLAPSE_CHARS = 1000;

export type EditorAction = { kind: "none" } | { kind: "submit"; text: string };

export class PromptEditor {
  private lines: string[] = [""];
  private row = 0;
  private col = 0; // in UTF-16 units within lines[row]
  private readonly history: string[] = [];
  private historyIndex = -1; // -1: editing a new prompt
  private draft = "";
  private readonly pastes = new Map<string, string>();
  private pasteCounter = 0;

  get text(): string {
    return this.lines.join("\n");
  }

  get isEmpty(): boolean {
    return this.lines.length === 1 && this.lines[0] === "";
  }

  /** The text with paste markers expanded: what is sent to the model. */
  expandedText(): string {
    let t = this.text;
    for (const [marker, pasted] of this.pastes) t = t.split(marker).join(pasted);
    return t;
  }

  /** Prompts from earlier sessions (oldest first), reached after this session's own with Up and Ctrl-R. */
  seedHistory(older: readonly string[]): void {
    // history is newest first: this session's prompts, then the earlier ones from the newest back.
    for (let i = older.length - 1; i >= 0; i--) if (!this.history.includes(older[i]!)) this.history.push(older[i]!);
  }

  /** The current line up to the cursor (what a completion looks at). */
  get beforeCursor(): string {
    return this.lines[this.row]!.slice(0, this.col);
  }

  /** Replaces the `count` characters before the cursor with `text` (a completed mention). */
  replaceBeforeCursor(count: number, text: string): void {
    const line = this.lines[this.row]!;
    this.lines[this.row] = line.slice(0, this.col - count) + text + line.slice(this.col);
    this.col = this.col - count + text.length;
  }

  /** Every prompt in the history, oldest first. */
  prompts(): string[] {
    return [...this.history].reverse();
  }

  setText(text: string): void {
    this.lines = text.split("\n");
    this.row = this.lines.length - 1;
    this.col = this.lines[this.row]!.length;
  }

  clear(): void {
    this.lines = [""];
    this.row = 0;
    this.col = 0;
    this.pastes.clear();
    this.historyIndex = -1;
  }

  handle(key: Key): EditorAction {
    const line = this.lines[this.row]!;
    switch (key.kind) {
      case "text":
        this.insert(key.text);
        break;
      case "paste":
        this.paste(key.text);
        break;
      case "newline":
        this.insert("\n");
        break;
      case "enter":
        // A line ending in a backslash continues the prompt on the next line, as in a shell.
        if (this.col === line.length && line.endsWith("\\")) {
          this.lines[this.row] = line.slice(0, -1);
          this.col -= 1;
          this.insert("\n");
          break;
        }
        return this.submit();
      case "backspace":
        if (this.col > 0) {
          const step = prevCharLength(line, this.col);
          this.lines[this.row] = line.slice(0, this.col - step) + line.slice(this.col);
          this.col -= step;
        } else if (this.row > 0) {
          const prev = this.lines[this.row - 1]!;
          this.lines.splice(this.row - 1, 2, prev + line);
          this.row -= 1;
          this.col = prev.length;
        }
        break;
      case "delete":
        if (this.col < line.length) this.lines[this.row] = line.slice(0, this.col) + line.slice(this.col + nextCharLength(line, this.col));
        else if (this.row < this.lines.length - 1) this.lines.splice(this.row, 2, line + this.lines[this.row + 1]!);
        break;
      case "left":
        if (this.col > 0) this.col -= prevCharLength(line, this.col);
        else if (this.row > 0) {
          this.row -= 1;
          this.col = this.lines[this.row]!.length;
        }
        break;
      case "right":
        if (this.col < line.length) this.col += nextCharLength(line, this.col);
        else if (this.row < this.lines.length - 1) {
          this.row += 1;
          this.col = 0;
        }
        break;
      case "up":
        if (this.row > 0) {
          this.row -= 1;
          this.col = Math.min(this.col, this.lines[this.row]!.length);
        } else this.recall(1);
        break;
      case "down":
        if (this.row < this.lines.length - 1) {
          this.row += 1;
          this.col = Math.min(this.col, this.lines[this.row]!.length);
        } else this.recall(-1);
        break;
      case "home":
        this.col = 0;
        break;
      case "end":
        this.col = line.length;
        break;
      case "wordLeft":
        this.col = wordStart(line, this.col);
        break;
      case "wordRight":
        this.col = wordEnd(line, this.col);
        break;
      case "killLineStart":
        this.lines[this.row] = line.slice(this.col);
        this.col = 0;
        break;
      case "killLineEnd":
        this.lines[this.row] = line.slice(0, this.col);
        break;
      case "killWord": {
        const start = wordStart(line, this.col);
        this.lines[this.row] = line.slice(0, start) + line.slice(this.col);
        this.col = start;
        break;
      }
      default:
        break;
    }
    return { kind: "none" };
  }

  /**
   * The editor as display lines with the cursor's row and column, wrapped to `width`. The first line carries
   * `prompt`, continuation lines an indent of the same width.
   */
  render(width: number, prompt: string): { lines: string[]; cursorRow: number; cursorCol: number } {
    const pad = " ".repeat(displayWidth(prompt));
    const out: string[] = [];
    let cursorRow = 0;
    let cursorCol = 0;
    const w = Math.max(4, width);
    this.lines.forEach((text, i) => {
      const prefix = i === 0 ? prompt : pad;
      // Wrap by columns (not words) so the cursor position is simple arithmetic.
      const chunks = chunkByWidth(text, w - displayWidth(prefix));
      if (i === this.row) {
        const before = displayWidth(text.slice(0, this.col));
        const span = w - displayWidth(prefix);
        let chunkIndex = Math.floor(before / span);
        let col = before - chunkIndex * span;
        if (chunkIndex >= chunks.length) {
          chunkIndex = chunks.length - 1;
          col = displayWidth(chunks[chunkIndex]!);
        }
        cursorRow = out.length + chunkIndex;
        cursorCol = displayWidth(prefix) + col;
      }
      chunks.forEach((c, j) => out.push((j === 0 ? prefix : pad) + c));
    });
    return { lines: out, cursorRow, cursorCol };
  }

  private insert(text: string) {
    const line = this.lines[this.row]!;
    const parts = (line.slice(0, this.col) + text + line.slice(this.col)).split("\n");
    const tailLength = line.length - this.col;
    this.lines.splice(this.row, 1, ...parts);
    this.row += parts.length - 1;
    this.col = this.lines[this.row]!.length - tailLength;
  }

  private paste(text: string) {
    const lineCount = text.split("\n").length;
    if (lineCount > PASTE_COLLAPSE_LINES || text.length > PASTE_COLLAPSE_CHARS) {
      const marker = `[pasted ${lineCount} lines #${++this.pasteCounter}]`;
      this.pastes.set(marker, text);
      this.insert(marker);
    } else this.insert(text);
  }

  private submit(): EditorAction {
    const text = this.expandedText();
    if (text.trim() === "") return { kind: "none" };
    if (this.history[0] !== this.text) this.history.unshift(this.text);
    this.clear();
    return { kind: "submit", text };
  }

  /** Up (1) and Down (-1) through earlier prompts; the prompt being typed is kept as the draft. */
  private recall(direction: 1 | -1) {
    const next = this.historyIndex + direction;
    if (next < -1 || next >= this.history.length) return;
    if (this.historyIndex === -1) this.draft = this.text;
    this.historyIndex = next;
    const text = next === -1 ? this.draft : this.history[next]!;
    this.lines = text.split("\n");
    this.row = direction === 1 ? 0 : this.lines.length - 1;
    this.col = this.lines[this.row]!.length;
  }
}

function chunkByWidth(text: string, width: number): string[] {
  const w = Math.max(1, width);
  if (displayWidth(text) < w) return [text];
  const chunks: string[] = [];
  let cur = "";
  let curWidth = 0;
  for (const ch of text) {
    const cw = Bun.stringWidth(ch);
    if (curWidth + cw > w) {
      chunks.push(cur);
      cur = "";
      curWidth = 0;
    }
    cur += ch;
    curWidth += cw;
  }
  chunks.push(cur);
  // A line that exactly fills the width puts the cursor at the start of a fresh row.
  if (curWidth === w) chunks.push("");
  return chunks;
}

function prevCharLength(s: string, i: number): number {
  const c = s.charCodeAt(i - 1);
  return c >= 0xdc00 && c <= 0xdfff && i >= 2 ? 2 : 1;
}

function nextCharLength(s: string, i: number): number {
  const c = s.charCodeAt(i);
  return c >= 0xd800 && c <= 0xdbff ? 2 : 1;
}

function wordStart(s: string, i: number): number {
  let j = i;
  while (j > 0 && s[j - 1] === " ") j--;
  while (j > 0 && s[j - 1] !== " ") j--;
  return j;
}

function wordEnd(s: string, i: number): number {
  let j = i;
  while (j < s.length && s[j] === " ") j++;
  while (j < s.length && s[j] !== " ") j++;
  return j;
}

