// The `/model` picker: the configured profiles and the models the endpoint lists, in one list narrowed as the person
// types (fuzzy, as the `@` picker), Up/Down to choose, Enter to switch, Esc to leave. It draws and moves; what a
// choice does is model-switch's.
import type { Style as Theme } from "../terminal/style";
import { fuzzyScore } from "./file-mention";
import type { Key } from "./keys";
import { sanitize, truncate } from "./text";

export interface ModelChoice {
  /** What the person picks by: a profile's name or a model ID. */
  name: string;
  /** What it is, dimmed after the name: `profile · gpt-5 · responses API · api.openai.com`. */
  detail: string;
  /** The session.configure change it makes. */
  change: { provider?: string; model?: string };
  /** The one in use. */
  current?: boolean;
}

export type ModelPickerResult = { kind: "pick"; choice: ModelChoice } | { kind: "cancel" } | undefined;

/** Rows shown at most; the rest is reached by typing. */
const SHOWN = 10;

export class ModelPicker {
  private query = "";
  private index = 0;
  private choices: ModelChoice[];
  /** A line under the list while the endpoint's models are being asked for, or why there are none. */
  note: string | undefined;

  constructor(choices: readonly ModelChoice[]) {
    this.choices = [...choices];
    this.index = Math.max(0, this.choices.findIndex((c) => c.current));
  }

  /** The endpoint's models, once they arrive; the ones a profile already names are not repeated. */
  add(more: readonly ModelChoice[]): void {
    const chosen = this.matches()[this.index];
    for (const c of more) if (!this.choices.some((have) => have.name === c.name && have.change.model === c.change.model)) this.choices.push(c);
    if (chosen) this.index = Math.max(0, this.matches().indexOf(chosen));
  }

  private matches(): ModelChoice[] {
    if (!this.query) return this.choices;
    return this.choices
      .map((c) => ({ c, s: Math.max(fuzzyScore(this.query, c.name), fuzzyScore(this.query, `${c.name} ${c.detail}`) - 50) }))
      .filter((m) => m.s >= 0)
      .sort((a, b) => b.s - a.s)
      .map((m) => m.c);
  }

  lines(theme: Theme, width: number): string[] {
    const all = this.matches();
    const from = Math.max(0, Math.min(this.index - SHOWN + 1, all.length - SHOWN));
    const rows = all.slice(from, from + SHOWN).map((c, i) => {
      const at = from + i === this.index;
      const name = `${at ? "›" : " "} ${c.current ? "*" : " "} ${sanitize(c.name)}`;
      return truncate(`${at ? theme.cyan(name) : name}  ${theme.dim(sanitize(c.detail))}`, width);
    });
    const header = truncate(`${theme.bold("Switch model")} ${theme.dim("type to filter · Up/Down · Enter switches · Esc leaves")}`, width);
    const filter = truncate(`  ${theme.cyan("filter ›")} ${sanitize(this.query)}`, width);
    const more = all.length > SHOWN ? [truncate(theme.dim(`  ${all.length - SHOWN} more: type to narrow`), width)] : [];
    const empty = all.length ? [] : [truncate(theme.yellow(`  nothing matches "${sanitize(this.query)}"`), width)];
    return [header, filter, ...rows, ...empty, ...more, ...(this.note ? [truncate(theme.dim(`  ${sanitize(this.note)}`), width)] : [])];
  }

  key(key: Key): ModelPickerResult {
    const all = this.matches();
    const n = all.length;
    if (key.kind === "escape" || key.kind === "ctrlC") return { kind: "cancel" };
    if (key.kind === "text" || key.kind === "paste") {
      this.query += key.text.replace(/\s+/g, " ");
      this.index = 0;
    } else if (key.kind === "backspace") {
      this.query = [...this.query].slice(0, -1).join("");
      this.index = 0;
    } else if (n && key.kind === "up") this.index = (this.index + n - 1) % n;
    else if (n && (key.kind === "down" || key.kind === "tab")) this.index = (this.index + 1) % n;
    else if (n && key.kind === "enter") return { kind: "pick", choice: all[Math.min(this.index, n - 1)]! };
    return undefined;
  }
}

/** The picker while it holds the keyboard (the app's `/model`): its keys, and the choice it settles with. */
export class OpenModelPicker {
  /** What the person chose, or undefined (Esc, Ctrl-C). */
  readonly chosen: Promise<ModelChoice | undefined>;
  private settle!: (choice: ModelChoice | undefined) => void;

  constructor(readonly picker: ModelPicker) {
    this.chosen = new Promise((resolve) => (this.settle = resolve));
  }

  /** A key at the picker; true once it closed it (a pick or a cancel). */
  key(key: Key): boolean {
    const r = this.picker.key(key);
    if (!r) return false;
    this.settle(r.kind === "pick" ? r.choice : undefined);
    return true;
  }
}
