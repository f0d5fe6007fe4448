// What a `write` will change, for its approval: a bounded unified diff against the current file for replace, the
// first lines of the content for create. Credential-looking values are masked line by line.
import * as fs from "node:fs";
import { redactSecrets } from "../text/redact";
import { firstLines, lineCount, lineCounts, unifiedDiff } from "./line-diff";
import { ellipsize } from "../text/cut";
import { counted } from "../text/plural";

/** Shown in the approval (bounded, credential-looking values masked): the diff for replace, the first lines for create. */
const PREVIEW_LINES = 40;
const PREVIEW_CHARS = 200;
/** Files above this size are not read for a diff. */
const DIFF_MAX_BYTES = 1024 * 1024;

export function changePreview(args: { content: string; mode: "create" | "replace" }, real: string): string {
  const mask = (text: string) => text.split("\n").map(redactSecrets).join("\n");
  if (args.mode === "create") {
    const lines = lineCount(args.content);
    const shown = firstLines(args.content, PREVIEW_LINES).map((l) => `+${ellipsize(l, PREVIEW_CHARS)}`);
    const more = lines > shown.length ? `\n… ${lines - shown.length} more lines` : "";
    return `new file, ${counted(lines, "line")}:\n${mask(shown.join("\n"))}${more}`;
  }
  const before = currentText(real);
  if (before === undefined) return "the current file is binary or larger than 1 MiB; no diff shown";
  const diff = unifiedDiff(before, args.content, { maxLines: PREVIEW_LINES, maxChars: PREVIEW_CHARS });
  if (!diff.added && !diff.removed) return "no change: the new content equals the current file";
  return `${lineCounts(diff.added, diff.removed)}:\n${mask(diff.text)}`;
}

/** The file's text, or undefined when it is too large or binary to diff. */
export function currentText(real: string): string | undefined {
  let fd: number;
  try {
    // Never follows a link or blocks on a FIFO swapped in since the check.
    fd = fs.openSync(real, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.size > DIFF_MAX_BYTES) return undefined;
    const bytes = Buffer.alloc(st.size);
    const n = fs.readSync(fd, bytes, 0, st.size, 0);
    return bytes.subarray(0, n).includes(0) ? undefined : bytes.subarray(0, n).toString("utf8");
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}
