// A small gitignore matcher for the workspace search tools (grep, glob): the pattern rules of gitignore(5) for
// `.gitignore` and `.ignore` files, each applying to its own directory and below. Not git itself: no global
// excludes file and no `.git/info/exclude`; `.ignore` rules (ripgrep's convention) win over `.gitignore` ones.

interface Rule {
  regex: RegExp;
  negate: boolean;
  dirOnly: boolean;
}

/** The rules of one directory's ignore files, matched against paths relative to that directory. */
export class IgnoreFile {
  private constructor(private readonly rules: Rule[]) {}

  static parse(...texts: string[]): IgnoreFile | undefined {
    const rules = texts.flatMap((t) => t.split(/\r?\n/)).map(parseLine).filter((r): r is Rule => r !== undefined);
    return rules.length ? new IgnoreFile(rules) : undefined;
  }

  /** true: ignored; false: re-included by a `!` rule; undefined: no rule here says. The last matching rule wins. */
  decide(rel: string, isDir: boolean): boolean | undefined {
    for (let i = this.rules.length - 1; i >= 0; i--) {
      const rule = this.rules[i]!;
      if (rule.dirOnly && !isDir) continue;
      if (rule.regex.test(rel)) return !rule.negate;
    }
    return undefined;
  }
}

/** Ignore files from the search root down to the current directory; the deepest one with an opinion decides. */
export class IgnoreStack {
  private readonly frames: { dir: string; rules: IgnoreFile }[] = [];

  /** `dir` is relative to the workspace ("" for its root), `rules` that directory's parsed ignore files. */
  push(dir: string, rules: IgnoreFile | undefined): boolean {
    if (!rules) return false;
    this.frames.push({ dir, rules });
    return true;
  }

  pop(): void {
    this.frames.pop();
  }

  /** Whether a workspace-relative path is ignored (its parents are known not to be: the walk never enters them). */
  ignored(rel: string, isDir: boolean): boolean {
    for (let i = this.frames.length - 1; i >= 0; i--) {
      const { dir, rules } = this.frames[i]!;
      const decision = rules.decide(dir ? rel.slice(dir.length + 1) : rel, isDir);
      if (decision !== undefined) return decision;
    }
    return false;
  }
}

function parseLine(raw: string): Rule | undefined {
  // Trailing spaces are dropped unless escaped with a backslash.
  let line = raw.replace(/(?<!\\)\s+$/, "");
  if (line === "" || line.startsWith("#")) return undefined;
  let negate = false;
  if (line.startsWith("!")) {
    negate = true;
    line = line.slice(1);
  } else if (line.startsWith("\\!") || line.startsWith("\\#")) line = line.slice(1);
  let dirOnly = false;
  if (line.endsWith("/") && !line.endsWith("\\/")) {
    dirOnly = true;
    line = line.replace(/\/+$/, "");
  }
  if (line === "") return undefined;
  // A slash at the start or in the middle anchors the pattern to the ignore file's directory.
  const anchored = line.includes("/");
  if (line.startsWith("/")) line = line.slice(1);
  const body = translate(line);
  if (body === undefined) return undefined;
  const prefix = anchored || line.startsWith("**/") ? "^" : "^(?:.*/)?";
  return { regex: new RegExp(`${prefix}${body}$`), negate, dirOnly };
}

/** A gitignore glob as a regular expression body; undefined for a pattern that cannot match (bad class). */
function translate(glob: string): string | undefined {
  let out = "";
  let i = 0;
  while (i < glob.length) {
    const c = glob[i]!;
    if (c === "*") {
      if (glob[i + 1] === "*") {
        const atStart = i === 0 || glob[i - 1] === "/";
        const atEnd = i + 2 === glob.length || glob[i + 2] === "/";
        if (atStart && atEnd) {
          if (i + 2 === glob.length) out += ".*"; // `dir/**`: everything inside
          else {
            out += "(?:.*/)?"; // `**/x`, `a/**/b`: zero or more directories
            i++; // the slash after ** is part of the group
          }
          i += 2;
          continue;
        }
      }
      out += "[^/]*";
      i++;
    } else if (c === "?") {
      out += "[^/]";
      i++;
    } else if (c === "[") {
      const end = classEnd(glob, i);
      if (end < 0) {
        out += "\\[";
        i++;
        continue;
      }
      let cls = glob.slice(i + 1, end);
      let negated = "";
      if (cls.startsWith("!") || cls.startsWith("^")) {
        negated = "^";
        cls = cls.slice(1);
      }
      out += `[${negated}${cls.replace(/[\\\][^]/g, (m) => `\\${m}`)}]`;
      i = end + 1;
    } else if (c === "\\" && i + 1 < glob.length) {
      out += escapeRegex(glob[i + 1]!);
      i += 2;
    } else {
      out += escapeRegex(c);
      i++;
    }
  }
  try {
    new RegExp(out);
    return out;
  } catch {
    return undefined;
  }
}

function classEnd(glob: string, start: number): number {
  let j = start + 1;
  if (glob[j] === "!" || glob[j] === "^") j++;
  if (glob[j] === "]") j++;
  for (; j < glob.length; j++) if (glob[j] === "]") return j;
  return -1;
}

function escapeRegex(c: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c;
}
