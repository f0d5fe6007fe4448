// Newline-delimited JSON-RPC from a server's stdout within a fixed bound: a message longer than the bound is
// never buffered whole; the reader reports it once and stops, and the connection is closed with that reason.

export type LineEvent = { kind: "message"; value: unknown } | { kind: "invalid"; sample: string } | { kind: "oversized"; bytes: number };

export class JsonLineReader {
  private parts: Uint8Array[] = [];
  private length = 0;
  private stopped = false;
  private readonly decoder = new TextDecoder();

  constructor(
    private readonly maxBytes: number,
    private readonly emit: (event: LineEvent) => void,
  ) {}

  push(chunk: Uint8Array): void {
    let start = 0;
    while (!this.stopped) {
      const nl = chunk.indexOf(10, start);
      const end = nl < 0 ? chunk.length : nl;
      if (this.length + (end - start) > this.maxBytes) {
        this.stopped = true;
        this.parts = [];
        this.emit({ kind: "oversized", bytes: this.length + (end - start) });
        return;
      }
      if (end > start) {
        this.parts.push(chunk.slice(start, end));
        this.length += end - start;
      }
      if (nl < 0) return;
      this.line();
      start = nl + 1;
    }
  }

  private line(): void {
    const bytes = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
    this.parts = [];
    this.length = 0;
    const text = this.decoder.decode(bytes).trim();
    if (!text) return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.stopped = true;
      this.emit({ kind: "invalid", sample: text.slice(0, 120) });
      return;
    }
    this.emit({ kind: "message", value });
  }
}

/** Counts notifications in a sliding window; true once a server sends more than `max` within `windowMs`. */
export function floodGuard(max: number, windowMs: number): () => boolean {
  let windowStart = 0;
  let count = 0;
  return () => {
    const now = performance.now();
    if (now - windowStart > windowMs) {
      windowStart = now;
      count = 0;
    }
    return ++count > max;
  };
}
