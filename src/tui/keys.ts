// Raw terminal input to key events. Bracketed paste arrives whole as one `paste` event, so pasted newlines
// never submit a prompt.
export type Key =
  | { kind: "text"; text: string }
  | { kind: "paste"; text: string }
  | {
      kind:
        | "enter"
        | "newline"
        | "backspace"
        | "delete"
        | "left"
        | "right"
        | "up"
        | "down"
        | "home"
        | "end"
        | "wordLeft"
        | "wordRight"
        | "tab"
        | "shiftTab"
        | "escape"
        | "ctrlC"
        | "ctrlD"
        | "ctrlO"
        | "ctrlL"
        | "ctrlR"
        | "killLineStart"
        | "killLineEnd"
        | "killWord";
    };

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";

const SEQUENCES: Record<string, Key["kind"]> = {
  "\x1b[A": "up",
  "\x1bOA": "up",
  "\x1b[B": "down",
  "\x1bOB": "down",
  "\x1b[C": "right",
  "\x1bOC": "right",
  "\x1b[D": "left",
  "\x1bOD": "left",
  "\x1b[H": "home",
  "\x1bOH": "home",
  "\x1b[1~": "home",
  "\x1b[7~": "home",
  "\x1b[F": "end",
  "\x1bOF": "end",
  "\x1b[4~": "end",
  "\x1b[8~": "end",
  "\x1b[3~": "delete",
  "\x1b[Z": "shiftTab",
  "\x1b[1;5D": "wordLeft",
  "\x1b[1;5C": "wordRight",
  "\x1b[1;3D": "wordLeft",
  "\x1b[1;3C": "wordRight",
  "\x1bb": "wordLeft",
  "\x1bf": "wordRight",
  // Shift+Enter as kitty/CSI-u and xterm modifyOtherKeys report it, and Alt+Enter, which every terminal sends.
  "\x1b[13;2u": "newline",
  "\x1b[27;2;13~": "newline",
  "\x1b\r": "newline",
  "\x1b\n": "newline",
  "\x1b\x7f": "killWord",
};

const CONTROL: Record<string, Key["kind"]> = {
  "\r": "enter",
  "\n": "newline", // Ctrl-J
  "\x7f": "backspace",
  "\b": "backspace",
  "\t": "tab",
  "\x03": "ctrlC",
  "\x04": "ctrlD",
  "\x0f": "ctrlO",
  "\x0c": "ctrlL",
  "\x12": "ctrlR",
  "\x01": "home",
  "\x05": "end",
  "\x02": "left",
  "\x06": "right",
  "\x15": "killLineStart",
  "\x0b": "killLineEnd",
  "\x17": "killWord",
};

/** A stateful decoder: a paste split across reads is held until its end marker arrives. */
export function createKeyDecoder() {
  let pasting: string | undefined;
  return function decode(chunk: string): Key[] {
    const keys: Key[] = [];
    let i = 0;
    let text = "";
    const flushText = () => {
      if (text) keys.push({ kind: "text", text });
      text = "";
    };
    while (i < chunk.length) {
      if (pasting !== undefined) {
        const end = chunk.indexOf(PASTE_END, i);
        if (end < 0) {
          pasting += chunk.slice(i);
          return keys;
        }
        pasting += chunk.slice(i, end);
        keys.push({ kind: "paste", text: pasting.replace(/\r\n?/g, "\n") });
        pasting = undefined;
        i = end + PASTE_END.length;
        continue;
      }
      if (chunk.startsWith(PASTE_START, i)) {
        flushText();
        pasting = "";
        i += PASTE_START.length;
        continue;
      }
      const ch = chunk[i]!;
      if (ch === "\x1b") {
        flushText();
        const seq = matchSequence(chunk, i);
        if (seq) {
          const kind = SEQUENCES[seq];
          if (kind) keys.push({ kind } as Key);
          i += seq.length;
        } else {
          keys.push({ kind: "escape" });
          i += 1;
        }
        continue;
      }
      const control = CONTROL[ch];
      if (control) {
        flushText();
        keys.push({ kind: control } as Key);
        i += 1;
        continue;
      }
      if (ch < " ") {
        i += 1; // other control characters are ignored, never inserted
        continue;
      }
      text += ch;
      i += 1;
    }
    flushText();
    return keys;
  };
}

/** The escape sequence starting at i: a known one, or any CSI/SS3 sequence (ignored), or undefined for a lone Esc. */
function matchSequence(s: string, i: number): string | undefined {
  for (const seq of Object.keys(SEQUENCES)) if (s.startsWith(seq, i)) return seq;
  const csi = /^\x1b(\[[0-9;:?]*[ -/]*[@-~]|O[@-~])/.exec(s.slice(i, i + 32));
  return csi?.[0];
}
