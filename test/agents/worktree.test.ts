// Worktrees per delegation with real git: made outside the tree, reported, merged all or nothing, discarded, reconciled.
import { afterEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createWorktree, discardWorktree, finishWorktree, listWorktrees, mergeWorktree, reconcileWorktrees, WorktreeError } from "../../src/agents/worktree";

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

function sh(cwd: string, ...args: string[]): string {
  const r = Bun.spawnSync(["git", "-C", cwd, "-c", "user.name=t", "-c", "user.email=t@t", ...args], { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.toString()}`);
  return r.stdout.toString().trim();
}

function repo(): { home: string; repo: string } {
  const root = mkdtempSync(join(tmpdir(), "scv-wt-"));
  roots.push(root);
  const home = join(root, "home");
  const dir = join(root, "repo");
  mkdirSync(dir);
  sh(dir, "init", "-q", "-b", "main");
  writeFileSync(join(dir, "shared.txt"), "one\ntwo\nthree\n");
  sh(dir, "add", "-A");
  sh(dir, "commit", "-qm", "start");
  return { home, repo: dir };
}

/** A stand-in agent: edits a file in its worktree (and leaves it uncommitted, as agents often do). */
function agentEdits(path: string, file: string, text: string) {
  writeFileSync(join(path, file), text);
}

test("two jobs edit the same file in their own worktrees: the first merges, the second's conflict is reported and not applied", () => {
  const { home, repo: dir } = repo();
  const a = createWorktree({ home, workspace: dir, session: "s-1", job: "job-1" });
  const b = createWorktree({ home, workspace: dir, session: "s-1", job: "job-2" });
  expect(a.path.startsWith(join(home, "worktrees"))).toBe(true);
  expect(a.branch).toBe("scv/s-1-job-1");
  agentEdits(a.path, "shared.txt", "one\nTWO (a)\nthree\n");
  agentEdits(b.path, "shared.txt", "one\nTWO (b)\nthree\n");
  expect(readFileSync(join(dir, "shared.txt"), "utf8")).toBe("one\ntwo\nthree\n"); // the person's tree is untouched
  const report = finishWorktree(a);
  expect(report.commits).toHaveLength(1);
  expect(report.diffstat).toContain("1 file changed");
  const first = mergeWorktree(home, a);
  expect(first).toMatchObject({ merged: true, how: "fast-forward" });
  expect(readFileSync(join(dir, "shared.txt"), "utf8")).toBe("one\nTWO (a)\nthree\n");
  expect(existsSync(a.path)).toBe(false);
  const head = sh(dir, "rev-parse", "HEAD");
  const second = mergeWorktree(home, b);
  expect(second.merged).toBe(false);
  if (!second.merged) expect(second.conflicts).toEqual(["shared.txt"]);
  expect(sh(dir, "rev-parse", "HEAD")).toBe(head);
  expect(sh(dir, "status", "--porcelain")).toBe("");
  expect(readFileSync(join(dir, "shared.txt"), "utf8")).toBe("one\nTWO (a)\nthree\n");
  expect(listWorktrees(home).map((r) => r.job)).toEqual(["job-2"]); // kept to merge by hand or discard
  discardWorktree(home, b);
  expect(existsSync(b.path)).toBe(false);
  expect(sh(dir, "branch", "--list", "scv/*")).toBe("");
  expect(listWorktrees(home)).toEqual([]);
});

test("two jobs editing different files both merge, the second as a merge commit", () => {
  const { home, repo: dir } = repo();
  const a = createWorktree({ home, workspace: dir, session: "s-1", job: "job-1" });
  const b = createWorktree({ home, workspace: dir, session: "s-1", job: "job-2" });
  agentEdits(a.path, "a.txt", "a\n");
  agentEdits(b.path, "b.txt", "b\n");
  expect(mergeWorktree(home, a)).toMatchObject({ merged: true, how: "fast-forward" });
  expect(mergeWorktree(home, b)).toMatchObject({ merged: true, how: "merge commit" });
  expect(existsSync(join(dir, "a.txt")) && existsSync(join(dir, "b.txt"))).toBe(true);
});

test("refusals: outside a repository, with unresolved conflicts, a merge into a dirty tree; nothing is left behind", () => {
  const { home, repo: dir } = repo();
  const plain = mkdtempSync(join(tmpdir(), "scv-wt-plain-"));
  roots.push(plain);
  expect(() => createWorktree({ home, workspace: plain, session: "s", job: "job-1" })).toThrow(/not in a git repository/);
  const a = createWorktree({ home, workspace: dir, session: "s", job: "job-1" });
  agentEdits(a.path, "shared.txt", "changed\n");
  writeFileSync(join(dir, "shared.txt"), "local edit\n");
  expect(() => mergeWorktree(home, a)).toThrow(WorktreeError);
  expect(readFileSync(join(dir, "shared.txt"), "utf8")).toBe("local edit\n");
  // A conflicted repository refuses a new worktree.
  sh(dir, "checkout", "-q", "--", "shared.txt");
  sh(dir, "checkout", "-qb", "side");
  writeFileSync(join(dir, "shared.txt"), "side\n");
  sh(dir, "commit", "-qam", "side");
  sh(dir, "checkout", "-q", "main");
  writeFileSync(join(dir, "shared.txt"), "main\n");
  sh(dir, "commit", "-qam", "main");
  Bun.spawnSync(["git", "-C", dir, "merge", "side"], { stdout: "ignore", stderr: "ignore" });
  expect(() => createWorktree({ home, workspace: dir, session: "s", job: "job-2" })).toThrow(/unresolved conflicts/);
  expect(listWorktrees(home).map((r) => r.job)).toEqual(["job-1"]);
});

test("reconcile after a crash removes a dead job's worktree with nothing unmerged and lists one with work", () => {
  const { home, repo: dir } = repo();
  const idle = createWorktree({ home, workspace: dir, session: "s", job: "job-1" });
  const busy = createWorktree({ home, workspace: dir, session: "s", job: "job-2" });
  agentEdits(busy.path, "new.txt", "work\n");
  const { removed, kept } = reconcileWorktrees(home, () => false);
  expect(removed.map((r) => r.job)).toEqual(["job-1"]);
  expect(kept.map((r) => r.job)).toEqual(["job-2"]);
  expect(existsSync(idle.path)).toBe(false);
  expect(existsSync(join(busy.path, "new.txt"))).toBe(true);
  expect(reconcileWorktrees(home, () => true).removed).toEqual([]); // a live owner's are never touched
});
