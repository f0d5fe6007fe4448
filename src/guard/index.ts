// The command guard: classifies a `bash` command before approval, lexically (no shell runs to decide), into
// `allow` (proven literal and read-only: runs unasked), `prompt` (asks, as any process call) or `block` (a known
// destructive payload: refused whoever approves). It is containment, not a sandbox (docs/security.md).
import { destructiveReason } from "./destructive";
import { gitConfigProblem } from "./git-config";
import { textLoss, type LossContext } from "./loss";
import { parseOptions } from "./options";
import { normalPath, secretPath, within, type PathContext } from "./paths";
import { GREP_OPTIONS, grepRecursive, programList, type ProgramList } from "./programs";
import { NETWORK, REPO_CODE, suggestedPrefix, WRAPPERS } from "./offer";
import { matchingRule, prefixText, type PrefixRule } from "./rules";
import { tokenize, type SimpleCommand, type Word } from "./tokenize";

export type GuardDecision = "allow" | "prompt" | "block";

export interface GuardVerdict {
  decision: GuardDecision;
  reason: string;
  /** For `prompt`: the prefix a person could keep as a rule ("always allow commands starting with …"). */
  rulePrefix?: string[];
  /** How the call runs, set by the bash tool: `sandboxed (workspace-write, …)` or `not sandboxed: …` (src/sandbox). */
  sandbox?: string;
  /** Only a person's answer approves it: never a rule, auto_approve, a chat owner's auto-approval or approve-all. */
  personOnly?: boolean;
}

export interface GuardContext extends PathContext {
  /** The read-only list with the user's `[tools.guard]` additions and removals (default: the documented list). */
  programs?: ProgramList;
  /** Approval rules the person kept, and why the rule file was ignored if it was. */
  rules?: { rules: readonly PrefixRule[]; problem?: string };
  /** Why the repository's git config may run a program; defaults to reading it (git-config.ts). */
  gitConfig?: () => string | undefined;
}

const defaultPrograms = programList();

const FILE_REDIRECT_OK = new Set(["/dev/null"]);
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f]/;
/**
 * Characters a person reads as a shell operator or quote but bash reads as a letter: full-width and small-form
 * variants (`＆`, `；`, `﹔`, `｜`, `＞`, `＄`…), other line and paragraph separators.
 */
const LOOK_ALIKE = /[\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff5e\ufe50-\ufe6b\u2028\u2029\u0085\u037e\u2024\u2039\u203a\u2215\u2044\u29f8\u01c0\u2223\u2502]/;

const prompt = (reason: string, rulePrefix?: string[]): GuardVerdict => ({ decision: "prompt", reason, ...(rulePrefix ? { rulePrefix } : {}) });

export function classifyCommand(command: string, ctx: GuardContext): GuardVerdict {
  for (const reading of readings(command)) {
    const destructive = destructiveReason(reading, ctx);
    if (destructive) {
      return { decision: "block", reason: `refused: ${destructive}. SCV never runs this, whoever approves it; if you really mean it, run it yourself in a terminal.` };
    }
  }
  if (CONTROL.test(command)) return prompt("it contains control characters, so what the terminal shows may not be what runs");
  const lookAlike = LOOK_ALIKE.exec(command);
  if (lookAlike) return prompt(`it contains \`${lookAlike[0]}\` (U+${lookAlike[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}), which looks like a shell operator or quote but is an ordinary letter to bash`);
  const read = tokenize(command);
  if (!read.ok) return prompt(`could not read this command: ${read.reason}`);
  const { commands, operators, notes } = read.parsed;
  if (!commands.length) return prompt("could not read this command: it holds no command");
  const structural = notes[0] ?? structureProblem(operators);
  const verdicts = commands.map((c) => commandVerdict(c, ctx));
  const rulesNote = ctx.rules?.problem ? ` (your approval rules are not used: ${ctx.rules.problem})` : "";
  const unsafe = verdicts.find((v) => v.decision !== "allow");
  if (structural) return prompt(`it uses ${structural}${rulesNote}`);
  if (!unsafe) {
    const names = [...new Set(verdicts.map((v) => v.reason))];
    return { decision: "allow", reason: `literal and read-only: ${names.join(", ")}` };
  }
  // Rules: every command the list did not allow must be literal and start with a kept prefix.
  if (ctx.rules?.rules.length) {
    const ruled: string[] = [];
    const all = commands.every((c, i) => {
      if (verdicts[i]!.decision === "allow") return true;
      if (!isLiteral(c) || verdicts[i]!.credential || c.words.slice(1).some((w) => sensitive(w.value, ctx))) return false;
      const rule = matchingRule(ctx.rules!.rules, c.words.map((w) => w.value), ctx.workspace);
      if (rule) ruled.push(`\`${prefixText(rule.prefix)}\` (${rule.workspace ? "this workspace" : "every workspace"})`);
      return !!rule;
    });
    if (all) return { decision: "allow", reason: `matches your rule ${[...new Set(ruled)].join(", ")}` };
  }
  // A rule is offered only where one could match: a literal command that touches no credential path.
  const offer = commands.length === 1 && isLiteral(commands[0]!) && !commands[0]!.words.some((w) => sensitive(w.value, ctx)) ? suggestedPrefix(commands[0]!.words.map((w) => w.value)) : undefined;
  return prompt(`${unsafe.reason}${rulesNote}`, offer);
}

/**
 * Why auto mode (`[sandbox] auto_run`) must still ask: the command deletes or overwrites files in bulk, or names a
 * file rewind cannot bring back (loss.ts), in any reading of it. Nothing when it may run unasked in the sandbox.
 */
export function lossReason(command: string, ctx: LossContext): string | undefined {
  for (const reading of readings(command)) {
    const reason = textLoss(reading, ctx);
    if (reason) return reason;
  }
  return undefined;
}

/** The raw command, and the extra readings the checks also look at (normalisation only adds checks). */
export function readings(command: string): string[] {
  const stripped = command.replace(/\x1b\[[0-9;?]*[ -\/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b./g, "");
  const normalized = stripped
    .normalize("NFKC")
    .replace(/[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0]/g, "")
    .replace(/\$\{?IFS\}?/g, " ");
  const out = [command];
  if (stripped !== command) out.push(stripped);
  if (normalized !== stripped) out.push(normalized);
  return out;
}

function structureProblem(operators: string[]): string | undefined {
  for (const op of operators) {
    if (op === "&") return "`&` (runs something in the background)";
    if (op === "(" || op === ")") return "a subshell or group `( … )`";
    if (op === ";;" || op === ";&") return `\`${op}\` (a case branch)`;
  }
  return undefined;
}

/** One simple command: allow (reason: its name, such as `git status`) or prompt (reason: why). */
function commandVerdict(c: SimpleCommand, ctx: GuardContext): { decision: "allow" | "prompt"; reason: string; credential?: boolean } {
  const no = (reason: string, credential?: boolean) => ({ decision: "prompt" as const, reason, ...(credential ? { credential } : {}) });
  if (c.assignments.length) return no(`it sets ${c.assignments[0]!.raw.split("=")[0]} inline for the command`);
  const dynamic = c.words.find((w) => w.expansion);
  if (dynamic) return no(`it uses ${dynamic.expansion} (\`${dynamic.raw}\`), so what runs is only known when the shell runs it`);
  const globbed = c.words.find((w) => w.glob);
  if (globbed) return no(`\`${globbed.raw}\` is an unquoted pattern the shell expands to file names`);
  for (const r of c.redirects) {
    const problem = redirectProblem(r.op, r.target, ctx);
    if (problem) return no(problem);
  }
  if (!c.words.length) return no("it only redirects, which may create or empty a file");
  const program = c.words[0]!.value;
  if (program.includes("/")) return no(`it runs \`${program}\` by path, not a known read-only program by name`);
  if (!/^[A-Za-z0-9[][A-Za-z0-9._+-]*$/.test(program)) return no(`\`${program}\` is not a known read-only program`);
  const check = (ctx.programs ?? defaultPrograms).check(program);
  if (!check) return no(unknownProgram(program, c.words[1]?.value));
  const args = c.words.slice(1).map((w) => w.value);
  const problem = check(args);
  if (problem) return no(problem);
  const touched = c.words.slice(1).find((w) => sensitive(w.value, ctx));
  if (touched) return no(`it touches a credential path (\`${touched.value}\`)`, true);
  const home = searchesHome(program, args, ctx);
  if (home) return no(`it searches \`${home}\`, which holds your home directory's credential files`, true);
  if (program === "git") {
    const config = (ctx.gitConfig ?? (() => gitConfigProblem(ctx.workspace, ctx.home)))();
    if (config) return no(config);
    const sub = args.find((a) => !a.startsWith("-"));
    return { decision: "allow", reason: `git ${sub}` };
  }
  return { decision: "allow", reason: program };
}

function unknownProgram(program: string, first: string | undefined): string {
  if (WRAPPERS.has(program)) return `\`${program}\` changes directory or runs another command`;
  if (NETWORK.has(program)) return `\`${program}\` reaches the network`;
  if (REPO_CODE.has(program)) return `\`${program}${first && !first.startsWith("-") ? ` ${first}` : ""}\` may run the repository's code (scripts, tests, build files)`;
  return `\`${program}\` is not a known read-only program`;
}

function redirectProblem(op: string, target: Word | undefined, ctx: GuardContext): string | undefined {
  const t = target?.value ?? "";
  if (target?.expansion || target?.glob) return `the redirection \`${op} ${target.raw}\` uses ${target.expansion ?? "a pattern"}`;
  if (op === ">&" || op === "<&") {
    if (/^\d+-?$|^-$/.test(t)) return undefined;
    return `\`${op}${t}\` writes to a file`;
  }
  if (op === "<") {
    if (t.startsWith("/dev/") && t !== "/dev/null") return `it reads from the device \`${t}\``;
    if (sensitive(t, ctx)) return `it touches a credential path (\`${t}\`)`;
    return undefined;
  }
  if (op === "<<" || op === "<<-" || op === "<<<") return undefined; // reported as a note
  if ((op === ">" || op === ">>" || op === "&>" || op === "&>>" || op === ">|") && FILE_REDIRECT_OK.has(t)) return undefined;
  return `it writes to a file (\`${op} ${t}\`)`;
}

/** Programs that read file contents recursively: pointed at the home directory (or above) they read its credentials. */
const RECURSIVE_READERS = new Set(["grep", "egrep", "fgrep", "rg", "ag"]);

/**
 * Whether an argument names a credential path (paths.ts: normalised, judged by the file tools' list): the word
 * itself, a value after `=`, `:` or `@` (`--file=.env`, `HEAD:.env`), or a short option's attached value (`-f.env`).
 */
function sensitive(word: string, ctx: GuardContext): boolean {
  if (secretPath(word, ctx)) return true;
  if (word.startsWith("-") && !word.startsWith("--") && word.length > 2 && secretPath(word.slice(2), ctx)) return true;
  for (const sep of ["=", ":", "@"]) {
    const at = word.indexOf(sep);
    if (at >= 0 && secretPath(word.slice(at + 1), ctx)) return true;
  }
  return false;
}

/** A recursive search of the home directory, the SCV home or a directory above them (`grep -r KEY ~/..`, `rg x /`). */
function searchesHome(program: string, args: string[], ctx: GuardContext): string | undefined {
  if (!RECURSIVE_READERS.has(program)) return undefined;
  let operands = args.filter((a) => !a.startsWith("-"));
  if (program === "grep" || program === "egrep" || program === "fgrep") {
    const parsed = parseOptions(args, GREP_OPTIONS);
    if ("unknown" in parsed || !grepRecursive(parsed)) return undefined;
    // The first operand is the pattern unless -e or -f gave it.
    const patternGiven = parsed.options.some((o) => ["-e", "-f", "--regexp", "--file"].includes(o.name));
    operands = patternGiven ? parsed.operands : parsed.operands.slice(1);
  }
  // The user's home, SCV's home, any directory above them, and any user's home (`/home/bob`, `/root`).
  const holdsSecrets = (dir: string) => within(ctx.home, dir) || within(ctx.scvHome, dir) || /^\/(?:home|Users)(?:\/[^/]+)?$|^\/root$/.test(dir);
  const named = operands.find((a) => holdsSecrets(normalPath(a, ctx)));
  if (named) return named;
  // With no directory named it searches the working directory: the workspace, which may be the home itself.
  return holdsSecrets(ctx.workspace) ? "." : undefined;
}

/** No expansion, glob, inline variable or file redirection: what the words say is what runs. */
function isLiteral(c: SimpleCommand): boolean {
  if (c.assignments.length || !c.words.length) return false;
  if (c.words.some((w) => w.expansion || w.glob)) return false;
  return c.redirects.every((r) => (r.op === ">&" || r.op === "<&" ? /^\d+-?$|^-$/.test(r.target?.value ?? "") : /^[<>]$|^>>$|^&>$/.test(r.op) && r.target?.value === "/dev/null"));
}

export { suggestedPrefix } from "./offer";
export type { LossContext } from "./loss";
export { programList, type ProgramList } from "./programs";
export { addRule, loadRules, matchingRule, prefixText, removeRule, rulesFile, type PrefixRule, type RuleSet } from "./rules";
