// Line diffs for people: what a write will change, shown in its approval as a bounded unified diff, and the
// `+N -M lines` of its outcome. Common leading and trailing lines are set aside first; the rest is an exact
// LCS when it is small enough, otherwise "all old lines out, all new lines in" (still correct, less tidy).
import { ellipsize } from "../text/cut";

type Op = { kind: " " | "-" | "+"; line: string };

/** Above this many cells (old × new differing lines) the LCS table is skipped. */
const MAX_LCS_CELLS = 2_000_000;
const CONTEXT = 3;

export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

function diffOps(a: string[], b: string[]): Op[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const head: Op[] = a.slice(0, start).map((line) => ({ kind: " ", line }));
  const tail: Op[] = a.slice(endA).map((line) => ({ kind: " ", line }));
  return [...head, ...middleOps(a.slice(start, endA), b.slice(start, endB)), ...tail];
}

function middleOps(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  if (n * m > MAX_LCS_CELLS || n === 0 || m === 0) {
    return [...a.map((line): Op => ({ kind: "-", line })), ...b.map((line): Op => ({ kind: "+", line }))];
  }
  // lcs[i][j]: longest common subsequence of a[i..] and b[j..], in one flat table.
  const w = m + 1;
  const lcs = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * w + j] = a[i] === b[j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      ops.push({ kind: " ", line: a[i++]! });
      j++;
    } else if (lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!) ops.push({ kind: "-", line: a[i++]! });
    else ops.push({ kind: "+", line: b[j++]! });
  }
  while (i < n) ops.push({ kind: "-", line: a[i++]! });
  while (j < m) ops.push({ kind: "+", line: b[j++]! });
  return ops;
}

export interface LineDiff {
  added: number;
  removed: number;
  /** Hunks in unified format (`@@ -a,b +c,d @@`), at most `maxLines` lines, then a line saying what was left out. */
  text: string;
}

/** A unified diff of two texts, bounded to `maxLines` output lines of at most `maxChars` characters each. */
export function unifiedDiff(oldText: string, newText: string, opts: { maxLines: number; maxChars: number }): LineDiff {
  const ops = diffOps(splitLines(oldText), splitLines(newText));
  const added = ops.filter((o) => o.kind === "+").length;
  const removed = ops.filter((o) => o.kind === "-").length;
  const out: string[] = [];
  let index = 0;
  while (index < ops.length) {
    const change = ops.findIndex((o, k) => k >= index && o.kind !== " ");
    if (change < 0) break;
    // A hunk runs from CONTEXT lines before its first change to CONTEXT lines after the last change within reach.
    const from = Math.max(index, change - CONTEXT);
    let to = change;
    for (let k = change; k < ops.length; k++) {
      if (ops[k]!.kind !== " ") to = k;
      else if (k - to > 2 * CONTEXT) break;
    }
    const until = Math.min(ops.length, to + CONTEXT + 1);
    const oldStart = ops.slice(0, from).filter((o) => o.kind !== "+").length;
    const newStart = ops.slice(0, from).filter((o) => o.kind !== "-").length;
    const body = ops.slice(from, until);
    const oldCount = body.filter((o) => o.kind !== "+").length;
    const newCount = body.filter((o) => o.kind !== "-").length;
    out.push(`@@ -${oldStart + (oldCount ? 1 : 0)},${oldCount} +${newStart + (newCount ? 1 : 0)},${newCount} @@`);
    for (const o of body) out.push(`${o.kind}${o.line}`);
    index = until;
  }
  const shown = out.slice(0, opts.maxLines).map((l) => ellipsize(l, opts.maxChars));
  if (out.length > shown.length) shown.push(`… ${out.length - shown.length} more diff lines not shown`);
  return { added, removed, text: shown.join("\n") };
}

/** `+N -M lines` for a person. */
export function lineCounts(added: number, removed: number): string {
  return `+${added} -${removed} lines`;
}
