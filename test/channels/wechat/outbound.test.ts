import { expect, test } from "bun:test";
import { partsOf, splitText, uploadTypeOf } from "../../../src/channels/wechat/outbound";
import { UploadMediaType } from "../../../src/channels/wechat/wire";

test("short text is one message; empty text none", () => {
  expect(splitText("hello")).toEqual(["hello"]);
  expect(splitText("")).toEqual([]);
});

test("long text splits between paragraphs, packing as many as fit", () => {
  const p = (c: string, n: number) => c.repeat(n);
  const text = [p("a", 40), p("b", 40), p("c", 40)].join("\n\n");
  expect(splitText(text, 90)).toEqual([`${p("a", 40)}\n\n${p("b", 40)}`, p("c", 40)]);
});

test("a paragraph too long splits between lines, a line too long between words, never over the limit", () => {
  const para = ["x".repeat(30), "y".repeat(30), "z".repeat(30)].join("\n");
  expect(splitText(para, 65)).toEqual([`${"x".repeat(30)}\n${"y".repeat(30)}`, "z".repeat(30)]);
  const words = Array.from({ length: 50 }, (_, i) => `word${i}`).join(" ");
  const chunks = splitText(words, 40);
  expect(chunks.every((c) => c.length <= 40)).toBe(true);
  expect(chunks.join(" ")).toBe(words);
  const blob = "q".repeat(95);
  expect(splitText(blob, 40)).toEqual(["q".repeat(40), "q".repeat(40), "q".repeat(15)]);
});

test("parts are the text chunks, then one per file, routed by name", () => {
  const parts = partsOf("hi", [{ path: "/x/a.png", name: "a.png" }, { path: "/x/b.pdf", name: "b.pdf" }]);
  expect(parts.map((p) => p.kind)).toEqual(["text", "file", "file"]);
  expect(uploadTypeOf("Photo.JPG")).toBe(UploadMediaType.IMAGE);
  expect(uploadTypeOf("clip.mp4")).toBe(UploadMediaType.VIDEO);
  expect(uploadTypeOf("notes.txt")).toBe(UploadMediaType.FILE);
  expect(uploadTypeOf("no-extension")).toBe(UploadMediaType.FILE);
});
