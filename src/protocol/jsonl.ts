// Newline-delimited framing over byte streams, with a line bound and write backpressure.
import type { Writable } from "node:stream";

export type LineEvent = { kind: "line"; text: string } | { kind: "oversize"; bytes: number };

/** Splits a byte stream on LF. A line longer than maxBytes is skipped and reported, never buffered whole. */
export async function* readLines(stream: AsyncIterable<Uint8Array>, maxBytes: number): AsyncGenerator<LineEvent> {
  let parts: Uint8Array[] = [];
  let size = 0;
  let oversize = false;
  const decoder = new TextDecoder();
  for await (const chunk of stream) {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(10, start);
      const end = nl === -1 ? chunk.length : nl;
      const piece = chunk.subarray(start, end);
      if (!oversize) {
        if (size + piece.length > maxBytes) {
          oversize = true;
          parts = [];
        } else if (piece.length) parts.push(piece);
      }
      size += piece.length;
      if (nl === -1) break;
      if (oversize) yield { kind: "oversize", bytes: size };
      else yield { kind: "line", text: decoder.decode(parts.length === 1 ? parts[0] : Buffer.concat(parts)) };
      parts = [];
      size = 0;
      oversize = false;
      start = nl + 1;
    }
  }
  if (oversize) yield { kind: "oversize", bytes: size };
  else if (size > 0) yield { kind: "line", text: decoder.decode(Buffer.concat(parts)) };
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
