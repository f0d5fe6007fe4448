// The SSE reader on byte streams: framing rules, awkward chunk boundaries, and the line bound.
import { describe, expect, test } from "bun:test";
import { readSse, SseLineTooLongError, type SseEvent } from "../../src/provider/sse";

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull(c) {
      if (i < chunks.length) c.enqueue(chunks[i++]!);
      else c.close();
    },
  });
}
const bytes = (s: string) => new TextEncoder().encode(s);
async function read(chunks: Uint8Array[], maxLineBytes?: number): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const e of readSse(streamOf(chunks), { maxLineBytes })) out.push(e);
  return out;
}

const SAMPLE =
  ": keep-alive comment\n" +
  "event: response.output_text.delta\n" +
  'data: {"delta":"héllo 🌍"}\n' +
  "\n" +
  "data: line one\n" +
  "data:line two\n" +
  "id: 7\n" +
  "retry: 1000\n" +
  "\n" +
  "event: ping\n" +
  "\n" + // an event with no data is not dispatched
  "data: [DONE]\n" +
  "\n";
const EXPECTED: SseEvent[] = [
  { event: "response.output_text.delta", data: '{"delta":"héllo 🌍"}' },
  { event: "message", data: "line one\nline two" },
  { event: "message", data: "[DONE]" },
];

describe("readSse", () => {
  test("fields, comments, multi-line data, [DONE]", async () => {
    expect(await read([bytes(SAMPLE)])).toEqual(EXPECTED);
  });

  test("CRLF and lone CR line ends", async () => {
    expect(await read([bytes(SAMPLE.replaceAll("\n", "\r\n"))])).toEqual(EXPECTED);
    expect(await read([bytes(SAMPLE.replaceAll("\n", "\r"))])).toEqual(EXPECTED);
  });

  test("every possible split point, including inside multi-byte characters and between CR and LF", async () => {
    const all = bytes(SAMPLE.replaceAll("\n", "\r\n"));
    for (let cut = 1; cut < all.length; cut++) {
      expect(await read([all.slice(0, cut), all.slice(cut)])).toEqual(EXPECTED);
    }
    expect(await read(Array.from(all, (b) => Uint8Array.of(b)))).toEqual(EXPECTED);
  });

  test("a final event without its blank line is delivered; a half line is dropped", async () => {
    expect(await read([bytes("data: a\n\ndata: b\n")])).toEqual([
      { event: "message", data: "a" },
      { event: "message", data: "b" },
    ]);
    expect(await read([bytes('data: a\n\ndata: {"cut mid')])).toEqual([{ event: "message", data: "a" }]);
  });

  test("a leading BOM is ignored", async () => {
    expect(await read([Uint8Array.of(0xef, 0xbb, 0xbf), bytes("data: x\n\n")])).toEqual([{ event: "message", data: "x" }]);
  });

  test("lines longer than the bound fail, whether in one chunk or many", async () => {
    const long = `data: ${"x".repeat(200)}\n\n`;
    await expect(read([bytes(long)], 100)).rejects.toBeInstanceOf(SseLineTooLongError);
    await expect(read(Array.from({ length: 50 }, () => bytes("xxxxxxxx")), 100)).rejects.toBeInstanceOf(SseLineTooLongError);
    expect(await read([bytes(long)], 300)).toHaveLength(1);
  });

  test("stopping early cancels the underlying stream", async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes("data: 1\n\ndata: 2\n\n"));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const e of readSse(body)) if (e.data === "1") break;
    expect(cancelled).toBe(true);
  });
});
