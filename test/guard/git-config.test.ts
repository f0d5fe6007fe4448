// A repository's own git config and hooks can turn `git status` into a program run. The threat is shown real
// first (git does run them), then the guard is shown to ask instead of allowing in each case.
import { expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { classifyCommand } from "../../src/guard/index";
import { configEntries, gitConfigProblem } from "../../src/guard/git-config";
import { makeTempWorkspace } from "../fake/scope";

const HOME = process.env.HOME!;
const SCV_HOME = process.env.SCV_HOME!;

function git(cwd: string, ...args: string[]) {
  const r = Bun.spawnSync(["git", ...args], { cwd, env: { PATH: process.env.PATH!, HOME, GIT_CONFIG_NOSYSTEM: "1" }, stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, out: r.stdout.toString() + r.stderr.toString() };
}

function repo(): string {
  const dir = makeTempWorkspace("scv-guard-git-");
  expect(git(dir, "init", "-q").code).toBe(0);
  writeFileSync(join(dir, "a.txt"), "a\n");
  return dir;
}

/** A program that leaves a marker file when run: what a hostile repository would run instead. */
function marker(dir: string): { script: string; ran: string } {
  const ran = join(dir, "ran-marker");
  const script = join(dir, "payload.sh");
  writeFileSync(script, `#!/bin/sh\ntouch '${ran}'\ncat\n`);
  chmodSync(script, 0o755);
  return { script, ran };
}

const verdict = (workspace: string, command = "git status") => classifyCommand(command, { workspace, home: HOME, scvHome: SCV_HOME });

test("a clean repository: git status and git diff run unasked", () => {
  const dir = repo();
  expect(verdict(dir).decision).toBe("allow");
  expect(verdict(dir, "git diff --stat").decision).toBe("allow");
  expect(verdict(join(dir), "git log --oneline").decision).toBe("allow");
});

test("core.fsmonitor set to a program: git status runs it, so the guard asks", () => {
  const dir = repo();
  const { script, ran } = marker(dir);
  git(dir, "config", "core.fsmonitor", script);
  git(dir, "status");
  expect(existsSync(ran)).toBe(true); // the threat is real
  const v = verdict(dir);
  expect(v.decision).toBe("prompt");
  expect(v.reason).toContain("core.fsmonitor");
});

test("a diff driver's textconv: git diff runs it, so the guard asks", () => {
  const dir = repo();
  const { script, ran } = marker(dir);
  git(dir, "add", "a.txt");
  git(dir, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "one");
  writeFileSync(join(dir, ".gitattributes"), "*.txt diff=evil\n");
  writeFileSync(join(dir, "a.txt"), "b\n");
  git(dir, "config", "diff.evil.textconv", script);
  git(dir, "diff");
  expect(existsSync(ran)).toBe(true);
  expect(verdict(dir, "git diff").reason).toContain("diff.evil.textconv");
});

test("settings hidden in an included file, in a worktree's gitdir, or under a subsection are found", () => {
  const dir = repo();
  writeFileSync(join(dir, "inc.cfg"), "[core]\n\tpager = sh -c 'touch x'\n");
  git(dir, "config", "include.path", "../inc.cfg");
  expect(verdict(dir).reason).toContain("core.pager");

  const main = repo();
  git(main, "add", "a.txt");
  git(main, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "one");
  const wt = join(main, "wt");
  expect(git(main, "worktree", "add", "-q", wt).code).toBe(0);
  expect(verdict(wt).decision).toBe("allow");
  git(main, "config", "filter.lfs.clean", "evil %f");
  expect(verdict(wt).reason).toContain("filter.lfs.clean");

  expect(configEntries('[diff "x"]\n  textconv = y ; comment\n[Core]\nPager\n').map((e) => e.key)).toEqual(["diff.x.textconv", "core.pager"]);
  expect(gitConfigProblem(makeTempWorkspace(), HOME)).toBeUndefined(); // no repository: nothing to vouch for
});

test("a post-index-change hook runs on git status: the guard asks", () => {
  const dir = repo();
  const { script, ran } = marker(dir);
  mkdirSync(join(dir, ".git", "hooks"), { recursive: true });
  writeFileSync(join(dir, ".git", "hooks", "post-index-change"), `#!/bin/sh\nexec '${script}' </dev/null\n`);
  chmodSync(join(dir, ".git", "hooks", "post-index-change"), 0o755);
  git(dir, "add", "a.txt");
  writeFileSync(join(dir, "a.txt"), "changed\n");
  git(dir, "status");
  expect(existsSync(ran)).toBe(true);
  expect(verdict(dir).reason).toContain("post-index-change");
});

test("harmless values and a user's safe keys keep git status unasked", () => {
  const dir = repo();
  git(dir, "config", "core.fsmonitor", "false");
  git(dir, "config", "user.name", "someone");
  git(dir, "config", "log.showSignature", "false");
  expect(verdict(dir).decision).toBe("allow");
});
