// Reading a CLI's stdout as it arrives: split into lines (skipping any over 4 MiB without buffering them),
// parse each JSON line, and hand it to the agent's format parser, which keeps only reply, usage and error.

export const MAX_LINE_BYTES = 4 * 1024 * 1024;

export interface TokenUsage {
  /** Every prompt token, cached ones included. */
  input_tokens: number;
  output_tokens: number;
  /** The prompt tokens read from the agent's prompt cache (part of input_tokens); absent when not reported. */
  cached_input_tokens?: number;
}

/** What a format parser keeps from a run. */
export interface FormatOutcome {
  reply?: string;
  /** As the CLI reported it (Codex reports a running total across resume; the caller diffs it). */
  usage?: TokenUsage;
  /** What went wrong as the CLI reported it, never the model's reply. */
  error?: string;
  /** An HTTP status the CLI reported in a structured field. */
  errorStatus?: number;
  /** The stream itself reported a failure (an exit code of 0 can still fail: pi). */
  failed: boolean;
  /** The model stopped with a refusal. */
  declined: boolean;
  /** The CLI's own session or thread ID, once it reported one. */
  sessionId?: string;
  /** A note for the calling model, such as a run that stopped early. */
  note?: string;
}

export interface ParsedOutput extends FormatOutcome {
  /** Any line parsed as JSON; a structured stream without one falls back to its text. */
  sawJson: boolean;
  skippedLines: number;
}

export interface ParserHooks {
  /** A raw status line (the caller redacts and throttles). */
  progress(line: string): void;
  /** The CLI reported its session; called once per distinct ID. */
  session(id: string): void;
}

export interface FormatParser {
  /**
   * stdout is one JSON document, not one event per line: Grok's `--output-format json` pretty-prints its
   * result object over many lines. The reader keeps stdout whole (up to the line limit) and parses it at the end.
   */
  readonly wholeDocument?: boolean;
  event(value: Record<string, unknown>): void;
  finish(): FormatOutcome;
}

/** Feeds stdout chunks to a format parser line by line. */
export class StreamReader {
  private parts: Uint8Array[] = [];
  private length = 0;
  private skipping = false;
  private sawJson = false;
  private skipped = 0;
  private readonly decoder = new TextDecoder();

  constructor(
    private readonly parser: FormatParser | undefined,
    private readonly maxLineBytes = MAX_LINE_BYTES,
  ) {}

  push(chunk: Uint8Array): void {
    if (this.parser?.wholeDocument) return this.keepWhole(chunk);
    let at = 0;
    while (at < chunk.length) {
      const nl = chunk.indexOf(10, at);
      const end = nl === -1 ? chunk.length : nl;
      if (!this.skipping) {
        if (this.length + (end - at) > this.maxLineBytes) {
          this.parts = [];
          this.length = 0;
          this.skipping = true;
          this.skipped++;
        } else if (end > at) {
          this.parts.push(chunk.slice(at, end));
          this.length += end - at;
        }
      }
      if (nl === -1) return;
      if (!this.skipping) this.emit();
      this.skipping = false;
      this.parts = [];
      this.length = 0;
      at = nl + 1;
    }
  }

  /** A whole-document stream: everything is one "line", dropped whole when it passes the limit. */
  private keepWhole(chunk: Uint8Array): void {
    if (this.skipping) return;
    if (this.length + chunk.length > this.maxLineBytes) {
      this.parts = [];
      this.length = 0;
      this.skipping = true;
      this.skipped++;
      return;
    }
    this.parts.push(chunk.slice());
    this.length += chunk.length;
  }

  /** Parses a final line without a newline and returns what the stream said. */
  end(): ParsedOutput {
    if (!this.skipping && this.length > 0) this.emit();
    this.parts = [];
    this.length = 0;
    const outcome = this.parser?.finish() ?? { failed: false, declined: false };
    return { ...outcome, sawJson: this.sawJson, skippedLines: this.skipped };
  }

  private emit(): void {
    if (!this.parser) return;
    const bytes = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
    const text = this.decoder.decode(bytes).trim();
    if (!text.startsWith("{")) return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return;
    }
    if (!value || typeof value !== "object" || Array.isArray(value)) return;
    this.sawJson = true;
    try {
      this.parser.event(value as Record<string, unknown>);
    } catch {
      // A parser never throws on odd input by design; if one does, the line is ignored like an unknown event.
    }
  }
}

/** First non-empty line of a text, for interim-text progress. */
export function firstLine(text: string): string {
  return text.split("\n").find((l) => l.trim() !== "")?.trim() ?? "";
}

/** A number or 0. */
export const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);
