// What a session file keeps of a finished tool call beyond its one-line label, so a replay (an editor's
// session/load, a terminal's --resume) can show what it did: the tool's kind, the file it changed and the
// change as a bounded unified diff, or else the first lines of its output. Credential-looking values are masked.
import { redactSecrets } from "../text/redact";
import { ellipsize } from "../text/cut";

/** A replay shows the output "in short": at most these lines and characters. */
const OUTPUT_LINES = 12;
const OUTPUT_CHARS = 1200;
/** A diff larger than this is left to the label and display (`+300 -12 lines`). */
const DIFF_CHARS = 16 * 1024;

export interface CallDetail {
  kind?: string;
  path?: string;
  diff?: string;
  output?: string;
}

export function callDetail(kind: string | undefined, result: { output: string; preview?: string; event?: Record<string, unknown> }): CallDetail {
  const mask = (text: string) => text.split("\n").map(redactSecrets).join("\n");
  const event = result.event ?? {};
  const out: CallDetail = kind ? { kind } : {};
  if (typeof event.path === "string") out.path = event.path;
  if (typeof event.diff === "string" && event.diff && event.diff.length <= DIFF_CHARS) return { ...out, diff: mask(event.diff) };
  const text = result.preview ?? result.output;
  const lines = text.split("\n");
  let short = lines.slice(0, OUTPUT_LINES).join("\n");
  if (lines.length > OUTPUT_LINES) short += `\n… ${lines.length - OUTPUT_LINES} more lines`;
  if (short) out.output = mask(ellipsize(short, OUTPUT_CHARS));
  return out;
}
