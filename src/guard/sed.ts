// A GNU sed script read the way GNU sed's compiler reads it (sed/compile.c): commands separated by `;` or
// newlines, addresses (`N`, `$`, `first~step`, `/re/`, `\cREc`, `addr,+N`), `!`, `{ }` blocks, and the
// delimited fields of `s` and `y`, where a backslash always takes the next character with it (so `\\` is one
// escaped backslash and the delimiter after it ends the field). Only commands that print, delete or move text
// are read-only; `e`, `w`, `W`, `r`, `R`, the `e` and `w` flags of `s`, and anything this reader cannot follow
// to its end make the guard ask.

class Unsafe extends Error {}

/** Why the script may do more than edit the text it prints, or nothing when it is read-only. */
export function sedScriptProblem(script: string): string | undefined {
  try {
    new SedReader(script).run();
    return undefined;
  } catch (e) {
    if (e instanceof Unsafe) return e.message;
    throw e;
  }
}

const SIMPLE = new Set(["=", "d", "D", "g", "G", "h", "H", "n", "N", "p", "P", "x", "z", "F"]);
const WITH_NUMBER = new Set(["q", "Q", "l", "L"]);

class SedReader {
  private i = 0;
  private depth = 0;

  constructor(private readonly s: string) {}

  private fail(why: string): never {
    throw new Unsafe(`sed script \`${this.s}\` ${why}`);
  }

  run() {
    const s = this.s;
    while (true) {
      while (this.i < s.length && /[\s;]/.test(s[this.i]!)) this.i++;
      if (this.i >= s.length) break;
      if (s[this.i] === "#") {
        this.toLineEnd();
        continue;
      }
      if (this.address()) {
        this.blanks();
        if (s[this.i] === ",") {
          this.i++;
          this.blanks();
          if (s[this.i] === "+" || s[this.i] === "~") {
            this.i++;
            if (!this.digits()) this.fail("has an address the guard cannot read");
          } else if (!this.address()) this.fail("has an address the guard cannot read");
        }
      }
      this.blanks();
      while (s[this.i] === "!") {
        this.i++;
        this.blanks();
      }
      const cmd = s[this.i++];
      if (cmd === undefined) this.fail("ends after an address");
      this.command(cmd);
    }
    if (this.depth !== 0) this.fail("has an unclosed `{`");
  }

  private command(cmd: string) {
    const s = this.s;
    if (cmd === "{") {
      this.depth++;
      return;
    }
    if (cmd === "}") {
      if (--this.depth < 0) this.fail("closes a `}` it never opened");
      return this.endOfCommand();
    }
    if (SIMPLE.has(cmd)) return this.endOfCommand();
    if (WITH_NUMBER.has(cmd)) {
      this.blanks();
      this.digits();
      return this.endOfCommand();
    }
    if (cmd === ":" || cmd === "b" || cmd === "t" || cmd === "T" || cmd === "v") {
      // read_label: blanks, then up to a blank, `;`, `}`, `#` or a line end; no end-of-command check follows.
      this.blanks();
      while (this.i < s.length && !/[\s;}#]/.test(s[this.i]!)) this.i++;
      return;
    }
    if (cmd === "a" || cmd === "i" || cmd === "c") {
      // The text runs to the first newline not escaped by a backslash (`a\` + newline starts it on the next line).
      this.blanks();
      if (s[this.i] === "\\") {
        this.i++;
        if (s[this.i] === "\n") this.i++;
      }
      while (this.i < s.length && s[this.i] !== "\n") this.i += s[this.i] === "\\" ? 2 : 1;
      this.i++;
      return;
    }
    if (cmd === "s") {
      const delim = this.delimiter("s");
      this.field(delim, true);
      this.field(delim, false);
      // mark_subst_opts: flags with blanks between them, up to `;`, a newline, `}` or `#`.
      while (true) {
        this.blanks();
        const f = s[this.i];
        if (f === undefined || f === ";" || f === "\n") {
          this.i++;
          return;
        }
        if (f === "}" || f === "#") return;
        if (f === "e") this.fail("uses the `e` flag, which runs the result as a shell command");
        if (f === "w") this.fail("uses the `w` flag, which writes a file");
        if (!/[gpiImM0-9]/.test(f)) this.fail(`has \`${f}\`, which is not a flag of \`s\``);
        this.i++;
      }
    }
    if (cmd === "y") {
      const delim = this.delimiter("y");
      this.field(delim, false);
      this.field(delim, false);
      return this.endOfCommand();
    }
    if (cmd === "e") this.fail("uses `e`, which runs a shell command");
    if (cmd === "w" || cmd === "W") this.fail(`uses \`${cmd}\`, which writes a file`);
    if (cmd === "r" || cmd === "R") this.fail(`uses \`${cmd}\`, which reads a file it names`);
    this.fail(`uses \`${cmd}\`, which the guard does not know as a read-only sed command`);
  }

  /** An address at `i`, consumed; false when there is none. */
  private address(): boolean {
    const s = this.s;
    const c = s[this.i];
    if (c !== undefined && /[0-9]/.test(c)) {
      this.digits();
      this.blanks();
      if (s[this.i] === "~") {
        this.i++;
        this.blanks();
        this.digits();
      }
      return true;
    }
    if (c === "$") {
      this.i++;
      return true;
    }
    if (c === "/" || c === "\\") {
      this.i++;
      const delim = c === "/" ? "/" : this.delimiter("address");
      this.field(delim, true);
      this.blanks();
      while (s[this.i] === "I" || s[this.i] === "M") {
        this.i++;
        this.blanks();
      }
      return true;
    }
    return false;
  }

  private delimiter(what: string): string {
    const d = this.s[this.i++];
    if (d === undefined || d === "\n" || d === "\\") this.fail(`has a \`${what}\` without a usable delimiter`);
    return d;
  }

  /**
   * One delimited field (compile.c's match_slash): a backslash takes the next character, a newline ends it
   * badly, and in a regular expression a bracket expression runs to its own `]` whatever it holds.
   */
  private field(delim: string, regex: boolean) {
    const s = this.s;
    while (this.i < s.length) {
      const c = s[this.i++]!;
      if (c === delim) return;
      if (c === "\n") break;
      if (c === "\\") {
        if (this.i >= s.length) break;
        this.i++;
      } else if (c === "[" && regex && !this.bracket()) break;
    }
    this.fail("has a field the guard cannot read to its end");
  }

  /** compile.c's snarf_char_class, after the `[`: true when its closing `]` was found. */
  private bracket(): boolean {
    const s = this.s;
    if (s[this.i] === "^") this.i++;
    if (s[this.i] === "]") this.i++;
    let state = 0;
    let delim = "";
    for (; this.i < s.length; this.i++) {
      const c = s[this.i]!;
      if (c === "\n") return false;
      if (c === "." || c === ":" || c === "=") {
        if (state === 1) {
          delim = c;
          state = 2;
          continue;
        }
        if (state === 2 && c === delim) {
          state = 3;
          continue;
        }
      } else if (c === "[") {
        if (state === 0) state = 1;
        continue;
      } else if (c === "]") {
        if (state === 0 || state === 1) {
          this.i++;
          return true;
        }
        if (state === 3) state = 0;
      }
      state &= ~1;
    }
    return false;
  }

  private endOfCommand() {
    this.blanks();
    const c = this.s[this.i];
    if (c === undefined || c === "}" || c === "#") return;
    if (c === ";" || c === "\n") {
      this.i++;
      return;
    }
    this.fail(`has \`${c}\` where a command should end`);
  }

  private blanks() {
    while (this.s[this.i] === " " || this.s[this.i] === "\t") this.i++;
  }

  private digits(): boolean {
    const start = this.i;
    while (this.i < this.s.length && /[0-9]/.test(this.s[this.i]!)) this.i++;
    return this.i > start;
  }

  private toLineEnd() {
    const end = this.s.indexOf("\n", this.i);
    this.i = end < 0 ? this.s.length : end + 1;
  }
}
