// Splitting streamed text into lines in bounded time and memory. An agent may stream megabytes without a newline:
// each chunk is scanned once (never the text before it), and the line still being written keeps at most
// `maxPartialChars`, so what a progress line shows is cut and the rest is dropped, never gathered.

export class PartialLines {
  private partial = "";

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly maxPartialChars = 4096,
  ) {}

  /** Hands every line this chunk completes to onLine, and keeps the start of the line it leaves open. */
  push(chunk: string): void {
    let at = 0;
    for (let nl = chunk.indexOf("\n"); nl !== -1; nl = chunk.indexOf("\n", at)) {
      this.keep(chunk.slice(at, nl));
      this.onLine(this.partial);
      this.partial = "";
      at = nl + 1;
    }
    if (at < chunk.length) this.keep(chunk.slice(at));
  }

  /** Hands the open line (if any) to onLine. */
  flush(): void {
    if (this.partial) this.onLine(this.partial);
    this.partial = "";
  }

  private keep(piece: string): void {
    const room = this.maxPartialChars - this.partial.length;
    if (room > 0) this.partial += piece.length > room ? piece.slice(0, room) : piece;
  }
}
