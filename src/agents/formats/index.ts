// The output format registry: a descriptor names its format, this picks the parser. Plain text (DeepSeek
// Harness) has no parser: stdout is the reply.
import type { OutputFormat } from "../descriptors";
import { claudeParser } from "./claude";
import { codexParser } from "./codex";
import { grokParser } from "./grok";
import { piParser } from "./pi";
import { type FormatParser, type ParserHooks, StreamReader } from "./stream";

export * from "./stream";

export function parserFor(format: OutputFormat, hooks: ParserHooks): FormatParser | undefined {
  switch (format) {
    case "claude-stream-json":
      return claudeParser(hooks);
    case "codex-json":
      return codexParser(hooks);
    case "pi-json":
      return piParser(hooks);
    case "grok-json":
      return grokParser(hooks);
    case "text":
      return undefined;
  }
}

export function readerFor(format: OutputFormat, hooks: ParserHooks, maxLineBytes?: number): StreamReader {
  return new StreamReader(parserFor(format, hooks), maxLineBytes);
}
