// The card for a question the model asks (clarify.requested): the question, its choices to move through with
// Up/Down (or pick by number), and a line to type an answer of one's own. It draws and reads keys; sending the
// answer is the app's. Text typed here is the answer, never a new prompt.
import type { Style as Theme } from "../terminal/style";
import type { Key } from "./keys";
import { sanitize, truncate } from "./text";

export type QuestionChoice = { kind: "answer"; text: string } | { kind: "skip" };

export class QuestionCard {
  /** The highlighted choice; -1 when none is (the typed answer counts). */
  private index: number;
  private typed = "";

  constructor(
    readonly question: string,
    readonly choices: readonly string[] = [],
  ) {
    this.index = choices.length ? 0 : -1;
  }

  lines(theme: Theme, width: number): string[] {
    const lines = [truncate(theme.bold(`? ${sanitize(this.question)}`), width)];
    this.choices.forEach((c, i) => {
      const row = `${i === this.index ? "›" : " "} ${i + 1}) ${sanitize(c)}`;
      lines.push(truncate(i === this.index ? theme.cyan(row) : row, width));
    });
    lines.push(truncate(`  ${this.choices.length ? "or type an answer" : "your answer"}: ${sanitize(this.typed)}${theme.dim("▏")}`, width));
    const pick = this.choices.length ? "Up/Down or 1-" + this.choices.length + " pick · " : "";
    lines.push(truncate(theme.dim(`  ${pick}Enter sends · Esc skips the question`), width));
    return lines;
  }

  /** Moves, types, or returns what Enter or Esc chose. */
  key(key: Key): QuestionChoice | undefined {
    const n = this.choices.length;
    if (key.kind === "up" && n) this.index = (this.index + n - 1) % n;
    else if ((key.kind === "down" || key.kind === "tab") && n) this.index = (this.index + 1) % n;
    else if (key.kind === "escape") return { kind: "skip" };
    else if (key.kind === "backspace") this.typed = [...this.typed].slice(0, -1).join("");
    else if (key.kind === "text" || key.kind === "paste") {
      const digit = key.kind === "text" && !this.typed && /^[1-9]$/.test(key.text) ? Number(key.text) : 0;
      if (digit && digit <= n) return { kind: "answer", text: this.choices[digit - 1]! };
      this.typed += key.text.split("\n").join(" ");
    } else if (key.kind === "enter") {
      const text = this.typed.trim() || (this.index >= 0 ? this.choices[this.index] : undefined);
      return text ? { kind: "answer", text } : { kind: "skip" };
    }
    return undefined;
  }
}
