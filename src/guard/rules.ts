// Approval rules a person keeps: "always allow commands starting with `npm test`", for one workspace or for
// every workspace. They live in $SCV_HOME/approval-rules.json, never inside a workspace, so a cloned repository
// cannot grant itself rules. A rule matches a command only word for word from its start, only when the command
// is literal (no substitution, expansion, glob, inline variable or file redirection), and never lifts `block`.
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { ensurePrivateDir, writePrivateFileAtomic } from "../fs/private-file";
import { suggestedPrefix } from "./offer";

export interface PrefixRule {
  id: string;
  /** The command's first words, as the shell would see them after quote removal. */
  prefix: string[];
  /** The workspace the rule is for; absent: every workspace. */
  workspace?: string;
  created_at: number;
}

export interface RuleSet {
  rules: PrefixRule[];
  /** The file exists but could not be used: its path and what is wrong. Its rules are ignored. */
  problem?: string;
}

const MAX_RULES_BYTES = 256 * 1024;

export function rulesFile(scvHome: string): string {
  return join(scvHome, "approval-rules.json");
}

/** The kept rules; a malformed file yields none and says why, so it can never widen what runs. */
export function loadRules(scvHome: string): RuleSet {
  const file = rulesFile(scvHome);
  let text: string;
  try {
    if (!existsSync(file)) return { rules: [] };
    const st = statSync(file);
    if (!st.isFile()) return { rules: [], problem: `${file} is not a regular file; approval rules are ignored` };
    if (st.size > MAX_RULES_BYTES) return { rules: [], problem: `${file} is larger than 256 KiB; approval rules are ignored` };
    text = readFileSync(file, "utf8");
  } catch (e) {
    return { rules: [], problem: `${file} could not be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); approval rules are ignored` };
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    return { rules: [], problem: `${file} is not valid JSON (${(e as Error).message}); approval rules are ignored until it is fixed or removed` };
  }
  const list = (data as { rules?: unknown })?.rules;
  if (!Array.isArray(list)) return { rules: [], problem: `${file} has no "rules" list; approval rules are ignored until it is fixed or removed` };
  const rules: PrefixRule[] = [];
  for (const [i, r] of list.entries()) {
    const problem = ruleProblem(r);
    if (problem) return { rules: [], problem: `${file}: rule ${i + 1} ${problem}; approval rules are ignored until it is fixed or removed` };
    rules.push(r as PrefixRule);
  }
  return { rules };
}

function ruleProblem(r: any): string | undefined {
  if (!r || typeof r !== "object") return "is not an object";
  if (typeof r.id !== "string" || !/^[a-z0-9]{1,32}$/.test(r.id)) return "has no valid id";
  if (!Array.isArray(r.prefix) || r.prefix.length === 0 || r.prefix.length > 16) return "needs a prefix of 1 to 16 words";
  if (!r.prefix.every((w: unknown) => typeof w === "string" && w.length > 0 && w.length <= 1024 && !/[\0\n]/.test(w))) return "has a prefix word that is not a non-empty one-line string";
  if (r.workspace !== undefined && (typeof r.workspace !== "string" || !r.workspace.startsWith("/"))) return "has a workspace that is not an absolute path";
  // Judged as a rule made through SCV is: a file written by anything else gets no wider rule than SCV offers.
  const offered = suggestedPrefix(r.prefix);
  if (!offered || offered.length !== r.prefix.length || offered.some((w, i) => w !== r.prefix[i])) {
    return `(${JSON.stringify(r.prefix)}) is not a rule SCV offers: a rule is a program and at most two subcommand words (\`npm test\`), never a bare interpreter, shell or wrapper`;
  }
  if (typeof r.created_at !== "number") return "has no created_at";
  return undefined;
}

/** Saves a rule (an identical one is not added twice). Refuses to touch a malformed file. */
export function addRule(scvHome: string, prefix: string[], workspace?: string): PrefixRule {
  const set = loadRules(scvHome);
  if (set.problem) throw new Error(set.problem);
  const same = set.rules.find((r) => r.workspace === workspace && r.prefix.join("\0") === prefix.join("\0"));
  if (same) return same;
  const id = new Bun.CryptoHasher("sha256").update(`${workspace ?? ""}\0${prefix.join("\0")}`).digest("hex").slice(0, 8);
  const rule: PrefixRule = { id, prefix, ...(workspace ? { workspace } : {}), created_at: Date.now() };
  save(scvHome, [...set.rules, rule]);
  return rule;
}

/** Removes the rule with this id; false when there is none. */
export function removeRule(scvHome: string, id: string): boolean {
  const set = loadRules(scvHome);
  if (set.problem) throw new Error(set.problem);
  const rest = set.rules.filter((r) => r.id !== id);
  if (rest.length === set.rules.length) return false;
  save(scvHome, rest);
  return true;
}

function save(scvHome: string, rules: PrefixRule[]) {
  ensurePrivateDir(scvHome);
  writePrivateFileAtomic(rulesFile(scvHome), `${JSON.stringify({ rules }, null, 2)}\n`);
}

/** The first rule for this workspace (or every workspace) whose prefix starts `words`. */
export function matchingRule(rules: readonly PrefixRule[], words: readonly string[], workspace: string): PrefixRule | undefined {
  return rules.find((r) => (!r.workspace || r.workspace === workspace) && r.prefix.length <= words.length && r.prefix.every((w, i) => words[i] === w));
}

export { prefixText } from "./prefix-text";
