// A byte-level Server-Sent Events reader (the WHATWG framing): `event:`/`data:` fields, multi-line data,
// LF, CRLF or CR line ends, comments, and a bound on line length so a broken server cannot exhaust memory.

export interface SseEvent {
  /** The `event:` field, or "message" when absent. */
  event: string;
  /** The `data:` lines joined with "\n" (e.g. a JSON payload or `[DONE]`). */
  data: string;
}

export class SseLineTooLongError extends Error {
  constructor(readonly limit: number) {
    super(`a stream line exceeded ${limit} bytes`);
    this.name = "SseLineTooLongError";
  }
}

export const DEFAULT_MAX_LINE_BYTES = 32 * 1024 * 1024;

const LF = 0x0a;
const CR = 0x0d;

/** Splits a byte stream into lines without decoding first, so multi-byte characters split across chunks survive. */
async function* readLines(body: ReadableStream<Uint8Array>, maxLineBytes: number): AsyncGenerator<string, { partial: boolean }> {
  const reader = body.getReader();
  const decoder = new TextDecoder("utf-8");
  let pieces: Uint8Array[] = [];
  let pending = 0;
  let skipLf = false; // the previous chunk ended in CR; a leading LF belongs to it
  const take = (tail: Uint8Array): string => {
    let line: Uint8Array;
    if (pieces.length === 0) line = tail;
    else {
      line = new Uint8Array(pending + tail.length);
      let at = 0;
      for (const p of pieces) (line.set(p, at), (at += p.length));
      line.set(tail, at);
    }
    pieces = [];
    pending = 0;
    return decoder.decode(line);
  };
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      let start = 0;
      if (skipLf && value.length > 0 && value[0] === LF) start = 1;
      skipLf = false;
      for (let i = start; i < value.length; i++) {
        const b = value[i];
        if (b !== LF && b !== CR) continue;
        const tail = value.subarray(start, i);
        if (pending + tail.length > maxLineBytes) throw new SseLineTooLongError(maxLineBytes);
        yield take(tail);
        if (b === CR) {
          if (i + 1 < value.length) {
            if (value[i + 1] === LF) i++;
          } else skipLf = true;
        }
        start = i + 1;
      }
      if (start < value.length) {
        const rest = value.subarray(start);
        if (pending + rest.length > maxLineBytes) throw new SseLineTooLongError(maxLineBytes);
        pieces.push(rest.slice()); // copy: the stream may reuse its buffer
        pending += rest.length;
      }
    }
    return { partial: pending > 0 };
  } finally {
    // Stop the download on early exit (terminal event seen, consumer gone, error).
    reader.cancel().catch(() => {});
  }
}

/**
 * Yields one event per blank-line-terminated block. A block cut off by the end of the stream is still
 * delivered if its last line was complete (some servers omit the final blank line); a half line is dropped.
 */
export async function* readSse(
  body: ReadableStream<Uint8Array>,
  opts: { maxLineBytes?: number } = {},
): AsyncGenerator<SseEvent> {
  const lines = readLines(body, opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES);
  let event = "";
  let data: string[] = [];
  let hasData = false;
  const dispatch = (): SseEvent | undefined => {
    const out = hasData ? { event: event || "message", data: data.join("\n") } : undefined;
    event = "";
    data = [];
    hasData = false;
    return out;
  };
  let first = true;
  try {
    while (true) {
      const next = await lines.next();
      if (next.done) {
        if (!next.value.partial) {
          const last = dispatch();
          if (last) yield last;
        }
        return;
      }
      let line = next.value;
      if (first && line.charCodeAt(0) === 0xfeff) line = line.slice(1); // UTF-8 BOM
      first = false;
      if (line === "") {
        const ev = dispatch();
        if (ev) yield ev;
        continue;
      }
      if (line.startsWith(":")) continue; // comment / keep-alive
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "event") event = value;
      else if (field === "data") {
        data.push(value);
        hasData = true;
      }
      // `id` and `retry` are irrelevant to a one-shot POST stream.
    }
  } finally {
    await lines.return({ partial: false });
  }
}
