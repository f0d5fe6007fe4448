import { describe, expect, test } from "bun:test";
import { createMarkdownRenderer } from "../../src/tui/markdown";
import { createStyle as createTheme } from "../../src/terminal/style";
import { truncate, wrapLine } from "../../src/tui/text";

describe("markdown lines", () => {
  test("code blocks carry a language label and keep their text", () => {
    const md = createMarkdownRenderer(createTheme(false), () => 40);
    const out = ["intro", "```ts", "const x = *1*;", "```", "after"].flatMap((l) => md.line(l));
    expect(out).toEqual(["intro", "  ┌─ ts", "  │ const x = *1*;", "  └─", "after"]);
  });

  test("headings, lists, quotes and inline spans; colour only when the theme has it", () => {
    const plain = createMarkdownRenderer(createTheme(false), () => 40);
    expect(plain.line("## Title")).toEqual(["Title"]);
    expect(plain.line("- item with `code`")).toEqual(["• item with code"]);
    expect(plain.line("2. see [docs](https://d.example)")).toEqual(["2. see docs (https://d.example)"]);
    expect(plain.line("> quoted")).toEqual(["│ quoted"]);
    const color = createMarkdownRenderer(createTheme(true), () => 40);
    expect(color.line("**bold**")[0]).toBe("\x1b[1mbold\x1b[22m");
  });

  test("a list item wraps with a hanging indent", () => {
    const md = createMarkdownRenderer(createTheme(false), () => 16);
    expect(md.line("- one two three four five")).toEqual(["• one two three", "  four five"]);
  });

  test("wrapping reopens styles on the next line and truncation closes them", () => {
    const lines = wrapLine("\x1b[1mbold words here\x1b[22m", 6);
    expect(lines[0]).toBe("\x1b[1mbold\x1b[0m");
    expect(lines[1]!.startsWith("\x1b[1m")).toBe(true);
    expect(truncate("\x1b[2mabcdefgh\x1b[22m", 5)).toBe("\x1b[2mabcd…\x1b[0m");
  });
});

describe("tables", () => {
  const plain = createTheme(false);
  const rowsOf = (lines: string[]) => {
    const md = createMarkdownRenderer(plain, () => 40);
    const out = lines.flatMap((l) => md.line(l));
    return [...out, ...md.flush()];
  };

  test("columns are aligned once the table ends, the header ruled off", () => {
    const out = rowsOf(["| name | size |", "|---|--:|", "| a.ts | 12 |", "| longer-name.ts | 3 |", "after"]);
    expect(out).toEqual(["name           │ size", "───────────────┼─────", "a.ts           │ 12", "longer-name.ts │ 3", "after"]);
  });

  test("a table wider than the terminal gives way in its widest columns and cuts cells, every line within 40 columns", () => {
    const out = rowsOf([
      "| file | what changed in it and why it matters |",
      "| --- | --- |",
      "| src/tui/markdown.ts | tables render aligned instead of as raw pipes |",
    ]);
    for (const l of out) expect(Bun.stringWidth(l)).toBeLessThanOrEqual(40);
    expect(out[0]).toStartWith("file");
    expect(out[2]).toContain("…");
    expect(out[2]!.indexOf("│")).toBe(out[0]!.indexOf("│")); // still aligned
  });

  test("rows held back are shown live, and nothing is lost when the stream ends inside the table", () => {
    const md = createMarkdownRenderer(plain, () => 40);
    expect(md.line("| a | b |")).toEqual([]);
    expect(md.pending()).toEqual(["a │ b"]);
    expect(md.flush()).toEqual(["a │ b"]);
    expect(md.flush()).toEqual([]);
  });
});
