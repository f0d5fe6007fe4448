// A command made only of git commands (`git add -A && git commit -m "fix; tidy"`), read lexically. The bash tool
// runs such a command inside the sandbox with `.git`'s data writable and the parts git runs programs from
// read-only (src/sandbox), or, where this machine cannot keep those parts read-only, outside the sandbox with a
// person's approval only. Either way the options that make git run a program, or work on another repository,
// keep it asking with that reason on the card.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gitConfigProblem } from "./git-config";
import { tokenize, type SimpleCommand, type Word } from "./tokenize";

export interface GitCommand {
  /** Some part writes the repository (anything but a known read-only subcommand). */
  writes: boolean;
  /** `git init` or `git clone`: it makes a repository. */
  creates: boolean;
  /** Why an option or subcommand makes git run a program or reach another repository; undefined when none does. */
  runsProgram?: string;
}

/** Subcommands that only read the repository. */
const READS = new Set([
  "status", "log", "diff", "show", "blame", "annotate", "grep", "ls-files", "ls-tree", "rev-parse", "rev-list", "describe", "shortlog",
  "cat-file", "whatchanged", "diff-tree", "diff-files", "diff-index", "for-each-ref", "show-ref", "name-rev", "merge-base", "version", "help",
  "check-ignore", "check-attr", "count-objects", "var", "cherry", "range-diff", "verify-commit", "verify-tag", "ls-remote",
]);
/** Subcommands whose whole purpose is to run another program or serve the repository. */
const RUNS = new Set([
  "submodule", "bisect", "filter-branch", "difftool", "mergetool", "daemon", "instaweb", "send-email", "credential", "credential-store",
  "credential-cache", "hook", "upload-pack", "receive-pack", "upload-archive", "shell", "svn", "p4", "cvsimport", "cvsserver", "archimport",
  "fsmonitor--daemon", "web--browse", "config", "remote-ext", "remote-fd",
]);
/** Options before the subcommand that change what git reads or where it works. */
const GLOBAL = /^(?:-c|--config-env|--exec-path|-C|--git-dir|--work-tree|--super-prefix|--namespace)(?:=|$)/;
/** Options of any subcommand that run a program, or set config in a repository being made. */
const RUNNING_OPTIONS = /^(?:--upload-pack|--receive-pack|--exec|--template|--extcmd|--tool|--config|--separate-git-dir|--open-files-in-pager|--ext-diff)(?:=|$)/;
/** Short options that run a program for these subcommands: `rebase -x CMD`, `clone -u PROG`, `grep -O`, `difftool -t`. */
const RUNNING_SHORT: Record<string, RegExp> = { rebase: /^-[a-zA-Z]*x/, clone: /^-[a-zA-Z]*[uc]/, "ls-remote": /^-u/, grep: /^-O/, pull: /^-u$/ };
/** Programs a substitution inside a git argument may run (a commit message from a here-document). */
const MESSAGE_PROGRAMS = new Set(["cat", "echo", "printf"]);

/** The command as git commands only, or undefined when anything else is in it (another program, a pipe, a glob). */
export function gitCommandOf(command: string): GitCommand | undefined {
  const read = tokenize(command);
  if (!read.ok) return undefined;
  const { commands, operators, notes, nested } = read.parsed;
  if (!commands.length || notes.length || operators.some((op) => !["&&", "||", ";"].includes(op))) return undefined;
  if (!nested.every(messageOnly)) return undefined;
  let writes = false;
  let creates = false;
  let runsProgram: string | undefined;
  for (const c of commands) {
    if (!plainGit(c)) return undefined;
    const args = c.words.slice(1).map((w) => w.value);
    const at = args.findIndex((a) => !a.startsWith("-"));
    const globalOption = args.slice(0, at < 0 ? args.length : at).find((a) => GLOBAL.test(a));
    const sub = at < 0 ? undefined : args[at]!;
    runsProgram ??= globalOption ? `\`git ${globalOption.split("=")[0]}\` changes what git reads or where it works` : undefined;
    if (!sub) continue;
    const rest = args.slice(at + 1);
    if (RUNS.has(sub)) runsProgram ??= `\`git ${sub}\` runs other programs or changes git's config`;
    const option = rest.find((a) => RUNNING_OPTIONS.test(a) || RUNNING_SHORT[sub]?.test(a));
    if (option) runsProgram ??= `\`git ${sub} ${option.split("=")[0]}\` makes git run a program or set up a repository's config`;
    if (sub === "init" || sub === "clone") creates = true;
    if (!READS.has(sub)) writes = true;
  }
  return { writes, creates, ...(runsProgram ? { runsProgram } : {}) };
}

/** `git` by name, no inline variables, no unquoted pattern, redirections only to /dev/null or between descriptors. */
function plainGit(c: SimpleCommand): boolean {
  if (c.assignments.length || c.words[0]?.value !== "git" || c.words[0].raw !== "git") return false;
  if (c.words.some((w) => w.glob || (w.expansion && !quotedSubstitution(w)))) return false;
  return c.redirects.every((r) => (r.op === ">&" || r.op === "<&" ? /^\d+-?$|^-$/.test(r.target?.value ?? "") : r.target?.value === "/dev/null"));
}

/** A quoted `"$(…)"`: one word whatever it prints, its body checked by messageOnly. */
const quotedSubstitution = (w: Word) => w.expansion === "command substitution" && w.raw.startsWith('"') && w.raw.endsWith('"');

/** A substitution's body that only prints text: `cat <<'EOF' … EOF`, `echo`, `printf`. */
function messageOnly(text: string): boolean {
  const read = tokenize(text);
  if (!read.ok || read.parsed.nested.length || read.parsed.operators.some((op) => op !== ";")) return false;
  return read.parsed.commands.every(
    (c) => !c.assignments.length && MESSAGE_PROGRAMS.has(c.words[0]?.value ?? "") && !c.words.some((w) => w.expansion || w.glob) && c.redirects.every((r) => r.op.startsWith("<<")),
  );
}

/**
 * What a git command run outside the sandbox would also run, for the card: the repository's config naming a
 * program (git-config.ts) and the hooks a commit or merge runs (`.git/hooks`, or `core.hooksPath` in the config).
 */
export function gitOutsideRisks(workspace: string, home: string): string[] {
  const out: string[] = [];
  const config = gitConfigProblem(workspace, home);
  if (config) out.push(config);
  let hooksPath: string | undefined;
  try {
    hooksPath = /^\s*hookspath\s*=\s*(.+?)\s*$/im.exec(readFileSync(join(workspace, ".git", "config"), "utf8"))?.[1];
  } catch {
    // no config: no hooksPath
  }
  if (hooksPath) out.push(`the repository's config sets core.hooksPath = ${hooksPath}: git runs the hooks there`);
  try {
    const dir = join(workspace, ".git", "hooks");
    const active = readdirSync(dir).filter((n) => !n.endsWith(".sample") && (statSync(join(dir, n)).mode & 0o111) !== 0);
    if (active.length) out.push(`git runs the repository's hooks (${active.slice(0, 5).join(", ")}${active.length > 5 ? ", …" : ""})`);
  } catch {
    // no hooks folder
  }
  return out;
}
