// Command-line options read the way the programs' own parsers read them (GNU getopt_long): short options
// clustered (`-uo FILE`), a short option's value attached (`-oFILE`) or in the next word, long options with
// `=value` or the next word, and a long option abbreviated to any unambiguous prefix (`--compress-prog`). An
// option the table does not know, or an ambiguous abbreviation, is an answer of its own: the guard then asks.

export type Arity = "none" | "required" | "optional";

export interface OptionTable {
  /** Short option letters (or digits) and whether they take a value. */
  short: Readonly<Record<string, Arity>>;
  /** Long option names with their leading `--`. */
  long: Readonly<Record<string, Arity>>;
  /** Whether the parser takes unambiguous prefixes of long options (GNU getopt_long does; some programs do not). */
  abbreviations?: boolean;
}

export interface ParsedArgs {
  /** Options as the table names them (`-o`, `--output`), each with its value when it took one. */
  options: { name: string; value?: string }[];
  operands: string[];
}

/** The options and operands, or why the words are not options the table knows. */
export function parseOptions(args: readonly string[], table: OptionTable): ParsedArgs | { unknown: string } {
  const options: ParsedArgs["options"] = [];
  const operands: string[] = [];
  let ended = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (ended || a === "-" || !a.startsWith("-")) {
      operands.push(a);
      continue;
    }
    if (a === "--") {
      ended = true;
      continue;
    }
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const written = eq < 0 ? a : a.slice(0, eq);
      const name = longName(written, table);
      if (!name) return { unknown: `\`${written}\` is not an option the guard knows for this program` };
      if (name.startsWith("ambiguous:")) return { unknown: `\`${written}\` is an ambiguous abbreviation (${name.slice(10)})` };
      const arity = table.long[name]!;
      if (eq >= 0) {
        if (arity === "none") return { unknown: `\`${name}\` takes no value` };
        options.push({ name, value: a.slice(eq + 1) });
      } else if (arity === "required") {
        if (i + 1 >= args.length) return { unknown: `\`${name}\` needs a value` };
        options.push({ name, value: args[++i]! });
      } else options.push({ name });
      continue;
    }
    for (let j = 1; j < a.length; j++) {
      const letter = a[j]!;
      const arity = Object.hasOwn(table.short, letter) ? table.short[letter] : undefined;
      if (!arity) return { unknown: `\`-${letter}\` is not an option the guard knows for this program` };
      if (arity === "none") {
        options.push({ name: `-${letter}` });
        continue;
      }
      const rest = a.slice(j + 1);
      if (rest || arity === "optional") options.push({ name: `-${letter}`, ...(rest ? { value: rest } : {}) });
      else {
        if (i + 1 >= args.length) return { unknown: `\`-${letter}\` needs a value` };
        options.push({ name: `-${letter}`, value: args[++i]! });
      }
      break;
    }
  }
  return { options, operands };
}

function longName(written: string, table: OptionTable): string | undefined {
  if (Object.hasOwn(table.long, written)) return written;
  if (table.abbreviations === false || written.length < 3) return undefined;
  const matches = Object.keys(table.long).filter((n) => n.startsWith(written));
  if (matches.length === 1) return matches[0];
  return matches.length ? `ambiguous:${matches.join(", ")}` : undefined;
}

/** A table from getopt-style text: `"bdfo:T:"` (a colon: takes a value; two: an optional one) and long names (`output=`, `check==`). */
export function optionTable(short: string, long: readonly string[], abbreviations = true): OptionTable {
  const s: Record<string, Arity> = {};
  for (let i = 0; i < short.length; i++) {
    const letter = short[i]!;
    let arity: Arity = "none";
    if (short[i + 1] === ":") {
      arity = short[i + 2] === ":" ? "optional" : "required";
      i += arity === "optional" ? 2 : 1;
    }
    s[letter] = arity;
  }
  const l: Record<string, Arity> = {};
  for (const n of long) l[`--${n.replace(/=+$/, "")}`] = n.endsWith("==") ? "optional" : n.endsWith("=") ? "required" : "none";
  return { short: s, long: l, abbreviations };
}
