// A session's checkpoint log: $SCV_HOME/state/checkpoints/sessions/<session>.jsonl, one JSON line per recorded
// point (the workspace before a turn's first change, after the turn), restore (a rewind, an undo or a redo)
// or skipped recording. Appended only; a torn last line (a crash mid-write) is ignored.
import * as fs from "node:fs";

export type LogEntry =
  | { kind: "point"; turn: string; phase: "before" | "after"; root: string; at: number; skipped?: string[] }
  | { kind: "restore"; root: string; from: string; at: number; to_turn?: string; undo?: string; redo?: string }
  | { kind: "skipped"; turn: string; reason: string; at: number };

export function readLog(file: string): LogEntry[] {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return [];
  }
  const out: LogEntry[] = [];
  for (const line of text.split("\n")) {
    if (!line) continue;
    try {
      const e = JSON.parse(line) as LogEntry;
      if (e && typeof e === "object" && typeof e.kind === "string") out.push(e);
    } catch {
      // a torn or damaged line: that point is missing, the others stand
    }
  }
  return out;
}

export function appendLog(file: string, entry: LogEntry): void {
  const fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW, 0o600);
  try {
    fs.writeSync(fd, `${JSON.stringify(entry)}\n`);
  } finally {
    fs.closeSync(fd);
  }
}

/** A turn that changed (or may have changed) the workspace: the states before its first change and after it. */
export interface TurnPoint {
  turn: string;
  before: string;
  after?: string;
  skipped?: string[];
}

/** The turns with a recorded `before`, in order. */
export function turnPoints(log: readonly LogEntry[]): TurnPoint[] {
  const points = new Map<string, TurnPoint>();
  for (const e of log) {
    if (e.kind !== "point") continue;
    const p = points.get(e.turn);
    if (e.phase === "before" && !p) points.set(e.turn, { turn: e.turn, before: e.root, ...(e.skipped ? { skipped: e.skipped } : {}) });
    else if (e.phase === "after" && p) p.after = e.root;
  }
  return [...points.values()];
}

/** The state SCV last recorded (after a turn, a restore, or before a turn cut off), or undefined. */
export function lastRecorded(log: readonly LogEntry[]): string | undefined {
  for (let i = log.length - 1; i >= 0; i--) {
    const e = log[i]!;
    if (e.kind === "point" || e.kind === "restore") return e.root;
  }
  return undefined;
}

/**
 * Undo and redo as the log tells them: `undone` is the stack of turns whose files were undone (last undone on
 * top), each with the state it was undone from. A turn recorded after an undo clears the stack, as an editor does.
 */
export function undoStack(log: readonly LogEntry[]): { turn: string; from: string }[] {
  let stack: { turn: string; from: string }[] = [];
  for (const e of log) {
    if (e.kind === "point" && e.phase === "before" && stack.length) stack = [];
    else if (e.kind === "restore") {
      if (e.undo) stack.push({ turn: e.undo, from: e.from });
      else if (e.redo) stack = stack.filter((s) => s.turn !== e.redo);
      else stack = [];
    }
  }
  return stack;
}
