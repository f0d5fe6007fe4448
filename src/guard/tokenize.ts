// A lexical reading of a bash command line: simple commands (words, inline assignments, redirections) joined by
// pipes and lists. No shell runs and nothing is expanded; every construct whose value only the shell could know
// (substitution, expansion, globbing) is marked on the word that holds it, so the guard can refuse to call the
// command literal. It reads the subset of bash a literal command needs and reports what it cannot read.

/** Why a word is not literal: the first construct found in it. */
export type ExpansionKind =
  | "command substitution"
  | "process substitution"
  | "parameter expansion"
  | "arithmetic expansion"
  | "tilde expansion"
  | "brace expansion"
  | "ANSI-C quoting"
  | "locale quoting";

export interface Word {
  /** The word as written. */
  raw: string;
  /** After quote removal; the raw text of any expansion is kept as written. */
  value: string;
  /** Written with quotes or backslashes somewhere. */
  quoted: boolean;
  expansion?: ExpansionKind;
  /** Holds an unquoted `*`, `?` or `[...]`: the shell would expand it to file names. */
  glob: boolean;
}

export interface Redirect {
  /** `>`, `>>`, `>|`, `<`, `<>`, `>&`, `<&`, `&>`, `&>>`, `<<`, `<<-`, `<<<` (a leading fd number is dropped). */
  op: string;
  target?: Word;
  /** A here-document's body, which the shell feeds to the command's stdin. */
  body?: string;
}

export interface SimpleCommand {
  /** `NAME=value` words before the program. */
  assignments: Word[];
  /** The program and its arguments. */
  words: Word[];
  redirects: Redirect[];
  /** The operator before this command (`|` for the second part of a pipeline), if any. */
  after?: string;
}

export interface ParsedCommand {
  commands: SimpleCommand[];
  /** Operators between commands, in order: `|`, `|&`, `&&`, `||`, `;`, `&`, newline as `;`, `(`, `)`. */
  operators: string[];
  /** Texts the shell would run as commands of their own: substitution bodies. */
  nested: string[];
  /** Constructs that keep the line from being a plain list (here-documents, comments carrying expansion syntax). */
  notes: string[];
}

export type TokenizeResult = { ok: true; parsed: ParsedCommand } | { ok: false; reason: string };

class Unreadable extends Error {}

const BLANK = new Set([" ", "\t"]);
const META = new Set([" ", "\t", "\n", "|", "&", ";", "<", ">", "(", ")"]);
const REDIRECT = /^(\d*)(<<<|<<-|<<|<>|<&|<|>>|>&|>\||>|&>>|&>)/;
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/;
/** Operators that need a command on each side. */
const JOINS = new Set(["|", "|&", "&&", "||"]);
const SPECIAL_PARAMETER = /[A-Za-z_0-9@*#?$!-]/;

export function tokenize(text: string): TokenizeResult {
  try {
    return { ok: true, parsed: new Scanner(text).run() };
  } catch (e) {
    if (e instanceof Unreadable) return { ok: false, reason: e.message };
    throw e;
  }
}

class Scanner {
  private i = 0;
  private readonly out: ParsedCommand = { commands: [], operators: [], nested: [], notes: [] };
  private current: SimpleCommand = { assignments: [], words: [], redirects: [] };
  private heredocs: { redirect: Redirect; delimiter: string; stripTabs: boolean; literal: boolean }[] = [];

  constructor(private readonly s: string) {}

  run(): ParsedCommand {
    const s = this.s;
    while (this.i < s.length) {
      const c = s[this.i]!;
      if (BLANK.has(c)) {
        this.i++;
        continue;
      }
      if (c === "\\" && s[this.i + 1] === "\n") {
        this.i += 2;
        continue;
      }
      if (c === "#") {
        this.comment();
        continue;
      }
      if (c === "\n") {
        this.i++;
        const cur = this.current;
        if (!cur.words.length && !cur.assignments.length && !cur.redirects.length && JOINS.has(this.out.operators.at(-1) ?? "")) {
          // `ls &&` + newline: bash reads on into the next line, which a person reading the card takes as done.
          this.note(`a line ending in \`${this.out.operators.at(-1)}\`, continued on the next line`);
          this.readHeredocBodies();
          continue;
        }
        this.endCommand(";");
        this.readHeredocBodies();
        continue;
      }
      const redirect = REDIRECT.exec(s.slice(this.i, this.i + 8));
      if (redirect && !(redirect[2] === "<" && s[this.i + redirect[0].length] === "(") && !(redirect[2] === ">" && s[this.i + redirect[0].length] === "(")) {
        this.redirect(redirect[0].length, redirect[2]!);
        continue;
      }
      const op = this.operator();
      if (op) {
        this.endCommand(op);
        continue;
      }
      const word = this.word();
      if (!this.current.words.length && !word.quoted && ASSIGNMENT.test(word.raw)) this.current.assignments.push(word);
      else this.current.words.push(word);
    }
    this.endCommand("");
    if (this.heredocs.length) this.readHeredocBodies();
    return this.out;
  }

  private operator(): string | undefined {
    const two = this.s.slice(this.i, this.i + 2);
    for (const op of ["&&", "||", "|&", ";;", ";&"]) {
      if (two === op) {
        this.i += 2;
        return op;
      }
    }
    const c = this.s[this.i]!;
    if (c === "|" || c === "&" || c === ";" || c === "(" || c === ")") {
      this.i++;
      return c;
    }
    return undefined;
  }

  private endCommand(op: string) {
    const c = this.current;
    const last = this.out.operators.at(-1);
    if (c.words.length || c.assignments.length || c.redirects.length) {
      if (last) c.after = last;
      this.out.commands.push(c);
    }
    else if (JOINS.has(op) && last !== ")") throw new Unreadable(`\`${op}\` has no command before it`);
    else if (op === "" && last && JOINS.has(last)) throw new Unreadable(`it ends with \`${last}\``);
    this.current = { assignments: [], words: [], redirects: [] };
    if (op) this.out.operators.push(op);
  }

  private comment() {
    const end = this.s.indexOf("\n", this.i);
    const text = this.s.slice(this.i, end < 0 ? this.s.length : end);
    if (/[$`\\]/.test(text)) this.note("a comment carrying expansion syntax");
    this.i += text.length;
  }

  private note(n: string) {
    if (!this.out.notes.includes(n)) this.out.notes.push(n);
  }

  private redirect(length: number, op: string) {
    this.i += length;
    while (BLANK.has(this.s[this.i] ?? "")) this.i++;
    const processSubstitution = (this.s[this.i] === "<" || this.s[this.i] === ">") && this.s[this.i + 1] === "(";
    if (this.i >= this.s.length || META.has(this.s[this.i]!) && !(op.endsWith("&") && this.s[this.i] === "-") && !processSubstitution) {
      throw new Unreadable(`\`${op}\` has no target`);
    }
    const target = this.word();
    const redirect: Redirect = { op, target };
    this.current.redirects.push(redirect);
    if (op === "<<" || op === "<<-") {
      this.heredocs.push({ redirect, delimiter: target.value, stripTabs: op === "<<-", literal: target.quoted });
      this.note("a here-document");
    } else if (op === "<<<") this.note("a here-string");
  }

  /** Here-document bodies follow the line that opened them; they run as commands only when fed to a shell. */
  private readHeredocBodies() {
    for (const h of this.heredocs.splice(0)) {
      const lines: string[] = [];
      while (this.i < this.s.length) {
        const end = this.s.indexOf("\n", this.i);
        const line = this.s.slice(this.i, end < 0 ? this.s.length : end);
        this.i = end < 0 ? this.s.length : end + 1;
        if ((h.stripTabs ? line.replace(/^\t+/, "") : line) === h.delimiter) break;
        lines.push(line);
      }
      const body = lines.join("\n");
      h.redirect.body = body;
      if (!h.literal && /[$`]/.test(body)) this.note("a here-document with expansions");
    }
  }

  /** One word, up to an unquoted blank or operator. */
  private word(): Word {
    const s = this.s;
    const start = this.i;
    let value = "";
    let quoted = false;
    let glob = false;
    let expansion: ExpansionKind | undefined;
    let unquoted = ""; // the word's unquoted characters, for brace and tilde checks
    const mark = (k: ExpansionKind) => (expansion ??= k);
    while (this.i < s.length) {
      const c = s[this.i]!;
      if (META.has(c)) {
        // `<(` and `>(` inside or at the start of a word: process substitution.
        if ((c === "<" || c === ">") && s[this.i + 1] === "(") {
          const body = this.balanced(this.i + 2, "(", ")");
          this.out.nested.push(body.text);
          mark("process substitution");
          value += s.slice(this.i, body.end);
          this.i = body.end;
          continue;
        }
        break;
      }
      if (c === "\\") {
        const next = s[this.i + 1];
        if (next === undefined) throw new Unreadable("it ends with a lone backslash");
        this.i += 2;
        if (next === "\n") continue;
        quoted = true;
        value += next;
        continue;
      }
      if (c === "'") {
        const end = s.indexOf("'", this.i + 1);
        if (end < 0) throw new Unreadable("a single quote is never closed");
        value += s.slice(this.i + 1, end);
        quoted = true;
        this.i = end + 1;
        continue;
      }
      if (c === '"') {
        value += this.doubleQuoted(mark);
        quoted = true;
        continue;
      }
      if (c === "$") {
        const next = s[this.i + 1];
        if (next === "'") {
          value += this.ansiC();
          quoted = true;
          mark("ANSI-C quoting");
          continue;
        }
        if (next === '"') {
          this.i++;
          value += this.doubleQuoted(mark);
          quoted = true;
          mark("locale quoting");
          continue;
        }
        const expanded = this.dollar();
        if (expanded) {
          mark(expanded.kind);
          value += expanded.text;
          unquoted += "$";
          continue;
        }
        value += "$";
        unquoted += "$";
        this.i++;
        continue;
      }
      if (c === "`") {
        value += this.backtickSubstitution(mark);
        continue;
      }
      if (c === "*" || c === "?") glob = true;
      if (c === "[" && s.indexOf("]", this.i + 1) > this.i && !/[\s|&;<>()]/.test(s.slice(this.i + 1, s.indexOf("]", this.i + 1)))) glob = true;
      if (c === "~" && (value === "" || /[=:]$/.test(value)) && unquoted.length === value.length) mark("tilde expansion");
      unquoted += c;
      value += c;
      this.i++;
    }
    if (/\{[^{}]*(,|\.\.)[^{}]*\}/.test(unquoted)) mark("brace expansion");
    return { raw: s.slice(start, this.i), value, quoted, glob, ...(expansion ? { expansion } : {}) };
  }

  /** A `` `...` `` substitution at `i`, marked as one: its raw text, with `i` left after its close. */
  private backtickSubstitution(mark: (k: ExpansionKind) => void): string {
    const end = this.backtick(this.i);
    const text = this.s.slice(this.i, end);
    mark("command substitution");
    this.i = end;
    return text;
  }

  /** `"..."` from the opening quote; returns its text after quote removal and leaves `i` after the close. */
  private doubleQuoted(mark: (k: ExpansionKind) => void): string {
    const s = this.s;
    let value = "";
    this.i++;
    while (this.i < s.length) {
      const c = s[this.i]!;
      if (c === '"') {
        this.i++;
        return value;
      }
      if (c === "\\") {
        const next = s[this.i + 1];
        if (next === undefined) break;
        this.i += 2;
        if (next === "\n") continue;
        value += '$`"\\'.includes(next) ? next : `\\${next}`;
        continue;
      }
      if (c === "$") {
        const expanded = this.dollar();
        if (expanded) {
          mark(expanded.kind);
          value += expanded.text;
          continue;
        }
      }
      if (c === "`") {
        value += this.backtickSubstitution(mark);
        continue;
      }
      value += c;
      this.i++;
    }
    throw new Unreadable("a double quote is never closed");
  }

  /** `$'...'`: decodes the common escapes so an obfuscated name is seen for what it is. */
  private ansiC(): string {
    const s = this.s;
    let value = "";
    this.i += 2;
    while (this.i < s.length) {
      const c = s[this.i]!;
      if (c === "'") {
        this.i++;
        return value;
      }
      if (c === "\\") {
        const rest = s.slice(this.i + 1);
        const hex = /^x([0-9a-fA-F]{1,2})/.exec(rest);
        const oct = /^([0-7]{1,3})/.exec(rest);
        const uni = /^[uU]([0-9a-fA-F]{1,8})/.exec(rest);
        if (hex) {
          value += String.fromCharCode(parseInt(hex[1]!, 16));
          this.i += 1 + hex[0].length;
        } else if (uni) {
          value += String.fromCodePoint(Math.min(parseInt(uni[1]!, 16), 0x10ffff));
          this.i += 1 + uni[0].length;
        } else if (oct) {
          value += String.fromCharCode(parseInt(oct[1]!, 8));
          this.i += 1 + oct[0].length;
        } else {
          const e = rest[0] ?? "";
          value += ({ n: "\n", t: "\t", r: "\r", e: "\x1b", a: "\x07", b: "\b", f: "\f", v: "\v" } as Record<string, string>)[e] ?? e;
          this.i += 2;
        }
        continue;
      }
      value += c;
      this.i++;
    }
    throw new Unreadable("a $'...' quote is never closed");
  }

  /** An expansion starting at `$` (at `i`), or nothing when this `$` is a literal dollar sign. */
  private dollar(): { kind: ExpansionKind; text: string } | undefined {
    const s = this.s;
    const next = s[this.i + 1];
    if (next === "(") {
      const arithmetic = s[this.i + 2] === "(";
      const body = this.balanced(this.i + 2, "(", ")");
      if (!arithmetic) this.out.nested.push(body.text);
      const text = s.slice(this.i, body.end);
      this.i = body.end;
      return { kind: arithmetic ? "arithmetic expansion" : "command substitution", text };
    }
    if (next === "{") {
      const body = this.balanced(this.i + 2, "{", "}");
      const text = s.slice(this.i, body.end);
      this.i = body.end;
      return { kind: "parameter expansion", text };
    }
    if (next === "[") {
      const body = this.balanced(this.i + 2, "[", "]");
      const text = s.slice(this.i, body.end);
      this.i = body.end;
      return { kind: "arithmetic expansion", text };
    }
    if (next !== undefined && SPECIAL_PARAMETER.test(next)) {
      let end = this.i + 2;
      if (/[A-Za-z_]/.test(next)) while (end < s.length && /[A-Za-z0-9_]/.test(s[end]!)) end++;
      const text = s.slice(this.i, end);
      this.i = end;
      return { kind: "parameter expansion", text };
    }
    return undefined;
  }

  /** The text up to the bracket that closes one opened just before `from`, skipping quoted parts. */
  private balanced(from: number, open: string, close: string): { text: string; end: number } {
    const s = this.s;
    let depth = 1;
    let j = from;
    while (j < s.length) {
      const c = s[j]!;
      if (c === "\\") j += 2;
      else if (c === "'" && open !== "{") {
        const end = s.indexOf("'", j + 1);
        if (end < 0) break;
        j = end + 1;
      } else if (c === '"') {
        j++;
        while (j < s.length && s[j] !== '"') j += s[j] === "\\" ? 2 : 1;
        j++;
      } else {
        if (c === open) depth++;
        else if (c === close && --depth === 0) return { text: s.slice(from, j), end: j + 1 };
        j++;
      }
    }
    throw new Unreadable(`a \`${open === "(" ? "$(" : open === "{" ? "${" : "$["}\` is never closed`);
  }

  private backtick(from: number): number {
    const s = this.s;
    let j = from + 1;
    while (j < s.length && s[j] !== "`") j += s[j] === "\\" ? 2 : 1;
    if (j >= s.length) throw new Unreadable("a backquote is never closed");
    this.out.nested.push(s.slice(from + 1, j).replace(/\\([`$\\])/g, "$1"));
    return j + 1;
  }
}
