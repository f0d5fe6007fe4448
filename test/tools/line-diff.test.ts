// Line diffs shown in write approvals.
import { expect, test } from "bun:test";
import { firstLines, lineCount, splitLines, unifiedDiff } from "../../src/tools/line-diff";

const opts = { maxLines: 100, maxChars: 200 };
const lines = (n: number, f = (i: number) => `l${i}`) => `${Array.from({ length: n }, (_, i) => f(i + 1)).join("\n")}\n`;

test("equal texts: no change, no hunks", () => {
  expect(unifiedDiff("a\nb\n", "a\nb\n", opts)).toEqual({ added: 0, removed: 0, text: "" });
});

test("an insertion at the start and a deletion at the end", () => {
  expect(unifiedDiff("a\nb\n", "new\na\nb\n", opts).text).toBe("@@ -1,2 +1,3 @@\n+new\n a\n b");
  expect(unifiedDiff("a\nb\nc\n", "a\nb\n", opts).text).toBe("@@ -1,3 +1,2 @@\n a\n b\n-c");
});

test("changes far apart are separate hunks with three lines of context", () => {
  const after = lines(30, (i) => (i === 3 || i === 25 ? `L${i}` : `l${i}`));
  const d = unifiedDiff(lines(30), after, opts);
  expect([d.added, d.removed]).toEqual([2, 2]);
  expect(d.text.split("\n").filter((l) => l.startsWith("@@"))).toEqual(["@@ -1,6 +1,6 @@", "@@ -22,7 +22,7 @@"]);
});

test("a new file and an emptied file", () => {
  expect(unifiedDiff("", "x\ny\n", opts)).toEqual({ added: 2, removed: 0, text: "@@ -0,0 +1,2 @@\n+x\n+y" });
  expect(unifiedDiff("x\n", "", opts)).toEqual({ added: 0, removed: 1, text: "@@ -1,1 +0,0 @@\n-x" });
});

test("output is bounded in lines and characters", () => {
  const d = unifiedDiff(lines(100), lines(100, (i) => `${"z".repeat(300)}${i}`), { maxLines: 10, maxChars: 50 });
  const out = d.text.split("\n");
  expect(out).toHaveLength(11);
  expect(out.slice(0, 10).every((l) => l.length <= 50)).toBe(true);
  expect(out[10]).toBe("… 191 more diff lines not shown");
});

test("hunks past the shown lines are counted, not left out of the count", () => {
  const after = lines(30, (i) => (i === 3 || i === 25 ? `L${i}` : `l${i}`));
  const d = unifiedDiff(lines(30), after, { maxLines: 3, maxChars: 200 });
  expect(d.text).toBe("@@ -1,6 +1,6 @@\n l1\n l2\n… 14 more diff lines not shown");
  expect([d.added, d.removed]).toEqual([2, 2]);
});

test("a large new file: every line counted, only the shown ones made", () => {
  const d = unifiedDiff("", lines(200_000), { maxLines: 3, maxChars: 200 });
  expect(d).toEqual({ added: 200_000, removed: 0, text: "@@ -0,0 +1,200000 @@\n+l1\n+l2\n… 199998 more diff lines not shown" });
});

test("lines counted and taken from the start as splitLines gives them", () => {
  for (const text of ["", "a", "a\n", "a\nb", "a\nb\n", "\n", "\n\n", "a\n\nb\n"]) {
    expect(lineCount(text)).toBe(splitLines(text).length);
    for (const n of [0, 1, 2, 5]) expect(firstLines(text, n)).toEqual(splitLines(text).slice(0, n));
  }
});
