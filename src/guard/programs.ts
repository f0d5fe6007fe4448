// The read-only programs the guard lets run unasked, each with the argument forms that would make it write,
// execute something or read a file it was not shown. A program here is read-only only in the forms its check
// accepts; everything else about it asks. Options are read as each program's own parser reads them
// (options.ts): clusters, attached values and abbreviated long options. Users extend and trim the list with
// `[tools.guard]`.
import { optionTable, parseOptions, type OptionTable, type ParsedArgs } from "./options";
import { sedScriptProblem } from "./sed";

/** Looks at a program's arguments (after quote removal); returns why they need approval, or nothing. */
export type ArgumentCheck = (args: string[]) => string | undefined;

const none: ArgumentCheck = () => undefined;

/**
 * Refuses any of `names` however the program's parser would take it: exact, with `=value`, abbreviated
 * (`--compress-prog` of `--compress-program`, as getopt_long allows), or a short option anywhere in a cluster
 * (`-uo`, `-oFILE`; a letter inside an attached value counts too, which only ever asks more).
 */
function refuseOptions(names: string[], why: string): ArgumentCheck {
  return (args) => {
    for (const a of args) {
      if (a === "--") break;
      const long = a.startsWith("--") ? a.split("=", 1)[0]! : undefined;
      for (const n of names) {
        if (long && n.startsWith("--") && long.length > 3 && n.startsWith(long)) return `\`${n}\` ${why}`;
        if (!long && /^-[A-Za-z]$/.test(n) && a.startsWith("-") && a.includes(n[1]!)) return `\`${n}\` ${why}`;
      }
    }
    return undefined;
  };
}

/**
 * A check from the program's option table: an option it does not know asks; `refused` options ask with `why`;
 * `more` looks at the parsed options and operands.
 */
function withOptions(program: string, table: OptionTable, refused: Record<string, string>, more?: (p: ParsedArgs) => string | undefined): ArgumentCheck {
  return (args) => {
    const parsed = parseOptions(args, table);
    if ("unknown" in parsed) return `\`${program}\`: ${parsed.unknown}`;
    for (const o of parsed.options) if (Object.hasOwn(refused, o.name)) return `\`${program} ${o.name}${o.value !== undefined ? ` ${o.value}` : ""}\` ${refused[o.name]}`;
    return more?.(parsed);
  };
}

const positionals = (args: string[]) => {
  const out: string[] = [];
  let options = true;
  for (const a of args) {
    if (options && a === "--") options = false;
    else if (options && a.startsWith("-") && a !== "-") continue;
    else out.push(a);
  }
  return out;
};

/** `find`: the actions that run programs, delete or write files. */
const FIND_ACTIONS = ["-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"];
const find: ArgumentCheck = (args) => {
  const hit = args.find((a) => FIND_ACTIONS.includes(a));
  return hit ? `\`find ${hit}\` runs a program or changes files` : undefined;
};

/** GNU sed's options (sed/sed.c). In-place editing and script files ask; scripts are read by sed.ts. */
export const SED_OPTIONS = optionTable("nrsuzEe:f:i::l:b", [
  "quiet", "silent", "expression=", "file=", "in-place==", "line-length=", "null-data", "zero-terminated", "regexp-extended",
  "separate", "sandbox", "debug", "posix", "unbuffered", "follow-symlinks", "binary", "help", "version",
]);
const sed = withOptions("sed", SED_OPTIONS, {
  "-i": "edits files in place",
  "--in-place": "edits files in place",
  "-f": "reads its script from a file",
  "--file": "reads its script from a file",
}, (p) => {
  const given = p.options.filter((o) => o.name === "-e" || o.name === "--expression").map((o) => o.value ?? "");
  // With no -e, the first operand is the script; several -e scripts are joined with newlines, as sed does.
  const script = given.length ? given.join("\n") : p.operands[0];
  if (script === undefined) return "sed without a script";
  return sedScriptProblem(script);
});

/** GNU sort's options: `-o` writes, `--compress-program` runs a program, `-T` writes temporary files there. */
const SORT_OPTIONS = optionTable("bdfgiMhnRrVcCk:mo:sS:t:T:uz", [
  "ignore-leading-blanks", "dictionary-order", "ignore-case", "general-numeric-sort", "ignore-nonprinting", "month-sort",
  "human-numeric-sort", "numeric-sort", "random-sort", "random-source=", "reverse", "sort=", "version-sort", "batch-size=",
  "check==", "compress-program=", "debug", "files0-from=", "key=", "merge", "output=", "stable", "buffer-size=",
  "field-separator=", "temporary-directory=", "unique", "zero-terminated", "parallel=", "help", "version",
]);
const sort = withOptions("sort", SORT_OPTIONS, {
  "-o": "writes a file",
  "--output": "writes a file",
  "--compress-program": "runs a program",
  "-T": "writes temporary files there",
  "--temporary-directory": "writes temporary files there",
});

/** `uniq IN OUT` and `xxd IN OUT` write OUT. */
const oneInput = (program: string): ArgumentCheck => (args) => (positionals(args).length > 1 ? `\`${program}\` with two files writes the second` : undefined);

/** `date -s` and `date MMDDhhmm` set the clock (GNU date's options). */
const DATE_OPTIONS = optionTable("d:f:I::Rr:s:u", [
  "date=", "debug", "file=", "iso-8601==", "resolution", "rfc-email", "rfc-822", "rfc-2822", "rfc-3339=", "reference=", "set=",
  "universal", "utc", "help", "version",
]);
const date = withOptions("date", DATE_OPTIONS, { "-s": "sets the system clock", "--set": "sets the system clock" }, (p) =>
  p.operands.some((a) => !a.startsWith("+")) ? "`date` with a time argument sets the system clock" : undefined,
);

/** rg: `--pre` runs a preprocessor, `-z` runs decompressors, `--hostname-bin` runs a program. */
const rg = refuseOptions(["--pre", "--pre-glob", "--search-zip", "-z", "--hostname-bin"], "runs another program");
const ag = refuseOptions(["--pager", "--search-zip", "-z"], "runs another program");
const file = refuseOptions(["-C", "--compile"], "writes a compiled magic file");
/** tree's own parser (exact long names, values attached or next): `-o` writes its output to a file, `-R` with `-H` writes a file per directory. */
const TREE_OPTIONS = optionTable("adlfxL:RP:I:o:H:T:iqNQpugshDFvtcUrSnCAXJ", [
  "help", "version", "inodes", "device", "noreport", "nolinks", "dirsfirst", "filesfirst", "charset=", "si", "du", "prune",
  "timefmt=", "ignore-case", "matchdirs", "fromfile", "fromtabfile", "info", "gitignore", "sort=", "filelimit=", "metafirst",
], false);
const tree = withOptions("tree", TREE_OPTIONS, { "-o": "writes its output to a file", "-R": "writes files (with -H)" });

/**
 * GNU grep's options (the egrep and fgrep scripts take the same). Nothing here writes or runs a program; the
 * table is there so an abbreviated `--recurs` or `--direct=rec` is seen as the recursive search it is.
 */
export const GREP_OPTIONS = optionTable("EFGPe:f:iywxzsvVcbnhHoqrRaId:D:LlTUZm:A:B:C:0123456789", [
  "extended-regexp", "fixed-strings", "basic-regexp", "perl-regexp", "regexp=", "file=", "ignore-case", "no-ignore-case",
  "word-regexp", "line-regexp", "null-data", "no-messages", "invert-match", "version", "help", "max-count=", "byte-offset",
  "line-number", "no-line-number", "line-buffered", "with-filename", "no-filename", "label=", "only-matching", "quiet",
  "silent", "binary-files=", "text", "directories=", "devices=", "recursive", "dereference-recursive", "include=", "exclude=",
  "exclude-from=", "exclude-dir=", "files-without-match", "files-with-matches", "count", "initial-tab", "null",
  "before-context=", "after-context=", "context=", "color==", "colour==", "binary",
]);
const grep = withOptions("grep", GREP_OPTIONS, {});

/** Whether parsed grep options search directories recursively (`-r`, `-R`, `-d recurse` and its abbreviations). */
export function grepRecursive(p: ParsedArgs): boolean {
  return p.options.some((o) => ["-r", "-R", "--recursive", "--dereference-recursive"].includes(o.name) || ((o.name === "-d" || o.name === "--directories") && !!o.value && "recurse".startsWith(o.value)));
}

/**
 * Bash's `test`/`[`: `-v NAME` evaluates an array subscript in NAME as arithmetic, which runs any command
 * substitution inside it, quoted or not (`[ -v 'a[$(id)]' ]`). `-R` reads a variable the same way.
 */
const test: ArgumentCheck = (args) => (args.some((a) => a === "-v" || a === "-R") ? "`test -v` evaluates an array subscript, which can run a command" : undefined);

/** Bash's `printf -v NAME` assigns a variable (PATH, BASH_CMDS[ls], or a subscript that runs a command). */
const printf: ArgumentCheck = (args) => {
  for (const a of args) {
    if (a === "--" || !a.startsWith("-")) return undefined;
    if (a.startsWith("-v")) return "`printf -v` assigns a shell variable (such as PATH), which changes what later commands run";
  }
  return undefined;
};
const uname = none;
const hostname: ArgumentCheck = (args) => (positionals(args).length || args.some((a) => /^-[A-Za-z]*[bF]/.test(a) || a.startsWith("--file") || a === "--boot") ? "`hostname` with an argument sets the host name" : undefined);

/** Git subcommands that only read, with the options that would make them write or run something. */
const GIT_READ_ONLY = new Set(["status", "log", "show", "diff", "rev-parse", "ls-files", "blame", "ls-tree", "describe", "shortlog"]);
const GIT_REFUSED_OPTIONS = ["--output", "--ext-diff", "--show-signature", "--open-files-in-pager", "--exec-path", "--upload-pack"];
/** Global options that come before the subcommand and change nothing about what it runs. */
const GIT_SAFE_GLOBALS = new Set(["--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs", "--no-replace-objects"]);

/** `git branch` only lists in these forms (a bare name would create a branch). */
const BRANCH_LIST_OPTIONS = /^(?:--list|-l|-a|--all|-r|--remotes|-v|-vv|--verbose|--show-current|--no-color|--color|--column|--no-column|--sort=.*|--format=.*|--merged|--no-merged|--contains|--no-contains|--points-at|--ignore-case|-i)$/;

export const git: ArgumentCheck = (args) => {
  let i = 0;
  while (i < args.length && args[i]!.startsWith("-")) {
    if (!GIT_SAFE_GLOBALS.has(args[i]!)) return `\`git ${args[i]}\` changes what git runs or where`;
    i++;
  }
  const sub = args[i];
  if (!sub) return "git without a subcommand";
  const rest = args.slice(i + 1);
  for (const a of rest) {
    if (a === "--") break;
    // git's option parser takes unambiguous abbreviations (`--out=FILE`): a prefix of a refused option asks.
    const written = a.startsWith("--") ? a.split("=", 1)[0]! : "";
    const opt = GIT_REFUSED_OPTIONS.find((o) => a === o || a.startsWith(`${o}=`) || (written.length > 3 && o.startsWith(written)));
    if (opt) return `\`git ${sub} ${opt}\` writes a file or runs another program`;
  }
  if (sub === "branch") {
    const listing = rest.some((a) => a === "--list" || a === "-l");
    const bad = rest.find((a) => a.startsWith("-") && !BRANCH_LIST_OPTIONS.test(a));
    if (bad) return `\`git branch ${bad}\` may change branches`;
    if (!listing && positionals(rest).length && !rest.some((a) => /^--(no-)?(merged|contains)$|^--points-at$/.test(a))) {
      return "`git branch NAME` creates a branch; only `git branch --list` runs unasked";
    }
    return undefined;
  }
  if (sub === "remote") return rest.every((a) => a === "-v" || a === "--verbose") ? undefined : "`git remote` with arguments changes remotes";
  if (!GIT_READ_ONLY.has(sub)) return `\`git ${sub}\` is not a read-only git command`;
  return undefined;
};

/** The documented default list (docs/security.md): program name -> the check on its arguments. */
export const READ_ONLY_PROGRAMS: Readonly<Record<string, ArgumentCheck>> = {
  ls: none,
  cat: none,
  head: none,
  tail: none,
  wc: none,
  file,
  stat: none,
  du: none,
  df: none,
  pwd: none,
  echo: none,
  printf,
  date,
  which: none,
  uname,
  hostname,
  whoami: none,
  id: none,
  true: none,
  false: none,
  basename: none,
  dirname: none,
  realpath: none,
  readlink: none,
  grep,
  egrep: grep,
  fgrep: grep,
  rg,
  ag,
  find,
  sort,
  uniq: oneInput("uniq"),
  cut: none,
  tr: none,
  nl: none,
  tac: none,
  rev: none,
  comm: none,
  paste: none,
  fold: none,
  column: none,
  expand: none,
  diff: none,
  cmp: none,
  sed,
  tree,
  sha256sum: none,
  sha1sum: none,
  md5sum: none,
  cksum: none,
  od: none,
  xxd: oneInput("xxd"),
  hexdump: none,
  strings: none,
  seq: none,
  test,
  "[": test,
  git,
};

export interface ProgramList {
  check(program: string): ArgumentCheck | undefined;
}

/** The default list with the user's additions (any literal arguments) and removals applied. */
export function programList(add: readonly string[] = [], remove: readonly string[] = []): ProgramList {
  if (!add.length && !remove.length) return { check: (p) => (Object.hasOwn(READ_ONLY_PROGRAMS, p) ? READ_ONLY_PROGRAMS[p] : undefined) };
  const table = new Map<string, ArgumentCheck>(Object.entries(READ_ONLY_PROGRAMS));
  for (const p of add) if (!table.has(p)) table.set(p, none);
  for (const p of remove) table.delete(p);
  return { check: (p) => table.get(p) };
}
