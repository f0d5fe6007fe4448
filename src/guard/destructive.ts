// Known destructive payloads: commands SCV refuses to run whoever approves them. Checked on every reading of
// the command (raw, ANSI-stripped, NFKC-normalised), through wrappers (`sudo`, `env`, `timeout`, …) and into
// `bash -c`, `eval` and substitution bodies, so quoting tricks and look-alike characters do not hide them.
import { posix } from "node:path";
import { otherUsersHome, pathOfText, within, type PathContext } from "./paths";
import { programList, type ProgramList } from "./programs";
import { tokenize, type SimpleCommand, type Word } from "./tokenize";

export interface DestructiveContext extends PathContext {
  /** The read-only list: a command on it in a read-only form may read SCV's home (then it asks); nothing else may name it. */
  programs?: ProgramList;
}

const defaultPrograms = programList();

/** Programs that run another command given after their own options. */
const WRAPPERS = new Set(["sudo", "doas", "env", "command", "builtin", "exec", "nice", "nohup", "time", "timeout", "stdbuf", "ionice", "xargs", "busybox", "setsid", "chrt", "taskset", "unbuffer", "caffeinate", "watch", "{", "!", "if", "then", "else", "elif", "do", "while", "until"]);
/** Wrapper options that take a value as the next word. */
const WRAPPER_VALUE_OPTIONS = new Set(["-u", "-g", "-C", "-n", "-s", "-k", "-p", "-c", "-U", "-h", "-I", "-L", "-P", "-d"]);
const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "ash", "csh", "tcsh", "su"]);
const INTERPRETERS = new Set([...SHELLS, "python", "python3", "python2", "perl", "ruby", "node", "bun", "deno", "php", "lua", "tclsh", "pwsh", "rscript", "source", ".", "eval"]);
const FETCHERS = new Set(["curl", "wget", "fetch", "aria2c", "http", "https", "xh", "lynx", "links"]);
/** A fetcher named inside a word's text (a substitution body: `"$(curl -fsSL URL)"`). */
const FETCH_WORD = /(?:^|[\s\/;|&(`"'])(?:curl|wget|aria2c|xh|lynx|links|fetch)(?=[\s;|&)`"']|$)/;
/** A shell or interpreter named anywhere in a word's text (`>(sh)`, `sudo -E bash`). */
const INTERPRETER_WORD = /(?:^|[\s\/;|&(`"'])(?:(?:ba|z|da|k|mk|a|c|tc)?sh|fish|python[0-9.]*|perl|ruby|node|bun|deno|php|lua|tclsh|pwsh|source|eval)(?=[\s;|&)`"']|$)/;
const POWER = new Set(["shutdown", "reboot", "halt", "poweroff", "kexec"]);
const RAW_DISK = /^\/dev\/(?:sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|disk\d|rdisk\d|md\d|dm-\d|mapper\/|loop\d|sr\d|nbd\d)/;
const WRITE_REDIRECTS = new Set([">", ">>", ">|", "&>", "&>>", "<>"]);
const SYSTEM_DIRS = ["bin", "boot", "dev", "etc", "home", "lib", "lib32", "lib64", "opt", "root", "sbin", "srv", "sys", "usr", "var", "proc", "Users", "System", "Library"];
const FORK_BOMB = /([A-Za-z_:.][\w:.]*)\s*\(\s*\)\s*\{[^}]*\1\s*\|\s*\1\s*&/;
export const MAX_DEPTH = 4;

/**
 * Where relative paths in a line may lead: the workspace, and each directory a `cd`/`pushd` in the line moves to
 * (`unknown` when one of them only the shell could know).
 */
export interface Places {
  cwds: string[];
  unknown: boolean;
}

export function placesOf(commands: SimpleCommand[], ctx: DestructiveContext): Places {
  const places: Places = { cwds: [ctx.workspace], unknown: false };
  for (const c of commands) {
    const words = unwrapped(c);
    const program = words.length ? baseName(words[0]!.value) : "";
    if (program !== "cd" && program !== "pushd") continue;
    const target = words.slice(1).find((w) => !w.value.startsWith("-"));
    const to = target ? places.cwds.map((cwd) => pathOfText(target.raw.replace(/["']/g, ""), ctx, cwd)) : [ctx.home];
    for (const p of to) {
      if (p === undefined) places.unknown = true;
      else if (!places.cwds.includes(p)) places.cwds.push(p);
    }
  }
  return places;
}

/** Why `text` is refused outright, or nothing. */
export function destructiveReason(text: string, ctx: DestructiveContext, depth = 0): string | undefined {
  if (FORK_BOMB.test(text)) return "it is a fork bomb (a function that starts copies of itself until the machine stops)";
  const parsed = tokenize(text);
  if (!parsed.ok) return depth < MAX_DEPTH ? fallbackReason(text, ctx) : undefined;
  const commands = parsed.parsed.commands;
  const places = placesOf(commands, ctx);
  for (let i = 0; i < commands.length; i++) {
    const reason = commandReason(commands[i]!, ctx, depth, places) ?? pipeReason(commands, i);
    if (reason) return reason;
  }
  if (depth < MAX_DEPTH) {
    for (const nested of parsed.parsed.nested) {
      const reason = destructiveReason(nested, ctx, depth + 1);
      if (reason) return reason;
    }
  }
  return undefined;
}

/** A command the tokenizer could not read: the quote-free text checked for the plainest payloads. */
function fallbackReason(text: string, ctx: DestructiveContext): string | undefined {
  const plain = text.replace(/["'\\]/g, "");
  if (plain !== text) {
    const again = tokenize(plain);
    if (again.ok) return destructiveReason(plain, ctx, MAX_DEPTH);
  }
  if (/\b(curl|wget)\b[^|]*\|\s*(sudo\s+)?(ba|z|da|k)?sh\b/.test(plain)) return "it pipes a download into a shell";
  return undefined;
}

/** The words after any wrappers (`sudo -u root rm` -> `rm`), with the program's base name first. */
export function unwrapped(cmd: SimpleCommand): Word[] {
  let words = cmd.words;
  for (let guard = 0; guard < 8 && words.length; guard++) {
    const program = baseName(words[0]!.value);
    if (!WRAPPERS.has(program)) break;
    let i = 1;
    while (i < words.length) {
      const v = words[i]!.value;
      if (v === "--") {
        i++;
        break;
      }
      if (v.startsWith("-")) {
        i += WRAPPER_VALUE_OPTIONS.has(v) ? 2 : 1;
        continue;
      }
      if (program === "env" && /^[A-Za-z_][A-Za-z0-9_]*=/.test(v)) {
        i++;
        continue;
      }
      if (program === "timeout" || program === "chrt" || program === "taskset" || program === "watch" && /^\d/.test(v)) {
        if (/^[\d.]+[smhd]?$|^0x[0-9a-f]+$/i.test(v)) {
          i++;
          continue;
        }
      }
      break;
    }
    words = words.slice(i);
  }
  return words;
}

export function baseName(program: string): string {
  const slash = program.lastIndexOf("/");
  return (slash >= 0 ? program.slice(slash + 1) : program).toLowerCase();
}

function commandReason(cmd: SimpleCommand, ctx: DestructiveContext, depth: number, places: Places): string | undefined {
  for (const r of cmd.redirects) {
    if (!WRITE_REDIRECTS.has(r.op) || !r.target) continue;
    const to = pathOfText(r.target.raw.replace(/["']/g, ""), ctx) ?? r.target.value;
    if (RAW_DISK.test(to)) return `it writes straight to the disk device ${r.target.value}`;
    if (namesScvHome(r.target, ctx, places)) return `it overwrites ${r.target.value}, SCV's own credentials and state`;
  }
  const words = unwrapped(cmd);
  if (!words.length) return undefined;
  const program = baseName(words[0]!.value);
  const args = words.slice(1);
  const values = args.map((w) => w.value);
  const positional = args.filter((w) => !w.value.startsWith("-") || w.value === "-");
  const home = (w: Word) => rootOrHome(w, ctx, places);

  if (program === "rm") {
    if (values.some((v) => longOption(v, "--no-preserve-root"))) return "`rm --no-preserve-root` deletes the whole system";
    const recursive = values.some((v) => longOption(v, "--recursive") || /^-[A-Za-z]*[rR]/.test(v) && !v.startsWith("--"));
    const target = recursive ? positional.find(home) : undefined;
    if (target) return `\`rm -r ${target.raw}\` deletes ${describeTarget(target, ctx)}`;
  }
  if (program === "chmod" || program === "chown" || program === "chgrp") {
    const recursive = values.some((v) => longOption(v, "--recursive") || /^-[A-Za-z]*R/.test(v) && !v.startsWith("--"));
    const target = recursive ? positional.find(home) : undefined;
    if (target) return `\`${program} -R\` on ${target.raw} changes ${describeTarget(target, ctx)}`;
  }
  if (program === "shred" || program === "truncate") {
    const target = positional.find(home);
    if (target) return `\`${program}\` on ${target.raw} destroys ${describeTarget(target, ctx)}`;
  }
  if (program === "find") {
    const reason = findReason(args, ctx, places);
    if (reason) return reason;
  }
  if (program === "git") {
    const reason = gitCleanReason(args, ctx, places);
    if (reason) return reason;
  }
  if (program === "rsync" && values.some((v) => v.startsWith("--del") || longOption(v, "--remove-source-files"))) {
    const target = positional.at(-1);
    if (target && positional.length > 1 && home(target)) return `\`rsync --delete\` into ${target.raw} deletes ${describeTarget(target, ctx)}`;
  }
  if (program.startsWith("mkfs") || program === "mke2fs" || program === "mkswap" || program === "wipefs") {
    return `\`${program}\` formats a disk`;
  }
  if (program === "dd") {
    const of = values.find((v) => v.startsWith("of=") && RAW_DISK.test(pathOfText(v.slice(3), ctx) ?? v.slice(3)));
    if (of) return `\`dd ${of}\` writes straight to a disk device`;
  }
  if ((program === "tee" || program === "cp" || program === "shred" || program === "cat" || program === "truncate") && positional.some((w) => RAW_DISK.test(pathOfText(w.raw.replace(/["']/g, ""), ctx) ?? w.value))) {
    return `\`${program}\` writes to a raw disk device`;
  }
  if (POWER.has(program)) return `\`${program}\` stops or restarts the machine`;
  if ((program === "init" || program === "telinit") && values.some((v) => v === "0" || v === "6")) return `\`${program} ${values.join(" ")}\` stops or restarts the machine`;
  if (program === "systemctl" && values.some((v) => ["poweroff", "reboot", "halt", "kexec", "suspend", "hibernate"].includes(v))) {
    return "`systemctl` stops or restarts the machine";
  }
  // A link to a directory holding SCV's home (`ln -s ~ h`) makes a path into it that no later word spells.
  if (program === "ln" && positional.length > 1) {
    const holder = positional.slice(0, -1).find((w) => places.cwds.some((cwd) => {
      const p = pathOfText(w.raw.replace(/["']/g, ""), ctx, cwd);
      return p !== undefined && within(ctx.scvHome, p);
    }));
    if (holder) return `\`ln ${holder.raw}\` links to a directory that holds SCV's home, a way around its protection`;
  }
  // A recursive copy or an archive unpacked into a directory holding SCV's home can write into it (`cp -r
  // payload/. ~/`, `cd ~ && tar xf x.tar`): the archive's or folder's contents decide, which nobody has read.
  const into = unpackTargets(program, args, ctx, places);
  if (into?.some((p) => within(ctx.scvHome, p))) return `\`${program}\` unpacks or copies into a directory that holds SCV's home, which may overwrite its credentials and rules`;
  // SCV's home: any command that may write there, by any spelling of the path, is refused. Only a command on
  // the read-only list in a read-only form may name it (and then asks, as any credential read does).
  const scvWord = cmd.words.find((w) => namesScvHome(w, ctx, places));
  if (scvWord && !readOnly(words, cmd, ctx)) return `\`${program}\` may write to ${scvWord.value}, inside SCV's home (its credentials, rules and state)`;
  if (INTERPRETERS.has(program)) {
    const fetched = [...words, ...cmd.redirects.map((r) => r.target).filter((t): t is Word => !!t)].find((w) => /(?:<\(|\$\(|`)/.test(w.raw) && FETCH_WORD.test(w.raw));
    if (fetched) return `it runs a download with ${program} without anyone reading it first`;
  }
  if (depth < MAX_DEPTH) {
    for (const inner of innerTexts(program, words, cmd)) {
      const reason = destructiveReason(inner, ctx, depth + 1);
      if (reason) return reason;
    }
  }
  return undefined;
}

/** The command texts a command runs of its own: `bash -c TEXT`, `eval TEXT…`, a here-document fed to a shell. */
export function innerTexts(program: string, words: Word[], cmd: SimpleCommand): string[] {
  const inner = innerCommand(program, words);
  if (inner !== undefined) return [inner];
  return SHELLS.has(program) ? cmd.redirects.flatMap((r) => (r.body !== undefined ? [r.body] : [])) : [];
}

/** Where a recursive copy or an archive extraction writes (resolved), or undefined when the command is neither. */
function unpackTargets(program: string, args: Word[], ctx: PathContext, places: Places): string[] | undefined {
  const values = args.map((w) => w.value);
  const option = (short: string, long: string) => {
    for (let i = 0; i < values.length; i++) {
      const v = values[i]!;
      if (v === short || v === long) return args[i + 1];
      if (v.startsWith(`${long}=`)) return { ...args[i]!, raw: args[i]!.raw.slice(args[i]!.raw.indexOf("=") + 1) };
      if (v.startsWith(short) && v.length > 2 && !v.startsWith("--")) return { ...args[i]!, raw: args[i]!.raw.slice(2) };
    }
    return undefined;
  };
  const resolved = (w: Word | undefined) => (w ? places.cwds.map((cwd) => pathOfText(w.raw.replace(/["']/g, ""), ctx, cwd) ?? "") : places.cwds);
  const positional = args.filter((w) => !w.value.startsWith("-"));
  if (program === "tar" || program === "bsdtar") {
    const extracting = values.some((v, i) => v === "--extract" || v === "--get" || (/^-[A-Za-z]*x/.test(v) && !v.startsWith("--")) || (i === 0 && /^[A-Za-z]*x[A-Za-z]*$/.test(v)));
    return extracting ? resolved(option("-C", "--directory")) : undefined;
  }
  if (program === "unzip") return resolved(option("-d", "--d"));
  if (program === "cp") {
    const recursive = values.some((v) => longOption(v, "--recursive") || longOption(v, "--archive") || (/^-[A-Za-z]*[rRa]/.test(v) && !v.startsWith("--")));
    return recursive ? resolved(option("-t", "--target-directory") ?? positional.at(-1)) : undefined;
  }
  if (program === "rsync" && positional.length > 1) return resolved(positional.at(-1));
  return undefined;
}

/** `--recursive` as GNU's parser takes it: whole, or abbreviated to a prefix of at least `--r`. */
export function longOption(v: string, name: string): boolean {
  const written = v.split("=", 1)[0]!;
  return written === name || (written.length >= 3 && written.startsWith("--") && name.startsWith(written));
}

/** A command on the read-only list, in a form its check accepts, writing to no file. */
function readOnly(words: Word[], cmd: SimpleCommand, ctx: DestructiveContext): boolean {
  const check = (ctx.programs ?? defaultPrograms).check(words[0]!.value);
  if (!check || check(words.slice(1).map((w) => w.value))) return false;
  return cmd.redirects.every((r) => !WRITE_REDIRECTS.has(r.op) || r.target?.value === "/dev/null");
}

/** `find PATH… -delete` (or `-exec rm`) on a home directory or `/`. */
function findReason(args: Word[], ctx: DestructiveContext, places: Places): string | undefined {
  const { starts, deletes } = findParts(args);
  if (!deletes) return undefined;
  const target = starts.find((w) => rootOrHome(w, ctx, places));
  if (target) return `\`find ${target.raw} … -delete\` deletes ${describeTarget(target, ctx)}`;
  if (!starts.length && places.cwds.some((c) => isRootOrHomePath(c, ctx))) return "`find -delete` in your home directory deletes it";
  return undefined;
}

/** `find`'s starting points, and whether its expression deletes what it finds (`-delete`, `-exec rm`). */
export function findParts(args: Word[]): { starts: Word[]; deletes: boolean } {
  let i = 0;
  while (i < args.length && /^-(?:[HLP]+|D|O\d*)$/.test(args[i]!.value)) i += args[i]!.value === "-D" ? 2 : 1;
  const starts: Word[] = [];
  while (i < args.length && !/^[-(!,]/.test(args[i]!.value)) starts.push(args[i++]!);
  const expression = args.slice(i).map((w) => w.value);
  const deletes = expression.some((v, k) => v === "-delete" || (/^-(?:exec|execdir|ok|okdir)$/.test(v) && ["rm", "shred", "unlink", "rmdir", "truncate", "srm", "wipe"].includes(baseName(expression[k + 1] ?? ""))));
  return { starts, deletes };
}

/** `git clean -f` whose work tree or pathspec is a home directory or `/`. */
function gitCleanReason(args: Word[], ctx: DestructiveContext, places: Places): string | undefined {
  const { dirs, at: i } = gitParts(args);
  if (args[i]?.value !== "clean") return undefined;
  const rest = args.slice(i + 1).map((w) => w.value);
  if (!rest.some((v) => v === "--force" || (/^-[A-Za-z]*f/.test(v) && !v.startsWith("--")))) return undefined;
  const dir = dirs.find((w) => rootOrHome(w, ctx, places));
  if (dir) return `\`git clean\` in ${dir.raw} deletes ${describeTarget(dir, ctx)}`;
  const pathspec = args.slice(i + 1).filter((w) => !w.value.startsWith("-")).find((w) => rootOrHome(w, ctx, places));
  if (pathspec) return `\`git clean ${pathspec.raw}\` deletes ${describeTarget(pathspec, ctx)}`;
  if (!dirs.length && places.cwds.some((c) => isRootOrHomePath(c, ctx))) return "`git clean -f` in your home directory deletes every file git does not track there";
  return undefined;
}

/** Where git's own options end (`at`: the subcommand's index) and the work trees they name (`-C`, `--work-tree`). */
export function gitParts(args: Word[]): { dirs: Word[]; at: number } {
  let i = 0;
  const dirs: Word[] = [];
  while (i < args.length && args[i]!.value.startsWith("-")) {
    const v = args[i]!.value;
    if (v === "-C" || v === "--work-tree" || v === "--git-dir" || v === "-c" || v === "--namespace") {
      if (v !== "-c" && v !== "--namespace" && args[i + 1]) dirs.push(args[i + 1]!);
      i += 2;
      continue;
    }
    if (v.startsWith("--work-tree=")) dirs.push({ ...args[i]!, raw: args[i]!.raw.slice(args[i]!.raw.indexOf("=") + 1) });
    i++;
  }
  return { dirs, at: i };
}

/**
 * `curl … | sh`: a download piped into a shell or interpreter later in the same pipeline, however the shell is
 * reached (`sudo -E bash`, `| (sh)`, `| tee >(sh)`, a program only the shell knows such as `$SHELL`).
 */
function pipeReason(commands: SimpleCommand[], i: number): string | undefined {
  const cmd = commands[i]!;
  if (cmd.after !== "|" && cmd.after !== "|&" && cmd.after !== "(") return undefined;
  const words = unwrapped(cmd);
  const first = words[0];
  const runs = !!first && (INTERPRETERS.has(baseName(first.value)) || !!first.expansion || cmd.words.some((w) => INTERPRETER_WORD.test(w.value)));
  if (!runs) return undefined;
  for (let j = i - 1; j >= 0; j--) {
    const w = unwrapped(commands[j]!);
    if (w.length && FETCHERS.has(baseName(w[0]!.value))) return `it pipes a download (${baseName(w[0]!.value)}) into ${first!.value}, running code nobody has read`;
    const after = commands[j]!.after;
    if (after !== "|" && after !== "|&" && after !== "(") break;
  }
  return undefined;
}

/** The command text `bash -c TEXT`, `eval TEXT…` or `su -c TEXT` would run. */
function innerCommand(program: string, words: Word[]): string | undefined {
  if (program === "eval") return words.slice(1).map((w) => w.value).join(" ");
  if (!SHELLS.has(program)) return undefined;
  for (let i = 1; i < words.length; i++) {
    const v = words[i]!.value;
    if (v === "-c" || /^-[A-Za-z]*c[A-Za-z]*$/.test(v) && !v.startsWith("--")) return words[i + 1]?.value;
  }
  return undefined;
}

/**
 * Whether a word may name a place inside SCV's home, by any spelling: the path itself, a value after `=` (`of=`,
 * `--output=`), an attached short value (`-o/…`), the path inside a longer text (`open("/…/.scv/x")`), the
 * variable's name (`$SCV_HOME`, `$(printenv SCV_HOME)`), or, when a `cd` leads somewhere unknown, a relative
 * path through a folder named like it.
 */
function namesScvHome(w: Word, ctx: DestructiveContext, places: Places): boolean {
  // The variable itself, or a substitution that reads it (`$(printenv SCV_HOME)`); the bare word in a message is text.
  if (/\$\{?SCV_HOME\b/.test(w.raw) || (w.expansion && w.raw.includes("SCV_HOME"))) return true;
  const text = w.raw.replace(/["'\\]/g, "");
  const candidates = [text];
  for (let at = text.indexOf("="); at >= 0; at = text.indexOf("=", at + 1)) candidates.push(text.slice(at + 1));
  if (/^-[A-Za-z]./.test(text)) candidates.push(text.slice(2));
  for (const c of candidates) {
    for (const cwd of places.cwds) {
      const p = pathOfText(c, ctx, cwd);
      if (p && within(p, ctx.scvHome)) return true;
    }
  }
  const spelled = ` ${text}`
    .replace(/([=:(,"'])~(?=\/|$)/g, `$1${ctx.home}`).replace(/^ ~(?=\/|$)/, ` ${ctx.home}`)
    .replace(/\$\{?HOME\}?(?=\/|$|[^A-Za-z0-9_])/g, ctx.home)
    .replace(/\/+/g, "/")
    .replace(/\/\.(?=\/)/g, "");
  const at = spelled.indexOf(ctx.scvHome);
  if (at >= 0 && !/[A-Za-z0-9._-]/.test(spelled[at + ctx.scvHome.length] ?? "")) return true;
  const name = posix.basename(ctx.scvHome);
  return places.unknown && name.startsWith(".") && text.split("/").includes(name);
}

/**
 * Whether a deleting command's target may be `/`, a home directory (any user's: `~`, `~USER`, `$HOME`, `/root`,
 * `/home/NAME`), a directory above one, or a top-level system directory, including through a pattern
 * (`/home/*`, `~/*`). A target only the shell could know (`~$(whoami)`, `"$DIR"`) counts: the guard cannot
 * prove it is not a home.
 */
function rootOrHome(w: Word, ctx: DestructiveContext, places: Places): boolean {
  const text = w.raw.replace(/["']/g, "");
  if (otherUsersHome(text, ctx) || /^~[^/A-Za-z0-9._-]/.test(text)) return true;
  if (computedWhole(text)) return true;
  if (!text.startsWith("/") && !/^[~$]/.test(text) && places.unknown && /^(?:\.{1,2}\/?|\*|\.\/\*)?$/.test(text)) return true;
  for (const cwd of places.cwds) {
    let p = pathOfText(text, ctx, cwd);
    if (p === undefined) continue;
    // A pattern: judged by the directory it lists (`/home/*` lists /home).
    while (w.glob && /[*?[]/.test(posix.basename(p)) && p !== "/") p = posix.dirname(p);
    if (isRootOrHomePath(p, ctx)) return true;
  }
  return false;
}

/** A word whose path ends in something only the shell knows, with no literal folder below it: `$X`, `"$D"/`, `$(echo ~)/*`. */
function computedWhole(text: string): boolean {
  const trimmed = text.replace(/(?:\/+\.?|\/\*)+$/, "");
  return /(?:\$[A-Za-z_][A-Za-z0-9_]*|\$[0-9@*#?$!-]|\$\{[^}]*\}|\$\(.*\)|`.*`|\$\[.*\])$/.test(trimmed) && !/^\$\{?(?:HOME|SCV_HOME|PWD)\}?\/./.test(trimmed);
}

export function isRootOrHomePath(p: string, ctx: PathContext): boolean {
  if (p === "/" || within(ctx.home, p) || within(ctx.scvHome, p)) return true;
  if (/^\/(?:home|Users)\/[^/]+$/.test(p) || p === "/root") return true;
  return SYSTEM_DIRS.some((d) => p === `/${d}`);
}

function describeTarget(w: Word, ctx: PathContext): string {
  const text = w.raw.replace(/["']/g, "");
  const p = pathOfText(text.replace(/\/\*$/, ""), ctx);
  if (p === undefined) return "a path only known when the shell runs it, which may be a home directory";
  if (p === ctx.home || /^(~|\$\{?HOME\}?)/.test(text)) return "your whole home directory";
  if (p === "/") return "the whole system";
  if (within(ctx.home, p)) return `${p}, which holds your home directory`;
  if (/^\/(?:home|Users)\/[^/]+$/.test(p) || p === "/root") return `the home directory ${p}`;
  return `the system directory ${p}`;
}
