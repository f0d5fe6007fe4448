// What a repository's own git configuration can make a read-only git command run. SCV reads the repository's
// config files (and the files they include) lexically, the way git would find them, and reports the first key
// that names a program, a pager, a filter, a diff driver or an external diff. The guard then asks instead of
// running `git status` unasked: a cloned hostile repository cannot turn it into a program run. The user's own
// ~/.gitconfig and /etc/gitconfig are the user's choice and are not read.
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";

/** Keys (lowercase, subsection kept) that make git run a program or change how read commands behave. */
const DANGEROUS = [
  /^core\.(fsmonitor|pager|sshcommand|gitproxy|askpass|editor|alternaterefscommand|worktree)$/,
  /^pager\./,
  /^diff\.external$/,
  /^diff\..+\.(textconv|command)$/,
  /^filter\./,
  /^gpg\./,
  /^log\.showsignature$/,
  /^credential\./,
  /^interactive\.difffilter$/,
  /^sequence\.editor$/,
  /^uploadpack\./,
  /^merge\..+\.driver$/,
  /^remote\..+\.(uploadpack|receivepack|proxy|vcs)$/,
  /^status\.submodulesummary$/,
];
/** Values that leave a dangerous-sounding key harmless (git's own built-in fsmonitor, a disabled signature check). */
const HARMLESS = /^(false|no|off|0|)$/i;
const MAX_INCLUDE_DEPTH = 5;
const MAX_CONFIG_BYTES = 1024 * 1024;

/** The git directory that commands run in `cwd` would use: the nearest `.git` directory or `gitdir:` file. */
export function findGitDir(cwd: string): string | undefined {
  for (let dir = cwd; ; dir = dirname(dir)) {
    const dotGit = join(dir, ".git");
    try {
      const st = statSync(dotGit);
      if (st.isDirectory()) return dotGit;
      if (st.isFile()) {
        const m = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, "utf8").slice(0, 4096));
        if (m) return resolve(dir, m[1]!);
      }
    } catch {
      // not here: look further up
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * Why git's configuration in the repository around `cwd` may run a program, or nothing. Files that exist but
 * cannot be read are reported too: what is not read cannot be vouched for.
 */
export function gitConfigProblem(cwd: string, home: string): string | undefined {
  const gitDir = findGitDir(cwd);
  if (!gitDir) return undefined;
  const files = [join(gitDir, "config"), join(gitDir, "config.worktree")];
  const commonDir = readCommonDir(gitDir);
  if (commonDir) files.push(join(commonDir, "config"), join(commonDir, "config.worktree"));
  const seen: Seen = {};
  for (const file of files) {
    const problem = fileProblem(file, home, 0, seen);
    if (problem) return problem;
  }
  return hookProblem(seen.hooksPath ? resolve(dirname(gitDir), seen.hooksPath.replace(/^~(?=\/)/, home)) : join(commonDir ?? gitDir, "hooks"));
}

/** What the config files said that matters after reading them all. */
interface Seen {
  hooksPath?: string;
}

/**
 * Hooks a read-only command can run: `post-index-change` runs when `git status` or `git diff` refreshes the
 * index. A clone brings no hooks, but an unpacked archive or a hooks path in the repository can.
 */
const READ_HOOKS = ["post-index-change"];
function hookProblem(dir: string): string | undefined {
  for (const hook of READ_HOOKS) {
    if (existsSync(join(dir, hook))) return `the repository has a ${hook} hook (${join(dir, hook)}), which git status and git diff can run`;
  }
  return undefined;
}

function readCommonDir(gitDir: string): string | undefined {
  try {
    const text = readFileSync(join(gitDir, "commondir"), "utf8").trim();
    return text ? resolve(gitDir, text) : undefined;
  } catch {
    return undefined;
  }
}

function fileProblem(file: string, home: string, depth: number, seen: Seen): string | undefined {
  let text: string;
  try {
    if (!existsSync(file)) return undefined;
    const st = statSync(file);
    if (!st.isFile()) return `${file} is not a regular file`;
    if (st.size > MAX_CONFIG_BYTES) return `${file} is larger than 1 MiB`;
    text = readFileSync(file, "utf8");
  } catch (e) {
    return `${file} could not be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
  }
  for (const { key, value } of configEntries(text)) {
    if (key === "include.path" || /^includeif\..*\.path$/.test(key)) {
      if (depth >= MAX_INCLUDE_DEPTH) return `${file} nests includes deeper than ${MAX_INCLUDE_DEPTH}`;
      const included = value.startsWith("~/") ? join(home, value.slice(2)) : isAbsolute(value) ? value : resolve(dirname(file), value);
      const problem = fileProblem(included, home, depth + 1, seen);
      if (problem) return problem;
      continue;
    }
    if (key === "core.hookspath") seen.hooksPath = value;
    if (key.endsWith(".unreadable-line")) return `${file} has a line SCV cannot read as git config: it cannot vouch for what git would do`;
    if (DANGEROUS.some((re) => re.test(key)) && !(HARMLESS.test(value) || key === "core.fsmonitor" && /^true$/i.test(value))) {
      return `the repository's git config (${file}) sets ${key}, which can make git run a program`;
    }
  }
  return undefined;
}

/** `section.subsection.key` (section and key lowercased) and value for each entry of a git config file. */
export function configEntries(text: string): { key: string; value: string }[] {
  const out: { key: string; value: string }[] = [];
  let section = "";
  for (const rawLine of text.replace(/\\\r?\n/g, "").split(/\r?\n/)) {
    let line = rawLine.trim();
    if (!line || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\](.*)$/.exec(line);
    if (header) {
      const [, name, sub] = header;
      const dotted = name!.split(".");
      section = sub !== undefined ? `${name!.toLowerCase()}.${sub.replace(/\\(.)/g, "$1")}` : dotted.length > 1 ? `${dotted[0]!.toLowerCase()}.${dotted.slice(1).join(".")}` : name!.toLowerCase();
      line = header[3]!.trim();
      if (!line || line.startsWith("#") || line.startsWith(";")) continue;
    }
    const entry = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line);
    if (!entry) {
      // A line git would refuse: it cannot be proven harmless, so it counts as a setting.
      out.push({ key: `${section}.unreadable-line`, value: line });
      continue;
    }
    const value = (entry[2] ?? "true").replace(/\s[#;].*$/, "").replace(/^"(.*)"$/, "$1").trim();
    out.push({ key: `${section}.${entry[1]!.toLowerCase()}`, value });
  }
  return out;
}
