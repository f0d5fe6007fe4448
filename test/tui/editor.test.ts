import { describe, expect, test } from "bun:test";
import { PromptEditor } from "../../src/tui/editor";
import { createKeyDecoder, type Key } from "../../src/tui/keys";

function type(editor: PromptEditor, input: string) {
  const decode = createKeyDecoder();
  const actions = decode(input).map((k) => editor.handle(k));
  return actions.filter((a) => a.kind === "submit").map((a) => (a as { text: string }).text);
}

describe("key decoding", () => {
  test("text, controls, arrows, Shift+Enter and a paste split across reads", () => {
    const decode = createKeyDecoder();
    expect(decode("ab\r")).toEqual([{ kind: "text", text: "ab" }, { kind: "enter" }]);
    expect(decode("\x1b[A\x1b[13;2u\x1b\r\x03\x04\x0f\x1b")).toEqual([
      { kind: "up" },
      { kind: "newline" },
      { kind: "newline" },
      { kind: "ctrlC" },
      { kind: "ctrlD" },
      { kind: "ctrlO" },
      { kind: "escape" },
    ] as Key[]);
    expect(decode("\x1b[200~line1\r\nli")).toEqual([]);
    expect(decode("ne2\x1b[201~x")).toEqual([{ kind: "paste", text: "line1\nline2" }, { kind: "text", text: "x" }]);
    expect(decode("\x1b[99;9~")).toEqual([]); // unknown sequences are ignored, never typed
  });
});

describe("PromptEditor", () => {
  test("Enter submits and clears; an empty prompt is not submitted", () => {
    const e = new PromptEditor();
    expect(type(e, "\r")).toEqual([]);
    expect(type(e, "hello\r")).toEqual(["hello"]);
    expect(e.isEmpty).toBe(true);
  });

  test("Shift+Enter and a trailing backslash make new lines", () => {
    const e = new PromptEditor();
    expect(type(e, "one\x1b[13;2utwo\\\rthree\r")).toEqual(["one\ntwo\nthree"]);
  });

  test("editing keys: left, backspace, delete, word and line kills", () => {
    const e = new PromptEditor();
    type(e, "hello world\x1b[D\x1b[D\x7f");
    expect(e.text).toBe("hello wold");
    type(e, "\x17");
    expect(e.text).toBe("hello ld");
    type(e, "\x01\x1b[3~");
    expect(e.text).toBe("ello ld");
    type(e, "\x0b");
    expect(e.text).toBe("");
  });

  test("Up and Down walk earlier prompts and keep the draft", () => {
    const e = new PromptEditor();
    type(e, "first\rsecond\rdraft");
    type(e, "\x1b[A");
    expect(e.text).toBe("second");
    type(e, "\x1b[A");
    expect(e.text).toBe("first");
    type(e, "\x1b[B\x1b[B");
    expect(e.text).toBe("draft");
  });

  test("a large paste is collapsed to a marker and expanded on submit", () => {
    const e = new PromptEditor();
    const big = Array.from({ length: 20 }, (_, i) => `log line ${i}`).join("\n");
    type(e, `look: \x1b[200~${big}\x1b[201~`);
    expect(e.text).toBe("look: [pasted 20 lines #1]");
    expect(type(e, "\r")).toEqual([`look: ${big}`]);
  });

  test("render wraps by width and places the cursor, wide characters counted as two", () => {
    const e = new PromptEditor();
    type(e, "abcdefgh");
    const r = e.render(6, "› ");
    expect(r.lines).toEqual(["› abcd", "  efgh", "  "]);
    expect([r.cursorRow, r.cursorCol]).toEqual([2, 2]);
    const cjk = new PromptEditor();
    type(cjk, "你好");
    const c = cjk.render(20, "› ");
    expect(c.cursorCol).toBe(6);
  });
});
