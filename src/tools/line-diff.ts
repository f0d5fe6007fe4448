// Line diffs for people: what a write will change, shown in its approval as a bounded unified diff, and the
// `+N -M lines` of its outcome. Common leading and trailing lines are set aside first; the rest is an exact
// LCS when it is small enough, otherwise "all old lines out, all new lines in" (still correct, less tidy).
import { ellipsize } from "../text/cut";

type Kind = " " | "-" | "+";
/**
 * Consecutive diff lines of one kind: `lines[from..to)`. The unchanged head and tail and the "all out, all in"
 * middle of a large change are one run each, so a diff of a many-megabyte write costs no object per line. (A new
 * file's run holds only the lines that can be shown: see allAdded.)
 */
type Run = { kind: Kind; lines: readonly string[]; from: number; to: number };

/** Above this many cells (old × new differing lines) the LCS table is skipped. */
const MAX_LCS_CELLS = 2_000_000;
const CONTEXT = 3;

export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** How many lines splitLines(text) gives, without making them. */
export function lineCount(text: string): number {
  if (text === "") return 0;
  let count = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) count++;
  return text.endsWith("\n") ? count : count + 1;
}

/** The first `count` lines of splitLines(text), without splitting the rest. */
export function firstLines(text: string, count: number): string[] {
  const lines: string[] = [];
  let from = 0;
  while (lines.length < count && from < text.length) {
    const nl = text.indexOf("\n", from);
    lines.push(text.slice(from, nl === -1 ? text.length : nl));
    from = nl === -1 ? text.length : nl + 1;
  }
  return lines;
}

/**
 * A new file's diff, every line added: counted, and only the first `shown` split off (no more can be shown, as the
 * one hunk starts at the first line).
 */
function allAdded(text: string, shown: number): Run[] {
  const count = lineCount(text);
  return count ? [{ kind: "+", lines: firstLines(text, shown), from: 0, to: count }] : [];
}

function diffRuns(a: string[], b: string[]): Run[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const runs = [{ kind: " " as const, lines: a, from: 0, to: start }, ...middleRuns(a, start, endA, b, start, endB), { kind: " " as const, lines: a, from: endA, to: a.length }];
  return runs.filter((r) => r.to > r.from);
}

function middleRuns(a: string[], fromA: number, toA: number, b: string[], fromB: number, toB: number): Run[] {
  const n = toA - fromA;
  const m = toB - fromB;
  if (n * m > MAX_LCS_CELLS || n === 0 || m === 0) {
    return [
      { kind: "-", lines: a, from: fromA, to: toA },
      { kind: "+", lines: b, from: fromB, to: toB },
    ];
  }
  // lcs[i][j]: longest common subsequence of a[fromA + i..] and b[fromB + j..], in one flat table.
  const w = m + 1;
  const lcs = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * w + j] = a[fromA + i] === b[fromB + j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
    }
  }
  const runs: Run[] = [];
  const push = (kind: Kind, lines: readonly string[], at: number) => {
    const last = runs[runs.length - 1];
    if (last && last.kind === kind && last.lines === lines && last.to === at) last.to++;
    else runs.push({ kind, lines, from: at, to: at + 1 });
  };
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[fromA + i] === b[fromB + j]) {
      push(" ", a, fromA + i++);
      j++;
    } else if (lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!) push("-", a, fromA + i++);
    else push("+", b, fromB + j++);
  }
  while (i < n) push("-", a, fromA + i++);
  while (j < m) push("+", b, fromB + j++);
  return runs;
}

export interface LineDiff {
  added: number;
  removed: number;
  /** Hunks in unified format (`@@ -a,b +c,d @@`), at most `maxLines` lines, then a line saying what was left out. */
  text: string;
}

/**
 * A unified diff of two texts, bounded to `maxLines` output lines of at most `maxChars` characters each. Only the
 * lines shown are made; the rest are counted.
 */
export function unifiedDiff(oldText: string, newText: string, opts: { maxLines: number; maxChars: number }): LineDiff {
  const runs = oldText === "" ? allAdded(newText, opts.maxLines) : diffRuns(splitLines(oldText), splitLines(newText));
  const size = (r: Run) => r.to - r.from;
  // Where each run starts among all the diff's lines (" ", "-" and "+" alike).
  const starts: number[] = [];
  let total = 0;
  let added = 0;
  let removed = 0;
  for (const r of runs) {
    starts.push(total);
    total += size(r);
    if (r.kind === "+") added += size(r);
    if (r.kind === "-") removed += size(r);
  }
  // Old and new line numbers at a diff line, found by a cursor that only moves forward (hunks come in order).
  let cursorRun = 0;
  let oldBefore = 0;
  let newBefore = 0;
  const linesBefore = (at: number): { old: number; new: number } => {
    while (cursorRun < runs.length && starts[cursorRun]! + size(runs[cursorRun]!) <= at) {
      const r = runs[cursorRun++]!;
      if (r.kind !== "+") oldBefore += size(r);
      if (r.kind !== "-") newBefore += size(r);
    }
    const r = runs[cursorRun];
    const inside = r ? Math.max(0, at - starts[cursorRun]!) : 0;
    return { old: oldBefore + (r && r.kind !== "+" ? inside : 0), new: newBefore + (r && r.kind !== "-" ? inside : 0) };
  };
  const shown: string[] = [];
  let lines = 0;
  let index = 0;
  for (let k = 0; k < runs.length; ) {
    if (runs[k]!.kind === " ") {
      k++;
      continue;
    }
    // A hunk runs from CONTEXT lines before its first change to CONTEXT lines after the last change within reach:
    // changes at most 2 × CONTEXT unchanged lines apart share one.
    let last = k;
    for (let next = k + 1; next < runs.length; next++) {
      if (runs[next]!.kind !== " ") last = next;
      else if (size(runs[next]!) > 2 * CONTEXT) break;
    }
    const from = Math.max(index, starts[k]! - CONTEXT);
    const until = Math.min(total, starts[last]! + size(runs[last]!) + CONTEXT);
    const head = linesBefore(from);
    const fromRun = cursorRun;
    const end = linesBefore(until);
    const oldCount = end.old - head.old;
    const newCount = end.new - head.new;
    if (shown.length < opts.maxLines) shown.push(`@@ -${head.old + (oldCount ? 1 : 0)},${oldCount} +${head.new + (newCount ? 1 : 0)},${newCount} @@`);
    // The body's lines, made only while there is room to show them (every earlier line was shown, then).
    for (let r = fromRun; r < runs.length && starts[r]! < until && shown.length < opts.maxLines; r++) {
      const run = runs[r]!;
      for (let at = Math.max(from, starts[r]!); at < Math.min(until, starts[r]! + size(run)) && shown.length < opts.maxLines; at++) {
        shown.push(`${run.kind}${run.lines[run.from + at - starts[r]!]}`);
      }
    }
    lines += 1 + until - from;
    index = until;
    k = last + 1;
  }
  const text = shown.map((l) => ellipsize(l, opts.maxChars));
  if (lines > shown.length) text.push(`… ${lines - shown.length} more diff lines not shown`);
  return { added, removed, text: text.join("\n") };
}

/** `+N -M lines` for a person. */
export function lineCounts(added: number, removed: number): string {
  return `+${added} -${removed} lines`;
}
