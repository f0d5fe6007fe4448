// The three changes the `memory` tool makes to a memory file's text, as pure functions: add a note, replace a
// quoted passage, remove one. A refusal is a MemoryEditError whose message tells the model what to do instead.
// Text that looks like a credential is refused before anything is written: memory rides along in every request.
import { secretIn } from "../text/scrub";

export type MemoryEdit =
  | { action: "add"; text: string }
  | { action: "replace"; old_text: string; text: string }
  | { action: "remove"; old_text: string };

export class MemoryEditError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MemoryEditError";
  }
}

/** A list item, heading, quote or numbered item already: added as written, not made a list item. */
const BLOCK_START = /^(?:[-*+>]\s|#{1,6}\s|\d+[.)]\s)/;


/** Refuses text that holds a secret (secretIn: a key shape, or a configured secret in any form). */
export function refuseSecrets(text: string, known: readonly string[] = []): void {
  const shape = secretIn(text, known);
  if (!shape) return;
  throw new MemoryEditError(
    `not saved: the text looks like it holds ${shape}, and memory never stores keys, tokens or passwords ` +
      `(it is sent with every request). Save where the secret is kept instead (for example the name of the environment variable), without its value.`,
  );
}

/** Where `needle` occurs exactly once in `text`; otherwise a refusal naming what went wrong. */
function findOnce(text: string, needle: string, title: string): number {
  if (!needle) throw new MemoryEditError("old_text is empty: quote the note to change exactly as it appears in memory");
  const at = text.indexOf(needle);
  if (at < 0) {
    throw new MemoryEditError(
      `old_text was not found in ${title}: quote a passage exactly as it appears there (your instructions show the file as the session started; notes added since are in this conversation)`,
    );
  }
  if (text.indexOf(needle, at + 1) >= 0) throw new MemoryEditError(`old_text occurs more than once in ${title}: quote more of the note so it names one place`);
  return at;
}

/** The file's text after the edit. `title` names the file in refusals (`USER.md`). */
export function applyMemoryEdit(current: string, edit: MemoryEdit, title: string): string {
  switch (edit.action) {
    case "add": {
      const note = edit.text.trim();
      if (!note) throw new MemoryEditError("text is empty: give the note to add");
      if (current.includes(note)) throw new MemoryEditError(`${title} already holds this note; nothing was added`);
      const entry = BLOCK_START.test(note) ? note : `- ${note}`;
      const body = current.trimEnd();
      return `${body ? `${body}\n` : ""}${entry}\n`;
    }
    case "replace": {
      const at = findOnce(current, edit.old_text, title);
      const text = edit.text.trim();
      if (!text) return removeAt(current, at, edit.old_text.length);
      return current.slice(0, at) + text + current.slice(at + edit.old_text.length);
    }
    case "remove":
      return removeAt(current, findOnce(current, edit.old_text, title), edit.old_text.length);
  }
}

/** Removes text[at, at+length); a line left holding only a list marker or blanks goes with it. */
function removeAt(text: string, at: number, length: number): string {
  const lineStart = text.lastIndexOf("\n", at - 1) + 1;
  const nl = text.indexOf("\n", at + length);
  const lineEnd = nl < 0 ? text.length : nl;
  const rest = text.slice(lineStart, at) + text.slice(at + length, lineEnd);
  const out = /^\s*(?:[-*+]|\d+[.)])?\s*$/.test(rest) ? text.slice(0, lineStart) + text.slice(nl < 0 ? lineEnd : lineEnd + 1) : text.slice(0, at) + text.slice(at + length);
  return out.trim() ? out : "";
}
