import { describe, expect, test } from "bun:test";
import { countNewlines, StreamCapture } from "../../src/process/capture";

/** Feeds `data` in chunks of pseudo-random sizes (deterministic), like a pipe would deliver it. */
function feed(limit: number, data: Uint8Array, seed = 7) {
  const cap = new StreamCapture(limit);
  let x = seed;
  for (let at = 0; at < data.length; ) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    const n = 1 + (x % 97);
    cap.push(data.subarray(at, at + n));
    at += n;
  }
  return cap.result();
}

const enc = (s: string) => new TextEncoder().encode(s);

describe("StreamCapture", () => {
  test("output within the limit is kept whole, with byte and line counts", () => {
    const r = feed(64, enc("one\ntwo\nthree"));
    expect(r).toMatchObject({ text: "one\ntwo\nthree", totalBytes: 13, totalLines: 3, truncated: false, headBytes: 13, tailBytes: 0 });
    expect(feed(64, enc("a\nb\n")).totalLines).toBe(2);
    expect(feed(64, new Uint8Array(0))).toMatchObject({ text: "", totalBytes: 0, totalLines: 0, truncated: false });
  });

  test("exactly the limit is not truncated; one byte more is", () => {
    const data = enc("x".repeat(40));
    expect(feed(40, data).truncated).toBe(false);
    const over = feed(40, enc("x".repeat(41)));
    expect(over.truncated).toBe(true);
    expect(over.headBytes! + over.tailBytes! + over.omittedBytes!).toBe(41);
  });

  test("long output keeps the exact first and last bytes whatever the chunking", () => {
    const data = new Uint8Array(100_000);
    for (let i = 0; i < data.length; i++) data[i] = 97 + ((i * 7) % 26);
    for (const seed of [1, 2, 3]) {
      const r = feed(1000, data, seed);
      const expected = new TextDecoder().decode(data.subarray(0, 500)) + "\n[... 99000 bytes omitted ...]\n" + new TextDecoder().decode(data.subarray(99_500));
      expect(r.text).toBe(expected);
      expect(r).toMatchObject({ totalBytes: 100_000, truncated: true, headBytes: 500, tailBytes: 500, omittedBytes: 99_000, totalLines: 1 });
    }
  });

  test("a single chunk larger than the whole capture still keeps head and tail", () => {
    const data = enc("H".repeat(10) + "m".repeat(1000) + "T".repeat(10));
    const cap = new StreamCapture(20);
    cap.push(data);
    expect(cap.result().text).toBe("HHHHHHHHHH\n[... 1000 bytes omitted ...]\nTTTTTTTTTT");
  });

  test("cuts never split a UTF-8 character", () => {
    const data = enc("é".repeat(50)); // 2 bytes each
    const r = feed(21, data); // head 10 bytes, tail 11 bytes: the tail starts mid-character
    expect(r.text).not.toContain("\uFFFD");
    expect(r.text.startsWith("ééééé\n")).toBe(true);
    expect(r.text.endsWith("\nééééé")).toBe(true);
    expect(r.headBytes! + r.tailBytes! + r.omittedBytes!).toBe(100);
  });

  test("newline counting agrees for dense, sparse and mixed text", () => {
    const naive = (b: Uint8Array) => b.reduce((n, c) => n + (c === 10 ? 1 : 0), 0);
    const samples = [
      enc("y\n".repeat(5000)),
      enc(("x".repeat(300) + "\n").repeat(50)),
      enc("a".repeat(10_000) + "\n".repeat(100) + "b".repeat(100)),
      new Uint8Array(70_000),
    ];
    for (const s of samples) expect(countNewlines(s)).toBe(naive(s));
  });
});
