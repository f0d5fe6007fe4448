// The read-only programs the guard lets run unasked, each with the argument forms that would make it write,
// execute something or read a file it was not shown. A program here is read-only only in the forms its check
// accepts; everything else about it asks. Users extend and trim the list with `[tools.guard]`.

/** Looks at a program's arguments (after quote removal); returns why they need approval, or nothing. */
export type ArgumentCheck = (args: string[]) => string | undefined;

const none: ArgumentCheck = () => undefined;

/** Refuses any argument equal to one of `names` or starting with `name=` (long options with a value). */
function refuseOptions(names: string[], why: string): ArgumentCheck {
  return (args) => {
    for (const a of args) {
      if (a === "--") break;
      for (const n of names) {
        if (a === n || (n.startsWith("--") && a.startsWith(`${n}=`))) return `\`${n}\` ${why}`;
        // A short option in a bundle (`-fo file`): any letter of it.
        if (/^-[A-Za-z]$/.test(n) && /^-[A-Za-z0-9]+$/.test(a) && !a.startsWith("--") && a.includes(n[1]!)) return `\`${n}\` ${why}`;
      }
    }
    return undefined;
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

/**
 * GNU sed: only `-n`/`-E`/`-r`/`-s`/`-u`/`-z` and scripts made of substitutions without the `e` and `w` flags,
 * and `p`/`d`/`q` with line addresses. In-place editing, `e`, `w`, `r` and script files ask.
 */
const SED_SCRIPT = /^(?:(?:\d+|\$)(?:,(?:\d+|\$))?)?(?:[pdq=]|s(.)(?:(?!\1).|\\.)*\1(?:(?!\1).|\\.)*\1[gpiI0-9]*)$/;
const sed: ArgumentCheck = (args) => {
  let script: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "-e" || a === "--expression") {
      const s = args[++i] ?? "";
      if (!SED_SCRIPT.test(s)) return `sed script \`${s}\` may write files or run commands`;
      script = s;
    } else if (/^-[nErsuz]+$/.test(a) || a === "--quiet" || a === "--silent" || a === "--regexp-extended") continue;
    else if (a.startsWith("-")) return `\`sed ${a}\` may write files or read a script file`;
    else if (script === undefined) {
      if (!SED_SCRIPT.test(a)) return `sed script \`${a}\` may write files or run commands`;
      script = a;
    }
  }
  return undefined;
};

/** `sort -o` writes; `--compress-program` runs a program. */
const sort = refuseOptions(["-o", "--output", "--compress-program"], "writes a file or runs a program");

/** `uniq IN OUT` and `xxd IN OUT` write OUT. */
const oneInput = (program: string): ArgumentCheck => (args) => (positionals(args).length > 1 ? `\`${program}\` with two files writes the second` : undefined);

/** `date -s` and `date MMDDhhmm` set the clock. */
const date: ArgumentCheck = (args) => {
  for (const a of args) {
    if (a === "-s" || a.startsWith("--set") || /^-[A-Za-z]*s/.test(a) && !a.startsWith("--")) return "`date -s` sets the system clock";
  }
  return positionals(args).some((a) => !a.startsWith("+")) ? "`date` with a time argument sets the system clock" : undefined;
};

/** rg: `--pre` runs a preprocessor, `-z` runs decompressors, `--hostname-bin` runs a program. */
const rg = refuseOptions(["--pre", "--pre-glob", "--search-zip", "-z", "--hostname-bin"], "runs another program");
const ag = refuseOptions(["--pager", "--search-zip", "-z"], "runs another program");
const file = refuseOptions(["-C", "--compile"], "writes a compiled magic file");
const tree = refuseOptions(["-o", "-R"], "writes files");
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
    const opt = GIT_REFUSED_OPTIONS.find((o) => a === o || a.startsWith(`${o}=`));
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
  printf: none,
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
  grep: none,
  egrep: none,
  fgrep: none,
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
  test: none,
  "[": none,
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
