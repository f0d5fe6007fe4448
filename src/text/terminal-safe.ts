// The one sanitiser for text SCV writes to a terminal but did not write itself: model output, tool summaries
// and output, stored text, file and folder names, agent replies. A terminal interprets C0 and C1 controls and
// ESC sequences (CSI moves the cursor and erases lines, OSC sets the title or writes the clipboard, DCS…), and
// bidi overrides reorder what is shown: any of them lets text pose as something else (an approval card that
// shows `$ ls -la` while `rm -rf` runs). Newlines and tabs stay; every other control is made visible as \xNN
// (bidi controls as \u202e), or, for the TUI's chat text, an escape sequence is dropped whole.

/** ESC sequences: CSI, OSC/DCS/SOS/PM/APC strings to their terminator, any other ESC and the character after it; 8-bit CSI, OSC, DCS too. */
const SEQUENCE =
  /\x1b\[[0-?]*[ -/]*[@-~]|\x1b[\]PX^_][\s\S]*?(?:\x07|\x1b\\|\x9c|$)|\x1b[\s\S]?|\x9b[0-?]*[ -/]*[@-~]|[\x90\x98\x9d\x9e\x9f][\s\S]*?(?:\x07|\x1b\\|\x9c|$)/g;
/** C0 but newline and tab, DEL, C1; and the bidi embeddings, overrides, isolates and marks. */
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export interface TerminalSafeOptions {
  /** `show` (default): every control visible, so the text reads exactly as it is; `drop`: escape sequences removed whole. */
  escapes?: "show" | "drop";
}

function visible(c: string): string {
  const code = c.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/** `text` with no control a terminal would act on: newlines and tabs kept, a CR before a newline dropped. */
export function terminalSafe(text: string, opts: TerminalSafeOptions = {}): string {
  let out = text.replace(/\r+\n/g, "\n");
  if (opts.escapes === "drop") out = out.replace(SEQUENCE, "");
  return out.replace(CONTROL, visible);
}

/** True when `text` holds something terminalSafe would change (a name worth flagging, say). */
export function hasControls(text: string): boolean {
  CONTROL.lastIndex = 0;
  const hit = CONTROL.test(text);
  CONTROL.lastIndex = 0;
  return hit;
}
