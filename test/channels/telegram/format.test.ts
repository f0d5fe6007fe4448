// Telegram's text rules: parts of at most 4096 characters cut at line boundaries (a code block cut in two is
// closed and reopened), and markdown as the HTML subset Telegram parses, everything else escaped.
import { expect, test } from "bun:test";
import { escapeHtml, splitText, toHtml } from "../../../src/channels/telegram/format";
import { htmlProblem, visibleText } from "../../fake/telegram-server";

test("a long text is cut at line boundaries; a line longer than a part is cut, never between surrogate halves", () => {
  const lines = Array.from({ length: 100 }, (_, i) => `line ${i} ${"x".repeat(90)}`);
  const parts = splitText(lines.join("\n"));
  expect(parts.length).toBe(3);
  expect(parts.every((p) => p.length <= 4000)).toBe(true);
  expect(parts.join("\n")).toBe(lines.join("\n"));
  const emoji = "😀".repeat(3000); // 6000 UTF-16 units
  const cut = splitText(emoji);
  expect(cut.join("")).toBe(emoji);
  expect(cut.every((p) => !/^[\udc00-\udfff]|[\ud800-\udbff]$/.test(p))).toBe(true);
  expect(splitText("")).toEqual([]);
});

test("a code block cut by a split is closed at the end of one part and reopened in the next", () => {
  const code = Array.from({ length: 80 }, (_, i) => `const v${i} = ${"1".repeat(60)};`);
  const parts = splitText(`intro\n\`\`\`ts\n${code.join("\n")}\n\`\`\`\nafter`);
  expect(parts.length).toBe(2);
  expect(parts[0]!.endsWith("\n```")).toBe(true);
  expect(parts[1]!.startsWith("```ts\n")).toBe(true);
  for (const p of parts) expect(htmlProblem(toHtml(p))).toBeUndefined();
  expect(toHtml(parts[1]!)).toStartWith('<pre><code class="language-ts">const v');
});

test("markdown becomes Telegram HTML; every other <, > and & is escaped", () => {
  expect(escapeHtml("a<b>&c")).toBe("a&lt;b&gt;&amp;c");
  const html = toHtml("# Title\n**bold** and *it* and `x<y` and ~~gone~~ [link](https://e.test/?a=1&b=\"2\")\nsnake_case_name stays\n<script>alert(1)</script>");
  expect(html).toBe(
    '<b>Title</b>\n<b>bold</b> and <i>it</i> and <code>x&lt;y</code> and <s>gone</s> <a href="https://e.test/?a=1&amp;b=&quot;2&quot;">link</a>\nsnake_case_name stays\n&lt;script&gt;alert(1)&lt;/script&gt;',
  );
  expect(htmlProblem(html)).toBeUndefined();
  expect(visibleText(html)).toContain("<script>alert(1)</script>");
  // Unbalanced markdown stays as it was, and still parses.
  for (const odd of ["**not closed", "`tick", "a * b * c", "```\nunclosed fence", "[x](javascript:alert(1))"]) expect(htmlProblem(toHtml(odd))).toBeUndefined();
  expect(toHtml("[x](javascript:alert(1))")).toBe("[x](javascript:alert(1))");
});
