// A git worktree per background delegation: a new branch from the repository's HEAD, checked out under
// $SCV_HOME/worktrees (outside the person's tree, so it shows up nowhere in their files), a record of it beside,
// and afterwards a report (branch, commits, diff summary), a merge into the current branch that applies all or
// nothing (a conflict is aborted and reported), a discard, and a reconcile that removes what a dead job left
// with nothing unmerged. Plain git commands, each bounded in time.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { writePrivateFileAtomic } from "../fs/private-file";

export interface WorktreeRecord {
  job: string;
  session: string;
  /** The repository's top directory (the main worktree). */
  repo: string;
  path: string;
  branch: string;
  /** The commit the branch started from. */
  base: string;
  created_unix: number;
  /** The SCV process that made it; a record whose owner is gone is reconciled. */
  owner_pid: number;
}

export class WorktreeError extends Error {}

/** Whether `dir` or a folder above it holds `.git` (no git started): worktrees are offered only there. */
export function looksLikeGitRepository(dir: string): boolean {
  for (let d = dir; ; ) {
    if (existsSync(join(d, ".git"))) return true;
    const up = dirname(d);
    if (up === d) return false;
    d = up;
  }
}

const GIT_TIMEOUT_MS = 60_000;

function git(cwd: string, args: string[]): { ok: boolean; out: string; err: string } {
  const r = Bun.spawnSync(["git", "-C", cwd, ...args], { stdout: "pipe", stderr: "pipe", timeout: GIT_TIMEOUT_MS, env: { ...process.env, GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" } });
  return { ok: r.exitCode === 0, out: r.stdout.toString().trim(), err: r.stderr.toString().trim() };
}

function must(cwd: string, args: string[], what: string): string {
  const r = git(cwd, args);
  if (!r.ok) throw new WorktreeError(`${what}: ${r.err || r.out || `git ${args[0]} failed`}`);
  return r.out;
}

function recordsDir(home: string): string {
  return join(home, "worktrees", "records");
}

/** The repository `dir` is in (its top directory), or why a worktree cannot be made there. */
export function repositoryOf(dir: string): string {
  const top = git(dir, ["rev-parse", "--show-toplevel"]);
  if (!top.ok) throw new WorktreeError(`${dir} is not in a git repository, so no worktree can be made; run the agent without worktree, or git init first`);
  return top.out;
}

function unmergedFiles(repo: string): string[] {
  return git(repo, ["diff", "--name-only", "--diff-filter=U"]).out.split("\n").filter(Boolean);
}

/** Refuses, with the reason, a workspace where no worktree can be made: outside a repository, or with unresolved conflicts. */
export function checkWorktreePossible(workspace: string): string {
  const repo = repositoryOf(workspace);
  const conflicts = unmergedFiles(repo);
  if (conflicts.length) throw new WorktreeError(`the repository has unresolved conflicts (${conflicts.slice(0, 5).join(", ")}); resolve and commit them first`);
  return repo;
}

/** Makes the worktree of `job` on a new branch from HEAD; refused outside a repository or with unresolved conflicts. */
export function createWorktree(o: { home: string; workspace: string; session: string; job: string }): WorktreeRecord {
  const repo = checkWorktreePossible(o.workspace);
  const base = must(repo, ["rev-parse", "--verify", "HEAD^{commit}"], "the repository has no commit to branch from (commit once first)");
  const name = `${o.session}-${o.job}`.replace(/[^A-Za-z0-9._-]/g, "-");
  const path = join(o.home, "worktrees", name);
  const branch = `scv/${name}`;
  mkdirSync(join(o.home, "worktrees"), { recursive: true, mode: 0o700 });
  must(repo, ["worktree", "add", "-b", branch, path, base], "could not make the worktree");
  const record: WorktreeRecord = { job: o.job, session: o.session, repo, path, branch, base, created_unix: Math.floor(Date.now() / 1000), owner_pid: process.pid };
  mkdirSync(recordsDir(o.home), { recursive: true, mode: 0o700 });
  writePrivateFileAtomic(join(recordsDir(o.home), `${name}.json`), `${JSON.stringify(record)}\n`);
  return record;
}

/** What the job left: its work committed on the branch (SCV commits what the agent left uncommitted), the commits and a diff summary. */
export function finishWorktree(r: WorktreeRecord): { branch: string; path: string; commits: string[]; diffstat: string } {
  if (existsSync(r.path) && git(r.path, ["status", "--porcelain"]).out) {
    must(r.path, ["add", "-A"], "could not stage the job's changes");
    must(r.path, ["-c", "user.name=SCV", "-c", "user.email=scv@localhost", "commit", "-q", "--no-verify", "-m", `scv: work of ${r.job} (uncommitted when it ended)`], "could not commit the job's changes");
  }
  const commits = git(r.repo, ["log", "--oneline", `${r.base}..${r.branch}`]).out.split("\n").filter(Boolean);
  const diffstat = git(r.repo, ["diff", "--shortstat", `${r.base}...${r.branch}`]).out;
  return { branch: r.branch, path: r.path, commits, diffstat: diffstat || "no changes" };
}

export function listWorktrees(home: string): WorktreeRecord[] {
  const dir = recordsDir(home);
  if (!existsSync(dir)) return [];
  const out: WorktreeRecord[] = [];
  for (const f of readdirSync(dir).filter((f) => f.endsWith(".json"))) {
    try {
      out.push(JSON.parse(readFileSync(join(dir, f), "utf8")) as WorktreeRecord);
    } catch {
      // a torn record names nothing to act on
    }
  }
  return out.sort((a, b) => a.created_unix - b.created_unix);
}

/** The newest worktree of `job` in the repository `workspace` is in. */
export function findWorktree(home: string, workspace: string, job: string): WorktreeRecord {
  const repo = repositoryOf(workspace);
  const found = listWorktrees(home).filter((r) => r.repo === repo && (r.job === job || r.branch === job)).at(-1);
  if (!found) throw new WorktreeError(`no worktree of ${job} for the repository ${repo} (scv agents worktrees lists them)`);
  return found;
}

export type MergeOutcome = { merged: true; how: "fast-forward" | "merge commit" | "nothing to merge"; commits: string[] } | { merged: false; conflicts: string[]; message: string };

/**
 * Merges the job's branch into the repository's current branch: fast-forward when it can, else a merge commit.
 * Refused into a dirty tree; a conflict is aborted (nothing half-applied) and reported. A merged worktree is removed.
 */
export function mergeWorktree(home: string, r: WorktreeRecord): MergeOutcome {
  const { commits } = finishWorktree(r);
  const dirty = git(r.repo, ["status", "--porcelain", "--untracked-files=no"]).out;
  const n = dirty.split("\n").length;
  if (dirty) throw new WorktreeError(`${r.repo} has uncommitted changes (${n} file${n === 1 ? "" : "s"}); commit or stash them before merging ${r.branch}`);
  if (!commits.length) {
    discardWorktree(home, r);
    return { merged: true, how: "nothing to merge", commits };
  }
  const before = must(r.repo, ["rev-parse", "HEAD"], "could not read HEAD");
  const merge = git(r.repo, ["-c", "user.name=SCV", "-c", "user.email=scv@localhost", "merge", "--no-edit", r.branch]);
  if (!merge.ok) {
    const conflicts = unmergedFiles(r.repo);
    git(r.repo, ["merge", "--abort"]);
    const after = git(r.repo, ["rev-parse", "HEAD"]).out;
    if (after !== before) git(r.repo, ["reset", "--hard", before]);
    return { merged: false, conflicts, message: conflicts.length ? `conflicts in ${conflicts.join(", ")}; nothing was applied (the branch ${r.branch} is kept: merge it by hand, or discard it)` : `git merge failed: ${merge.err || merge.out}; nothing was applied` };
  }
  const parents = must(r.repo, ["rev-list", "--parents", "-n", "1", "HEAD"], "could not read the merge").split(" ").length - 1;
  discardWorktree(home, r);
  return { merged: true, how: parents > 1 ? "merge commit" : "fast-forward", commits };
}

/** Removes the worktree, its branch and its record. */
export function discardWorktree(home: string, r: WorktreeRecord): void {
  if (existsSync(r.path)) git(r.repo, ["worktree", "remove", "--force", r.path]);
  rmSync(r.path, { recursive: true, force: true });
  git(r.repo, ["worktree", "prune"]);
  git(r.repo, ["branch", "-D", r.branch]);
  rmSync(join(recordsDir(home), `${r.path.split("/").pop()}.json`), { force: true });
}

/**
 * After a crash: a worktree whose owner is gone and whose branch holds nothing unmerged (every commit reachable
 * from the repository's HEAD, no uncommitted change) is removed; the others are listed to merge or discard.
 */
export function reconcileWorktrees(home: string, alive: (pid: number) => boolean): { removed: WorktreeRecord[]; kept: WorktreeRecord[] } {
  const removed: WorktreeRecord[] = [];
  const kept: WorktreeRecord[] = [];
  for (const r of listWorktrees(home)) {
    if (alive(r.owner_pid)) continue;
    const gone = !existsSync(r.repo);
    const clean = !existsSync(r.path) || !git(r.path, ["status", "--porcelain"]).out;
    const merged = gone || git(r.repo, ["merge-base", "--is-ancestor", r.branch, "HEAD"]).ok;
    if (gone || (clean && merged)) {
      if (!gone) discardWorktree(home, r);
      else rmSync(join(recordsDir(home), `${r.path.split("/").pop()}.json`), { force: true });
      removed.push(r);
    } else kept.push(r);
  }
  return { removed, kept };
}
