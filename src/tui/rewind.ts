// /rewind (and Esc Esc on an empty prompt), /undo and /redo. /rewind lists the session's prompts (and the start):
// the chosen one is the last kept, everything after it is undone — files and conversation, conversation only, or
// files only. Every restore first shows what will change (each file restored, created or deleted, with a short
// diff) and asks; files changed outside SCV since its last checkpoint are kept unless the person answers `o`.
import type { SessionScreen } from "./context";
import type { Key } from "./keys";
import { sanitize, truncate } from "./text";

interface TurnRow {
  turn_id: string;
  prompt: string;
  files: boolean;
  reason?: string;
}

type Scope = { files: boolean; conversation: boolean; label: string };
const SCOPES: Scope[] = [
  { files: true, conversation: true, label: "files and conversation" },
  { files: false, conversation: true, label: "conversation only" },
  { files: true, conversation: false, label: "files only" },
];

type Step =
  | { kind: "pick"; rows: TurnRow[]; index: number }
  | { kind: "scope"; row: TurnRow; index: number }
  | { kind: "confirm"; params: Record<string, unknown>; outside: boolean };

/** The flow on screen while it holds the keyboard; undefined once it is done or cancelled. */
export class RewindFlow {
  private step: Step | undefined;

  constructor(private readonly ctx: SessionScreen) {}

  get open(): boolean {
    return this.step !== undefined;
  }

  /** /rewind: the session's prompts to choose from. */
  async start(): Promise<void> {
    const r = await this.ctx.request("session.checkpoints", { session_id: this.ctx.sessionId() });
    if (!r.turns.length) return this.ctx.view.say("nothing to rewind yet: this session has no prompts", this.ctx.theme.dim);
    if (!r.enabled) this.ctx.view.say("checkpoints are off in this session ([checkpoints] enabled = false): only the conversation can be rewound", this.ctx.theme.yellow);
    const start: TurnRow = { turn_id: "t0", prompt: "(the start, before the first prompt)", files: r.enabled };
    const rows: TurnRow[] = [start, ...r.turns];
    this.step = { kind: "pick", rows, index: rows.length - 1 };
  }

  /** /undo (the files of the last turn that changed them) and /redo: the plan, then the question. */
  async undoRedo(which: "undo" | "redo"): Promise<void> {
    await this.preview({ [which]: true });
  }

  lines(width: number): string[] {
    const { theme } = this.ctx;
    const s = this.step;
    if (!s) return [];
    if (s.kind === "pick") {
      const out = [theme.bold("Rewind: keep up to which prompt? Everything after it is undone (Up/Down, Enter, Esc to cancel)")];
      s.rows.forEach((row, i) => {
        const files = row.files ? "" : theme.dim(`  (files: ${row.reason ?? "unavailable"})`);
        const text = `${i === s.index ? "›" : " "} ${row.turn_id.padEnd(4)} ${sanitize(row.prompt.split("\n")[0]!)}`;
        out.push(truncate(`${i === s.index ? theme.cyan(text) : text}${files}`, width));
      });
      return out;
    }
    if (s.kind === "scope") {
      const out = [theme.bold(`Rewind to the end of ${s.row.turn_id}: what? (Up/Down or 1-3, Enter, Esc back)`)];
      SCOPES.forEach((scope, i) => {
        const off = scope.files && !s.row.files ? theme.dim(`  (${s.row.reason ?? "files unavailable"})`) : "";
        const text = `${i === s.index ? "›" : " "} ${i + 1}. ${scope.label}`;
        out.push(truncate(`${i === s.index ? theme.cyan(text) : text}${off}`, width));
      });
      return out;
    }
    return [theme.bold(`Apply? y yes${s.outside ? " (files changed outside SCV are kept) · o yes, and overwrite those too" : ""} · n or Esc no`)];
  }

  /** Keys while the flow is open. */
  key(key: Key): void {
    const s = this.step;
    if (!s) return;
    if (s.kind === "pick") {
      const n = s.rows.length;
      if (key.kind === "up") s.index = (s.index + n - 1) % n;
      else if (key.kind === "down" || key.kind === "tab") s.index = (s.index + 1) % n;
      else if (key.kind === "escape") this.step = undefined;
      else if (key.kind === "enter") this.step = { kind: "scope", row: s.rows[s.index]!, index: 0 };
      return;
    }
    if (s.kind === "scope") {
      if (key.kind === "up") s.index = (s.index + SCOPES.length - 1) % SCOPES.length;
      else if (key.kind === "down" || key.kind === "tab") s.index = (s.index + 1) % SCOPES.length;
      else if (key.kind === "escape") this.step = undefined;
      else if (key.kind === "text" && /^[1-3]$/.test(key.text)) s.index = Number(key.text) - 1;
      if (key.kind === "enter" || (key.kind === "text" && /^[1-3]$/.test(key.text))) {
        const scope = SCOPES[s.index]!;
        this.step = undefined;
        void this.preview({ to_turn: s.row.turn_id, files: scope.files, conversation: scope.conversation });
      }
      return;
    }
    const k = key.kind === "text" ? key.text.toLowerCase() : key.kind;
    if (k === "y" || (k === "o" && s.outside)) {
      this.step = undefined;
      void this.apply({ ...s.params, apply: true, ...(k === "o" ? { overwrite: ["*"] } : {}) });
    } else if (k === "n" || k === "escape") {
      this.step = undefined;
      this.ctx.view.say("rewind cancelled: nothing changed", this.ctx.theme.dim);
    }
  }

  /** Shows what the rewind would change and asks. */
  private async preview(params: Record<string, unknown>): Promise<void> {
    const { view, theme } = this.ctx;
    const full = { session_id: this.ctx.sessionId(), ...params };
    try {
      const plan = await this.ctx.request("session.rewind", full);
      if (plan.describes) view.say(`restore ${sanitize(plan.describes)}:`, theme.bold);
      if (params.files !== false && plan.changes.length === 0) view.say("  files: nothing to change, they already match", theme.dim);
      for (const c of plan.changes) {
        const outside = c.changed_outside ? theme.yellow("  changed outside SCV since its last checkpoint: kept unless you answer o") : "";
        view.say(`  ${c.action.padEnd(7)} ${sanitize(c.path)}${outside}`);
        for (const line of String(c.diff).split("\n").filter(Boolean)) view.say(`      ${sanitize(line)}`, line.startsWith("+") ? theme.green : line.startsWith("-") ? theme.red : theme.dim);
      }
      if (params.conversation) view.say(`  conversation: the turns after ${String(params.to_turn)} leave it (the session file keeps them)`);
      // The plan shown is the plan applied: its id goes back with the confirmation (a file changed since is named, then asked again).
      const confirm = plan.plan_id ? { ...full, plan_id: plan.plan_id } : full;
      this.step = { kind: "confirm", params: confirm, outside: plan.changes.some((c: { changed_outside?: boolean }) => c.changed_outside) };
    } catch (e) {
      view.say(`cannot rewind: ${(e as Error).message}`, theme.yellow);
    }
    this.ctx.requestRender();
  }

  private async apply(params: Record<string, unknown>): Promise<void> {
    const { view, theme } = this.ctx;
    try {
      const r = await this.ctx.request("session.rewind", params);
      const parts: string[] = [];
      if (r.restored) parts.push(`${r.restored.length} restored, ${r.created.length} created, ${r.deleted.length} deleted`);
      if (r.conversation_rewound !== undefined) parts.push(`${r.conversation_rewound} turn${r.conversation_rewound === 1 ? "" : "s"} left the conversation`);
      view.say(`rewound: ${parts.join("; ") || "nothing to change"}`, theme.green);
      for (const k of r.kept ?? []) view.say(`kept ${sanitize(k)}: changed outside SCV since its last checkpoint`, theme.yellow);
    } catch (e) {
      const changed = (e as { data?: { changed?: unknown } }).data?.changed;
      if (changed === undefined) view.say(`rewind failed: ${(e as Error).message}`, theme.red);
      else {
        // Files changed after the plan was shown: nothing was restored; the new plan is shown and asked about again.
        view.say(`not rewound: ${(e as Error).message}`, theme.yellow);
        const { apply: _a, overwrite: _o, plan_id: _p, ...again } = params;
        return this.preview(again);
      }
    }
    this.ctx.requestRender();
  }
}
