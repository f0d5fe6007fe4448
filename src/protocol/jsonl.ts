// Newline-delimited framing over byte streams, with a line bound and write backpressure.
import type { Writable } from "node:stream";

export type LineEvent =
  | { kind: "line"; text: string }
  /** A line over the byte limit, skipped unbuffered; `head` and `tail` are its first and last bytes (4 KiB each). */
  | { kind: "oversize"; bytes: number; head: string; tail: string }
  /** A line whose JSON shape exceeds the limits; skipped unparsed, `reason` says which limit. */
  | { kind: "rejected"; bytes: number; reason: string; head: string; tail: string };

/** How much of a skipped line's start and end is kept, to find its request id (request-id.ts). */
export const KEPT_EDGE_BYTES = 4096;

/** Bounds on the JSON a line may hold, checked on the bytes as they arrive, before anything is parsed. */
export interface ShapeLimits {
  /** Most nested arrays/objects. */
  maxDepth: number;
  /** Most values in containers (commas, plus one per array or object). */
  maxValues: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Tracks nesting and value count of a JSON text across chunks without parsing it. Strings are skipped with
 * native indexOf, so a long prompt costs little; structure is walked byte by byte only until a limit is hit.
 */
export class ShapeScanner {
  private inString = false;
  private escaped = false;
  private depth = 0;
  private values = 0;
  constructor(private readonly limits: ShapeLimits) {}

  reset(): void {
    this.inString = this.escaped = false;
    this.depth = this.values = 0;
  }

  /** Scans bytes; returns why the line is refused, or undefined while it is within the limits. */
  scan(b: Uint8Array): string | undefined {
    let i = 0;
    const end = b.length;
    let nextBackslash = -2; // unknown
    while (i < end) {
      if (this.escaped) {
        this.escaped = false;
        i++;
        continue;
      }
      if (this.inString) {
        const q = b.indexOf(QUOTE, i);
        if (nextBackslash !== -1 && nextBackslash < i) nextBackslash = b.indexOf(BACKSLASH, i);
        if (nextBackslash !== -1 && (q === -1 || nextBackslash < q)) {
          this.escaped = true;
          i = nextBackslash + 1;
          continue;
        }
        if (q === -1) return undefined;
        this.inString = false;
        i = q + 1;
        continue;
      }
      const c = b[i++]!;
      if (c === QUOTE) this.inString = true;
      else if (c === 0x5b || c === 0x7b) {
        if (++this.depth > this.limits.maxDepth) return `nested more than ${this.limits.maxDepth} levels deep`;
        if (++this.values > this.limits.maxValues) return `more than ${this.limits.maxValues} values`;
      } else if (c === 0x5d || c === 0x7d) this.depth--;
      else if (c === 0x2c && ++this.values > this.limits.maxValues) return `more than ${this.limits.maxValues} values`;
    }
    return undefined;
  }
}

/**
 * Splits a byte stream on LF. A line longer than maxBytes is skipped and reported, never buffered whole; with
 * `shape`, so is a line whose JSON nests too deep or holds too many values (found before it is decoded).
 */
export async function* readLines(stream: AsyncIterable<Uint8Array>, maxBytes: number, shape?: ShapeLimits): AsyncGenerator<LineEvent> {
  let parts: Uint8Array[] = [];
  let size = 0;
  let oversize = false;
  let rejected: string | undefined;
  const scanner = shape ? new ShapeScanner(shape) : undefined;
  const decoder = new TextDecoder();
  // The line's first and last bytes, kept whatever happens to the rest: a skipped line is answered with its id.
  let head: Uint8Array = new Uint8Array(0);
  let tail: Uint8Array = new Uint8Array(0);
  const keep = (piece: Uint8Array) => {
    if (head.length < KEPT_EDGE_BYTES) head = concat(head, piece.subarray(0, KEPT_EDGE_BYTES - head.length));
    tail = piece.length >= KEPT_EDGE_BYTES ? piece.slice(piece.length - KEPT_EDGE_BYTES) : concat(tail, piece).slice(-KEPT_EDGE_BYTES);
  };
  const edges = () => ({ head: new TextDecoder().decode(head), tail: new TextDecoder().decode(tail) });
  const finishLine = (): LineEvent => {
    if (oversize) return { kind: "oversize", bytes: size, ...edges() };
    if (rejected) return { kind: "rejected", bytes: size, reason: rejected, ...edges() };
    // Decoded piece by piece (no second copy of the whole line's bytes), and the bytes dropped before the
    // consumer parses the text.
    let text = "";
    for (const p of parts) text += decoder.decode(p, { stream: true });
    parts = [];
    return { kind: "line", text: text + decoder.decode() };
  };
  for await (const chunk of stream) {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(10, start);
      const end = nl === -1 ? chunk.length : nl;
      const piece = chunk.subarray(start, end);
      keep(piece);
      if (!oversize && !rejected) {
        if (size + piece.length > maxBytes) {
          oversize = true;
          parts = [];
        } else if (piece.length) {
          rejected = scanner?.scan(piece);
          if (rejected) parts = [];
          else parts.push(piece);
        }
      }
      size += piece.length;
      if (nl === -1) break;
      yield finishLine();
      parts = [];
      head = new Uint8Array(0);
      tail = new Uint8Array(0);
      size = 0;
      oversize = false;
      rejected = undefined;
      scanner?.reset();
      start = nl + 1;
    }
  }
  if (oversize || rejected || size > 0) yield finishLine();
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (!a.length) return b.slice();
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Writes one JSON object per line, waiting for 'drain' when the sink is full so memory stays bounded. */
export function jsonLineWriter(sink: Writable): { send(message: unknown): Promise<void>; idle(): Promise<void> } {
  let chain = Promise.resolve();
  let broken = false;
  sink.on("error", () => {
    broken = true; // the reader went away; drop further output rather than crash
  });
  return {
    send(message) {
      const line = `${JSON.stringify(message)}\n`;
      chain = chain.then(
        () =>
          new Promise<void>((resolve) => {
            if (broken || sink.destroyed) return resolve();
            if (sink.write(line)) resolve();
            else {
              const done = () => {
                sink.off("drain", done);
                sink.off("close", done);
                resolve();
              };
              sink.once("drain", done);
              sink.once("close", done);
            }
          }),
      );
      return chain;
    },
    idle: () => chain,
  };
}

/** The part of a Bun FileSink (`Bun.stdout.writer()`) the line writer uses. */
export interface LineSink {
  write(chunk: string): number | Promise<number>;
  flush(): number | Promise<number>;
}

/**
 * The same over a Bun FileSink. Creating the Node stream behind process.stdout costs 15-30 ms, most of it on
 * the path to a nested SCV's first answer; a FileSink costs nothing to make. Each line is flushed before the
 * next is written, so a slow reader holds the senders back and memory stays bounded.
 */
export function sinkLineWriter(sink: LineSink): { send(message: unknown): Promise<void>; idle(): Promise<void> } {
  let chain = Promise.resolve();
  let broken = false;
  return {
    send(message) {
      const line = `${JSON.stringify(message)}\n`;
      chain = chain.then(async () => {
        if (broken) return;
        try {
          await sink.write(line);
          await sink.flush();
        } catch {
          broken = true; // the reader went away; drop further output rather than crash
        }
      });
      return chain;
    },
    idle: () => chain,
  };
}
