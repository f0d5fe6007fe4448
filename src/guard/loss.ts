// What auto mode must not run unasked: a command that deletes or overwrites files in bulk, or names a file that
// rewind cannot bring back because checkpoints leave it out (secret-like, ignored, over the size cap, a symbolic
// link, outside the workspace). Read lexically, through the same wrappers, `bash -c` texts, here-documents fed to
// a shell and substitution bodies as the destructive check (destructive.ts); the file system is only asked
// whether a named file exists, how big it is and what the ignore files say about it.
import { lstatSync, realpathSync, statSync } from "node:fs";
import { posix } from "node:path";
import { ignoredInWorkspace } from "../fs/workspace-walk";
import { baseName, findParts, gitParts, innerTexts, longOption, MAX_DEPTH, placesOf, unwrapped, type Places } from "./destructive";
import { parseOptions, optionTable } from "./options";
import { pathOfText, secretPath, within, type PathContext } from "./paths";
import { SED_OPTIONS } from "./programs";
import { tokenize, type SimpleCommand, type Word } from "./tokenize";

export interface LossContext extends PathContext {
  /** What checkpoints record (`[checkpoints]`): with `enabled` false nothing; files over `max_file_bytes` are left out. */
  checkpoints?: { enabled: boolean; max_file_bytes: number };
}

const DEFAULT_MAX_FILE_BYTES = 16 * 1024 * 1024;
/** The call's private temporary directory (the sandbox's `/tmp` and `$TMPDIR`): gone after the call anyway. */
const PRIVATE_TMP = "/tmp";
const TRUNCATING = new Set([">", ">|", "&>"]);
const TRUNCATE_OPTIONS = optionTable("cor:s:", ["no-create", "io-blocks", "reference=", "size=", "help", "version"]);

const among = "and rewind cannot bring back the ignored, secret-like or large files among them";
const bulk = (does: string, what: string) => `it ${does} (\`${what}\`), ${among}`;

/** Why `text` deletes or overwrites what rewind may not bring back, or nothing (one reading; index.ts tries each). */
export function textLoss(text: string, ctx: LossContext, depth = 0): string | undefined {
  const parsed = tokenize(text);
  if (!parsed.ok) {
    // Unreadable as written: the quote-free text is read once more, as the destructive check does.
    const plain = text.replace(/["'\\]/g, "");
    return depth < MAX_DEPTH && plain !== text ? textLoss(plain, ctx, MAX_DEPTH) : undefined;
  }
  const places = placesOf(parsed.parsed.commands, ctx);
  for (const cmd of parsed.parsed.commands) {
    const words = unwrapped(cmd);
    const reason = redirectLoss(cmd, places, ctx) ?? (words.length ? commandLoss(words, cmd, places, ctx) : undefined);
    if (reason) return reason;
    if (depth < MAX_DEPTH && words.length) {
      for (const inner of innerTexts(baseName(words[0]!.value), words, cmd)) {
        const r = textLoss(inner, ctx, depth + 1);
        if (r) return r;
      }
    }
  }
  if (depth < MAX_DEPTH) {
    for (const nested of parsed.parsed.nested) {
      const r = textLoss(nested, ctx, depth + 1);
      if (r) return r;
    }
  }
  return undefined;
}

/** `>`, `>|`, `&>` (and `>&FILE`) onto a file that exists: it is emptied before the command writes. */
function redirectLoss(cmd: SimpleCommand, places: Places, ctx: LossContext): string | undefined {
  for (const r of cmd.redirects) {
    if (!r.target || !(TRUNCATING.has(r.op) || (r.op === ">&" && !/^\d+-?$|^-$/.test(r.target.value)))) continue;
    const reason = overwriteLoss(r.target, `${r.op} ${r.target.raw}`, places, ctx);
    if (reason) return reason;
  }
  return undefined;
}

/** A file a command empties or replaces whole: asks when it exists (or may), naming why rewind may not restore it. */
function overwriteLoss(w: Word, what: string, places: Places, ctx: LossContext): string | undefined {
  const paths = resolve(w, places, ctx);
  if (!paths) return `it overwrites \`${w.raw}\` (\`${what}\`), a path only known when the shell runs it, which may be a file rewind cannot bring back`;
  for (const p of paths) {
    if (!existingFile(p)) continue;
    const why = notRecorded(p, ctx);
    if (why) return `it overwrites \`${w.value}\` (\`${what}\`), which rewind cannot bring back (${why})`;
    return `it empties or overwrites the existing file \`${w.value}\` (\`${what}\`); auto mode asks before every truncation, as rewind cannot bring back ignored, secret-like or large files`;
  }
  return undefined;
}

/** A file a command deletes or changes by name: asks only when rewind could not bring it back. */
function namedLoss(does: string, w: Word, places: Places, ctx: LossContext, how = ""): string | undefined {
  const paths = resolve(w, places, ctx);
  if (!paths) return `it ${does} \`${w.raw}\`${how}, a path only known when the shell runs it, which may be a file rewind cannot bring back`;
  for (const p of paths) {
    const why = present(p) ? notRecorded(p, ctx) : undefined;
    if (why) return `it ${does} \`${w.value}\`${how}, which rewind cannot bring back (${why})`;
  }
  return undefined;
}

function commandLoss(words: Word[], cmd: SimpleCommand, places: Places, ctx: LossContext): string | undefined {
  const program = baseName(words[0]!.value);
  const args = words.slice(1);
  const values = args.map((w) => w.value);
  const files = operands(args);
  const short = (letters: string) => values.some((v) => new RegExp(`^-[A-Za-z]*[${letters}]`).test(v) && !v.startsWith("--"));
  switch (program) {
    case "rm":
    case "unlink": {
      // `xargs rm`, `find … | xargs -I{} rm {}`: the files come from its input, nobody has read them.
      const wrappers = cmd.words.slice(0, cmd.words.length - words.length).map((w) => baseName(w.value));
      if (wrappers.includes("xargs") || (!files.length && wrappers.length)) return bulk("deletes the files its input names", `${wrappers.includes("xargs") ? "xargs" : wrappers[0]} ${program}`);
      // Inside the sandbox `/tmp` is the call's own, removed after it: nothing there outlives the call.
      if (privateTmpOnly(files, places, ctx)) return undefined;
      const recursive = values.find((v) => longOption(v, "--recursive") || (/^-[A-Za-z]*[rR]/.test(v) && !v.startsWith("--")));
      if (recursive) return bulk("deletes files in bulk", `rm ${recursive}`);
      const pattern = files.find((w) => w.glob);
      if (pattern) return bulk("deletes files in bulk", `${program} ${pattern.raw}`);
      return firstOf(files, (w) => namedLoss("deletes", w, places, ctx));
    }
    case "find":
      return findParts(args).deletes && !privateTmpOnly(findParts(args).starts, places, ctx) ? bulk("deletes files in bulk", values.includes("-delete") ? "find -delete" : "find -exec rm") : undefined;
    case "git":
      return gitLoss(args, places, ctx);
    case "rsync": {
      const del = values.find((v) => v.startsWith("--del"));
      return del ? bulk("deletes files in bulk", `rsync ${del}`) : undefined;
    }
    case "shred":
      return "it overwrites files so that nothing, rewind included, can bring them back (`shred`)";
    case "truncate": {
      const parsed = parseOptions(values, TRUNCATE_OPTIONS);
      if ("unknown" in parsed) return bulk("empties or cuts files", "truncate");
      return firstOf(wordsOf(parsed.operands, args), (w) => overwriteLoss(w, "truncate", places, ctx));
    }
    case "dd": {
      const of = args.find((w) => w.value.startsWith("of="));
      return of ? overwriteLoss({ ...of, raw: of.raw.slice(of.raw.indexOf("=") + 1), value: of.value.slice(3) }, "dd of=", places, ctx) : undefined;
    }
    case "tee":
      return values.some((v) => longOption(v, "--append") || (/^-[A-Za-z]*a/.test(v) && !v.startsWith("--"))) ? undefined : firstOf(files, (w) => overwriteLoss(w, "tee", places, ctx));
    case "sed":
      return sedLoss(args, places, ctx);
    case "cp":
    case "mv": {
      // No overwrite (-n, --no-clobber, --update=none), a backup kept (-b), or a target directory named apart: nothing replaced here.
      if (short("nbt") || values.some((v) => longOption(v, "--no-clobber") || longOption(v, "--backup") || longOption(v, "--target-directory") || v === "--update=none")) return undefined;
      return copyLoss(program, files, places, ctx);
    }
  }
  return undefined;
}

/** git subcommands that delete files or discard uncommitted changes in bulk. */
function gitLoss(args: Word[], places: Places, ctx: LossContext): string | undefined {
  const { at } = gitParts(args);
  const sub = args[at]?.value;
  const rest = args.slice(at + 1).map((w) => w.value);
  const has = (long: string, letter?: string) => rest.some((v) => longOption(v, long) || (letter !== undefined && new RegExp(`^-[A-Za-z]*${letter}`).test(v) && !v.startsWith("--")));
  const discards = (what: string) => bulk("discards uncommitted changes to files", what);
  switch (sub) {
    case "clean":
      return has("--dry-run", "n") ? undefined : bulk("deletes files git does not track", `git clean${rest.length ? ` ${rest.join(" ")}` : ""}`);
    case "reset":
      return rest.includes("--hard") ? discards("git reset --hard") : undefined;
    case "checkout": {
      // Paths after `--`, a path such as `.`, or --force: the work tree's changes are overwritten. A branch switch is
      // refused by git itself when it would overwrite a change.
      const dashes = rest.indexOf("--");
      if (dashes >= 0 && dashes < rest.length - 1) return discards(`git checkout ${rest.join(" ")}`);
      if (has("--force", "f")) return discards("git checkout --force");
      const path = operands(args.slice(at + 1)).find((w) => /^(?:\.|:.*|.*\/)$/.test(w.value) || resolve(w, places, ctx)?.some(present));
      return path ? discards(`git checkout ${path.value}`) : undefined;
    }
    case "restore":
      return has("--worktree", "W") || !has("--staged", "S") ? discards(`git restore ${rest.join(" ")}`) : undefined;
    case "switch":
      return has("--discard-changes") || has("--force", "f") ? discards("git switch --discard-changes") : undefined;
    case "stash":
      return has("--include-untracked", "u") || has("--all", "a") ? bulk("removes untracked files from the work tree", `git stash ${rest.join(" ")}`) : undefined;
    case "rm":
      return has("--force", "f") ? bulk("deletes files and their uncommitted changes", `git rm ${rest.join(" ")}`) : undefined;
  }
  return undefined;
}

/** `sed -i` (without a backup suffix) on a file checkpoints leave out. */
function sedLoss(args: Word[], places: Places, ctx: LossContext): string | undefined {
  const parsed = parseOptions(args.map((w) => w.value), SED_OPTIONS);
  if ("unknown" in parsed) return undefined; // the guard asks about it anyway; nothing to say about loss
  const inPlace = parsed.options.find((o) => o.name === "-i" || o.name === "--in-place");
  if (!inPlace || inPlace.value) return undefined;
  const scriptGiven = parsed.options.some((o) => ["-e", "--expression", "-f", "--file"].includes(o.name));
  const names = scriptGiven ? parsed.operands : parsed.operands.slice(1);
  return firstOf(wordsOf(names, args), (w) => namedLoss("rewrites", w, places, ctx));
}

/** The words the parsed operands came from (by their text), so their quoting and expansions are known. */
function wordsOf(values: string[], args: Word[]): Word[] {
  return values.map((v) => args.find((w) => w.value === v) ?? { raw: v, value: v, quoted: false, glob: false });
}

/** `cp`/`mv` onto an existing file checkpoints leave out, and `mv` of such a file out of the workspace. */
function copyLoss(program: string, files: Word[], places: Places, ctx: LossContext): string | undefined {
  if (files.length < 2) return undefined;
  const target = files.at(-1)!;
  const sources = files.slice(0, -1);
  const targets = resolve(target, places, ctx);
  if (!targets) return `it ${program === "mv" ? "moves" : "copies"} onto \`${target.raw}\`, a path only known when the shell runs it, which may be a file rewind cannot bring back`;
  for (const t of targets) {
    const isDir = directory(t);
    if (program === "mv" && !within(t, ctx.workspace)) {
      // A folder or a pattern moved out takes whatever lies in it, ignored and secret-like files included.
      const folder = sources.find((w) => w.glob || resolve(w, places, ctx)?.some(directory));
      if (folder) return bulk("moves files in bulk out of the workspace", `mv ${folder.raw} ${target.raw}`);
      const out = firstOf(sources, (w) => namedLoss("moves", w, places, ctx, ` out of the workspace (to ${target.value})`));
      if (out) return out;
    }
    const replaced = isDir ? sources.map((s) => ({ ...target, value: posix.join(target.value, posix.basename(s.value)), raw: posix.join(target.raw, posix.basename(s.value)) })) : [target];
    const reason = firstOf(replaced, (w) => {
      const p = resolve(w, places, ctx);
      return p?.some(existingFile) ? namedLoss("replaces", w, places, ctx, ` (\`${program}\`)`) : undefined;
    });
    if (reason) return reason;
  }
  return undefined;
}

/**
 * Why checkpoints do not record an existing path, so rewind cannot bring it back; nothing when they do. The same
 * rules as checkpoints/scan.ts: secret-like paths, what `.gitignore`/`.ignore` exclude, files over the size cap and
 * symbolic links are left out; only the workspace is recorded; nothing is when checkpoints are off.
 */
export function notRecorded(abs: string, ctx: LossContext): string | undefined {
  if (ctx.checkpoints && !ctx.checkpoints.enabled) return "checkpoints are off: [checkpoints] enabled = false";
  if (!within(abs, ctx.workspace) || !within(realParent(abs), realParent(`${ctx.workspace}/x`))) {
    return within(abs, PRIVATE_TMP) ? undefined : "outside the workspace: checkpoints record only the workspace";
  }
  if (abs === ctx.workspace) return "the workspace itself";
  if (secretPath(abs, ctx)) return "secret-like: checkpoints never copy it";
  const st = statOf(abs, false);
  if (!st) return undefined;
  if (ignoredInWorkspace(ctx.workspace, abs.slice(ctx.workspace.length + 1), st.isDirectory())) return "excluded by .gitignore or .ignore: checkpoints leave it out";
  if (st.isSymbolicLink()) return "a symbolic link: checkpoints do not record links";
  const max = ctx.checkpoints?.max_file_bytes ?? DEFAULT_MAX_FILE_BYTES;
  if (st.isFile() && st.size > max) return `over ${size(max)}: checkpoints leave it out ([checkpoints] max_file_bytes)`;
  return undefined;
}

/** Words that all name places in the call's private `/tmp` (outside the workspace); false for none. */
function privateTmpOnly(ws: Word[], places: Places, ctx: LossContext): boolean {
  return ws.length > 0 && ws.every((w) => resolve(w, places, ctx)?.every((p) => within(p, PRIVATE_TMP) && !within(p, ctx.workspace)) ?? false);
}

/** Every path a word may name (one per place a `cd` may lead), or undefined when only the shell could know it. */
function resolve(w: Word, places: Places, ctx: LossContext): string[] | undefined {
  const text = w.raw.replace(/["']/g, "").replace(/^\$\{?TMPDIR\}?(?=\/|$)/, PRIVATE_TMP);
  if (!text.startsWith("/") && places.unknown) return undefined;
  const out: string[] = [];
  for (const cwd of places.cwds) {
    const p = pathOfText(text, ctx, cwd);
    if (p === undefined) return undefined;
    if (!within(p, "/dev") && !out.includes(p)) out.push(p);
  }
  return out;
}

/** The words after the options (all of them after `--`). */
function operands(args: Word[]): Word[] {
  const dashes = args.findIndex((w) => w.value === "--");
  const before = dashes < 0 ? args : args.slice(0, dashes);
  return [...before.filter((w) => !w.value.startsWith("-") || w.value === "-"), ...(dashes < 0 ? [] : args.slice(dashes + 1))];
}

function firstOf<T>(items: T[], f: (item: T) => string | undefined): string | undefined {
  for (const item of items) {
    const r = f(item);
    if (r) return r;
  }
  return undefined;
}

/** The path's status (through a final symbolic link with `follow`), or nothing when there is nothing there. */
function statOf(p: string, follow: boolean) {
  try {
    return follow ? statSync(p) : lstatSync(p);
  } catch {
    return undefined;
  }
}

const present = (p: string) => statOf(p, false) !== undefined;
const existingFile = (p: string) => statOf(p, true)?.isFile() ?? false;
const directory = (p: string) => statOf(p, true)?.isDirectory() ?? false;

/** The real path of a path's folder (links above it followed), or the folder as written when it does not exist. */
function realParent(p: string): string {
  const dir = posix.dirname(p);
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}

function size(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}
