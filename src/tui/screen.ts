// Drawing without an alternate screen: finished lines go into the terminal's own scrollback (so they can be
// selected, copied and scrolled like any output), and only a small live region at the bottom (streaming text,
// running tools, the approval card, the editor, the status line) is redrawn in place. Each frame is one
// write wrapped in synchronized-output markers, so terminals that support them never show a half frame.
import { displayWidth, truncate } from "./text";

export interface Frame {
  lines: string[];
  cursorRow: number;
  cursorCol: number;
}

export interface Output {
  write(s: string): void;
  columns(): number;
  rows(): number;
}

const SYNC_START = "\x1b[?2026h";
const SYNC_END = "\x1b[?2026l";

export class Screen {
  /** Lines of the live region as drawn, and where the cursor was left within it. */
  private drawn: string[] = [];
  private cursorRow = 0;
  private drawnWidth: number;

  constructor(private readonly out: Output) {
    this.drawnWidth = out.columns();
  }

  /** Draws `committed` into the scrollback above the live region, then the live region itself. */
  draw(committed: string[], frame: Frame): void {
    const width = this.out.columns();
    // Each line clears its own rest (\x1b[K) and the last clears what lies below: no "erase the whole screen",
    // which tmux (scroll-on-clear) and some terminals would push into the scrollback as a stale copy.
    let s = SYNC_START + this.moveToTop(width);
    for (const line of committed) s += `${line}\x1b[0m\x1b[K\r\n`;
    // The live region never takes the whole screen: the editor and the status line must stay visible.
    const maxLines = Math.max(3, this.out.rows() - 1);
    let lines = frame.lines;
    let cursorRow = frame.cursorRow;
    if (lines.length > maxLines) {
      const drop = lines.length - maxLines;
      lines = lines.slice(drop);
      cursorRow = Math.max(0, cursorRow - drop);
    }
    // A line as wide as the terminal would wrap on its own and throw off the row arithmetic.
    s += lines.map((l) => `${truncate(l, width)}\x1b[0m\x1b[K`).join("\r\n");
    s += "\x1b[J";
    const up = lines.length - 1 - cursorRow;
    if (up > 0) s += `\x1b[${up}A`;
    s += `\r${frame.cursorCol > 0 ? `\x1b[${frame.cursorCol}C` : ""}`;
    this.out.write(s + SYNC_END);
    this.drawn = lines;
    this.cursorRow = cursorRow;
    this.drawnWidth = width;
  }

  /** Ctrl-L: clears the terminal's screen (the scrollback stays); the next draw puts the live region at the top. */
  clear(): void {
    this.out.write("\x1b[H\x1b[2J");
    this.drawn = [];
    this.cursorRow = 0;
  }

  /** Erases the live region and leaves the cursor at its start (before exit, or before printing plainly). */
  release(): void {
    this.out.write(`${this.moveToTop(this.out.columns())}\x1b[J`);
    this.drawn = [];
    this.cursorRow = 0;
  }

  /**
   * Moves from the cursor to the first row of the live region. After a resize the terminal may have re-wrapped
   * the drawn lines, so each one counts the rows it takes at the new width.
   */
  private moveToTop(width: number): string {
    let rows = 0;
    const reflowed = width < this.drawnWidth;
    for (let i = 0; i < this.cursorRow && i < this.drawn.length; i++) {
      rows += reflowed ? Math.max(1, Math.ceil(displayWidth(this.drawn[i]!) / Math.max(1, width))) : 1;
    }
    return `\r${rows > 0 ? `\x1b[${rows}A` : ""}`;
  }
}
