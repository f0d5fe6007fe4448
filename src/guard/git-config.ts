// What a repository's own git configuration can make a read-only git command run. SCV reads the repository's
// config files (and the files they include) lexically, the way git would find them, and reports the first key
// that names a program, a pager, a filter, a diff driver or an external diff. The guard then asks instead of
// running `git status` unasked: a cloned hostile repository cannot turn it into a program run. Git runs in every
// submodule too, so each submodule's git directory (under .git/modules, or a checked-out submodule's own .git)
// is read the same way, and a partial clone's promisor remote (which makes reads fetch over the network) asks.
// Every file is opened without blocking, so a FIFO planted at .git/commondir cannot hang SCV (nor keep SIGTERM
// from working), and anything that is not a regular file is reported. The user's own ~/.gitconfig and
// /etc/gitconfig are the user's choice and are not read.
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync, statSync } from "node:fs";
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
/** Keys that make a read fetch over the network: a partial clone fetches missing objects from its promisor remote. */
const PROMISOR = /^extensions\.partialclone$|^remote\..+\.(promisor|partialclonefilter)$/;
/** Values that leave a dangerous-sounding key harmless (git's own built-in fsmonitor, a disabled signature check). */
const HARMLESS = /^(false|no|off|0|)$/i;
const MAX_INCLUDE_DEPTH = 5;
const MAX_CONFIG_BYTES = 1024 * 1024;
/** Git directories read at most (the repository's and its submodules'); a repository with more asks. */
const MAX_GIT_DIRS = 64;

type Read = { text: string } | { problem: string } | undefined;

/** A small file read without blocking: undefined when missing, a problem when it is not a regular file or too large. */
function readGitFile(file: string, limit = MAX_CONFIG_BYTES): Read {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    return { problem: `${file} could not be read (${code ?? (e as Error).message})` };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { problem: `${file} is not a regular file (${kind(st)}); git would read it, so SCV cannot vouch for what git does here` };
    if (st.size > limit) return { problem: `${file} is larger than ${Math.round(limit / 1024)} KiB` };
    const buf = Buffer.alloc(st.size);
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, got);
      if (n <= 0) break;
      got += n;
    }
    return { text: buf.subarray(0, got).toString("utf8") };
  } catch (e) {
    return { problem: `${file} could not be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})` };
  } finally {
    closeSync(fd);
  }
}

function kind(st: import("node:fs").Stats): string {
  return st.isFIFO() ? "a FIFO" : st.isDirectory() ? "a directory" : st.isSocket() ? "a socket" : "a device";
}

/** The git directory that commands run in `cwd` would use: the nearest `.git` directory or `gitdir:` file. */
export function findGitDir(cwd: string): string | undefined {
  const found = findGitDirOrProblem(cwd);
  return typeof found === "string" ? found : undefined;
}

function findGitDirOrProblem(cwd: string): string | { problem: string } | undefined {
  for (let dir = cwd; ; dir = dirname(dir)) {
    const found = gitDirAt(dir);
    if (found) return found;
    if (dirname(dir) === dir) return undefined;
  }
}

/** The git directory of a work tree at `dir`: its `.git` directory, or the `gitdir:` its `.git` file names. */
function gitDirAt(dir: string): string | { problem: string } | undefined {
  const dotGit = join(dir, ".git");
  let st;
  try {
    st = statSync(dotGit);
  } catch {
    return undefined;
  }
  if (st.isDirectory()) return dotGit;
  const read = readGitFile(dotGit, 4096);
  if (!read) return undefined;
  if ("problem" in read) return read;
  const m = /^gitdir:\s*(.+?)\s*$/m.exec(read.text);
  return m ? resolve(dir, m[1]!) : undefined;
}

/**
 * Why git's configuration in the repository around `cwd`, or in any of its submodules, may run a program or
 * reach the network, or nothing. Files that exist but cannot be read are reported too: what is not read cannot
 * be vouched for.
 */
export function gitConfigProblem(cwd: string, home: string): string | undefined {
  const found = findGitDirOrProblem(cwd);
  if (!found) return undefined;
  if (typeof found !== "string") return found.problem;
  const dirs = gitDirs(found, dirname(found));
  if (typeof dirs === "string") return dirs;
  for (const gitDir of dirs) {
    const problem = gitDirProblem(gitDir, home, gitDir === found ? undefined : dirname(found));
    if (problem) return gitDir === found ? problem : `in the submodule at ${gitDir}: ${problem}`;
  }
  return undefined;
}

/** The repository's git directory and every submodule's: under .git/modules, and checked-out ones named in .gitmodules. */
function gitDirs(top: string, workTree: string): string[] | string {
  const out = [top];
  const common = readCommonDir(top);
  if (typeof common === "object") return common.problem;
  const pending = [join(common ?? top, "modules")];
  const tooMany = `the repository has more than ${MAX_GIT_DIRS} submodule git directories; SCV does not read them all, so it cannot vouch for what git runs`;
  while (pending.length) {
    const dir = pending.pop()!;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (!e.isDirectory()) continue;
      const sub = join(dir, e.name);
      // A submodule's git directory holds HEAD; a name with slashes is folders on the way to one.
      if (existsQuietly(join(sub, "HEAD"))) out.push(sub);
      pending.push(sub);
      if (out.length + pending.length > MAX_GIT_DIRS * 4 || out.length > MAX_GIT_DIRS) return tooMany;
    }
  }
  const gitmodules = readGitFile(join(workTree, ".gitmodules"));
  if (gitmodules && "problem" in gitmodules) return gitmodules.problem;
  for (const { key, value } of gitmodules ? configEntries(gitmodules.text) : []) {
    if (!/^submodule\..+\.path$/.test(key) || !value) continue;
    const sub = gitDirAt(resolve(workTree, value));
    if (sub && typeof sub === "object") return sub.problem;
    if (sub && !out.includes(sub)) out.push(sub);
    if (out.length > MAX_GIT_DIRS) return tooMany;
  }
  return out;
}

function existsQuietly(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

/** One git directory: its config files (and the common directory's, for a worktree) and its read-time hooks. */
function gitDirProblem(gitDir: string, home: string, superWorkTree?: string): string | undefined {
  const files = [join(gitDir, "config"), join(gitDir, "config.worktree")];
  const commonDir = readCommonDir(gitDir);
  if (typeof commonDir === "object") return commonDir.problem;
  if (commonDir) files.push(join(commonDir, "config"), join(commonDir, "config.worktree"));
  const seen: Seen = superWorkTree ? { gitDir, superWorkTree } : {};
  for (const file of files) {
    const problem = fileProblem(file, home, 0, seen);
    if (problem) return problem;
  }
  return hookProblem(seen.hooksPath ? resolve(dirname(gitDir), seen.hooksPath.replace(/^~(?=\/)/, home)) : join(commonDir ?? gitDir, "hooks"));
}

/** What the config files said that matters after reading them all. */
interface Seen {
  hooksPath?: string;
  /** For a submodule's git directory: its own path and the superproject's work tree. */
  gitDir?: string;
  superWorkTree?: string;
}

/** A submodule's `core.worktree` (git writes one) that leads back into the superproject's work tree. */
function ownSubmoduleWorkTree(key: string, value: string, seen: Seen): boolean {
  if (key !== "core.worktree" || !seen.gitDir || !seen.superWorkTree) return false;
  const to = resolve(seen.gitDir, value);
  return to.startsWith(`${seen.superWorkTree}/`) && !to.startsWith(`${seen.superWorkTree}/.git/`) && !to.split("/").includes(".git");
}

/**
 * Hooks a read-only command can run: `post-index-change` runs when `git status` or `git diff` refreshes the
 * index. A clone brings no hooks, but an unpacked archive or a hooks path in the repository can.
 */
const READ_HOOKS = ["post-index-change"];
function hookProblem(dir: string): string | undefined {
  for (const hook of READ_HOOKS) {
    if (existsQuietly(join(dir, hook))) return `the repository has a ${hook} hook (${join(dir, hook)}), which git status and git diff can run`;
  }
  return undefined;
}

/** A worktree's `commondir` (read without blocking): the shared git directory, nothing, or why it cannot be read. */
function readCommonDir(gitDir: string): string | { problem: string } | undefined {
  const read = readGitFile(join(gitDir, "commondir"), 4096);
  if (!read) return undefined;
  if ("problem" in read) return read;
  const text = read.text.trim();
  return text ? resolve(gitDir, text) : undefined;
}

function fileProblem(file: string, home: string, depth: number, seen: Seen): string | undefined {
  const read = readGitFile(file);
  if (!read) return undefined;
  if ("problem" in read) return read.problem;
  for (const { key, value } of configEntries(read.text)) {
    if (key === "include.path" || /^includeif\..*\.path$/.test(key)) {
      if (depth >= MAX_INCLUDE_DEPTH) return `${file} nests includes deeper than ${MAX_INCLUDE_DEPTH}`;
      const included = value.startsWith("~/") ? join(home, value.slice(2)) : isAbsolute(value) ? value : resolve(dirname(file), value);
      const problem = fileProblem(included, home, depth + 1, seen);
      if (problem) return problem;
      continue;
    }
    if (key === "core.hookspath") seen.hooksPath = value;
    if (key.endsWith(".unreadable-line")) return `${file} has a line SCV cannot read as git config: it cannot vouch for what git would do`;
    if (PROMISOR.test(key) && !HARMLESS.test(value)) {
      return `the repository's git config (${file}) sets ${key}: it is a partial clone, so reading a missing object fetches it over the network`;
    }
    if (DANGEROUS.some((re) => re.test(key)) && !(HARMLESS.test(value) || key === "core.fsmonitor" && /^true$/i.test(value) || ownSubmoduleWorkTree(key, value, seen))) {
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
