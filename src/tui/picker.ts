// The list of stored sessions shown by /resume and --resume without an ID: Up/Down (or Tab) move, Enter opens,
// Esc cancels. It draws and moves; what opening or cancelling does is the app's.
import type { SessionSummary } from "../sessions/index";
import type { Style as Theme } from "../terminal/style";
import type { Key } from "./keys";
import { truncate } from "./text";
import { formatWhen } from "../text/when";

export type PickerChoice = { kind: "open"; id: string } | { kind: "cancel" };

export class SessionPicker {
  private index = 0;

  constructor(
    private readonly items: readonly SessionSummary[],
    /** Whether cancelling starts a fresh session: so for --resume without an ID, not for /resume. */
    readonly startFresh: boolean,
  ) {}

  lines(theme: Theme, width: number): string[] {
    const lines = [theme.bold("Resume which session? (Up/Down, Enter to open, Esc to cancel)")];
    this.items.forEach((s, i) => {
      const when = formatWhen(s.last_activity);
      const row = `${i === this.index ? "›" : " "} ${s.id}  ${when}  ${s.turns} turn${s.turns === 1 ? "" : "s"}  ${s.first_prompt}`;
      lines.push(truncate(i === this.index ? theme.cyan(row) : row, width));
    });
    return lines;
  }

  /** Moves the selection, or returns what Enter or Esc chose. */
  key(key: Key): PickerChoice | undefined {
    const n = this.items.length;
    if (key.kind === "up") this.index = (this.index + n - 1) % n;
    else if (key.kind === "down" || key.kind === "tab") this.index = (this.index + 1) % n;
    else if (key.kind === "escape") return { kind: "cancel" };
    else if (key.kind === "enter") return { kind: "open", id: this.items[this.index]!.id };
    return undefined;
  }
}
