import { expect, test } from "bun:test";
import { PassThrough, Writable } from "node:stream";
import { jsonLineWriter, readLines, sinkLineWriter, type LineEvent } from "../../src/protocol/jsonl";

async function collect(chunks: (string | Uint8Array)[], max: number): Promise<LineEvent[]> {
  async function* gen() {
    for (const c of chunks) yield typeof c === "string" ? new TextEncoder().encode(c) : c;
  }
  const out: LineEvent[] = [];
  for await (const ev of readLines(gen(), max)) out.push(ev);
  return out;
}

test("splits on LF across chunk boundaries, including multi-byte characters", async () => {
  const bytes = new TextEncoder().encode('{"a":"é"}\n{"b":2}\n');
  const out = await collect([bytes.subarray(0, 7), bytes.subarray(7, 12), bytes.subarray(12)], 100);
  expect(out).toEqual([
    { kind: "line", text: '{"a":"é"}' },
    { kind: "line", text: '{"b":2}' },
  ]);
});

test("a line over the bound is reported, skipped, and the next line still arrives", async () => {
  const out = await collect(["x".repeat(50), "y".repeat(60), "\nok\n"], 100);
  expect(out).toEqual([{ kind: "oversize", bytes: 110, head: "x".repeat(50) + "y".repeat(60), tail: "x".repeat(50) + "y".repeat(60) }, { kind: "line", text: "ok" }]);
});

test("lines nesting too deep or holding too many values are refused before decoding; strings do not count", async () => {
  const shape = { maxDepth: 3, maxValues: 6 };
  async function collectShaped(chunks: string[]): Promise<LineEvent[]> {
    async function* gen() {
      for (const c of chunks) yield new TextEncoder().encode(c);
    }
    const out: LineEvent[] = [];
    for await (const ev of readLines(gen(), 1000, shape)) out.push(ev);
    return out;
  }
  const quotedBrackets = JSON.stringify({ s: '[[[[{{{{,,,,,,,,\\"[[[[' });
  const out = await collectShaped([
    "[[[", "]]]\n", // 3 levels across chunks: fine
    "[[[[]]]]\n",
    "[1,2,3,4,", "5,6,7]\n",
    `${quotedBrackets}\n`,
    '{"a":"\\\\"}\n', // an escaped backslash ends the string: the brace after it counts
    '"x\\"[[[["\n', // an escaped quote keeps the string open
    "[[[[",
    "]]]]\n{}\n",
  ]);
  expect(out).toEqual([
    { kind: "line", text: "[[[]]]" },
    expect.objectContaining({ kind: "rejected", bytes: 8, reason: "nested more than 3 levels deep" }),
    expect.objectContaining({ kind: "rejected", bytes: 15, reason: "more than 6 values" }),
    { kind: "line", text: quotedBrackets },
    { kind: "line", text: '{"a":"\\\\"}' },
    { kind: "line", text: '"x\\"[[[["' },
    expect.objectContaining({ kind: "rejected", bytes: 8, reason: "nested more than 3 levels deep" }),
    { kind: "line", text: "{}" },
  ]);
});

test("a final line without LF is delivered", async () => {
  expect(await collect(["a\nb"], 10)).toEqual([{ kind: "line", text: "a" }, { kind: "line", text: "b" }]);
});

test("the writer waits for drain instead of buffering without bound", async () => {
  let written = 0;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const sink = new Writable({
    highWaterMark: 1024,
    write(chunk, _enc, cb) {
      written += chunk.length;
      void gate.then(() => cb());
    },
  });
  const writer = jsonLineWriter(sink);
  const big = "z".repeat(4096);
  const sends = [writer.send({ big }), writer.send({ big }), writer.send({ big })];
  await Bun.sleep(20);
  // Only the first line reached the sink: the rest wait for 'drain'.
  expect(written).toBeLessThan(2 * 4096);
  release();
  await Promise.all(sends);
  expect(written).toBeGreaterThan(3 * 4096);
});

test("a closed reader does not crash the writer", async () => {
  const sink = new PassThrough();
  const writer = jsonLineWriter(sink);
  sink.destroy();
  await writer.send({ after: "close" });
  expect(sink.destroyed).toBe(true);
});

test("the FileSink writer waits for each flush, in order, and survives a reader that went away", async () => {
  const lines: string[] = [];
  let release!: () => void;
  let gate = new Promise<void>((r) => (release = r));
  const sink = {
    write: (s: string) => (lines.push(s), s.length),
    flush: () => gate.then(() => 0),
  };
  const writer = sinkLineWriter(sink);
  const sends = [writer.send({ n: 1 }), writer.send({ n: 2 }), writer.send({ n: 3 })];
  await Bun.sleep(20);
  expect(lines).toEqual(['{"n":1}\n']); // the next line waits for the first flush
  release();
  await Promise.all(sends);
  expect(lines).toEqual(['{"n":1}\n', '{"n":2}\n', '{"n":3}\n']);

  gate = Promise.reject(new Error("EPIPE"));
  gate.catch(() => {});
  await writer.send({ n: 4 });
  await writer.send({ n: 5 });
  expect(lines.length).toBe(4); // broken after the failed flush: later lines are dropped, nothing throws
});
