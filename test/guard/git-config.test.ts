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

/** A repository with one real submodule (cloned from a second repository beside it), committed. */
function repoWithSubmodule(): { dir: string; modules: string } {
  const source = repo();
  git(source, "add", "a.txt");
  git(source, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "one");
  const dir = repo();
  const added = git(dir, "-c", "protocol.file.allow=always", "submodule", "add", "-q", source, "sub");
  expect(added.code).toBe(0);
  git(dir, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "with sub");
  return { dir, modules: join(dir, ".git", "modules", "sub") };
}

test("a submodule's core.fsmonitor: git status runs it in the submodule, so the guard asks", () => {
  const { dir, modules } = repoWithSubmodule();
  expect(verdict(dir).decision).toBe("allow");
  const { script, ran } = marker(dir);
  git(join(dir, "sub"), "config", "core.fsmonitor", script);
  git(dir, "status");
  expect(existsSync(ran)).toBe(true); // the threat is real: the top repository's config is clean
  const v = verdict(dir);
  expect(v.decision).toBe("prompt");
  expect(v.reason).toContain("core.fsmonitor");
  expect(v.reason).toContain(modules);
});

test("a submodule's post-index-change hook, and one in a nested folder of .git/modules, make git status ask", () => {
  const { dir, modules } = repoWithSubmodule();
  mkdirSync(join(modules, "hooks"), { recursive: true });
  writeFileSync(join(modules, "hooks", "post-index-change"), "#!/bin/sh\ntrue\n");
  expect(verdict(dir).reason).toContain("post-index-change");

  const other = repo();
  const nested = join(other, ".git", "modules", "a", "b");
  mkdirSync(join(nested, "hooks"), { recursive: true });
  writeFileSync(join(nested, "HEAD"), "ref: refs/heads/main\n");
  writeFileSync(join(nested, "config"), "[core]\n\tpager = sh -c id\n");
  expect(verdict(other).reason).toContain("core.pager");
});

test("a partial clone (promisor remote) makes reads ask: a missing object is fetched over the network", () => {
  const dir = repo();
  git(dir, "config", "extensions.partialClone", "origin");
  expect(verdict(dir, "git show HEAD:missing").reason).toContain("partial clone");
  const other = repo();
  git(other, "config", "remote.origin.promisor", "true");
  expect(verdict(other).decision).toBe("prompt");
  git(other, "config", "remote.origin.promisor", "false");
  expect(verdict(other).decision).toBe("allow");
});

test("a FIFO at .git/commondir or .git/config is reported at once, never read (which would block)", () => {
  for (const name of ["commondir", "config"]) {
    const dir = repo();
    const file = join(dir, ".git", name);
    Bun.spawnSync(["rm", "-f", file]);
    expect(Bun.spawnSync(["mkfifo", file]).exitCode).toBe(0);
    const started = performance.now();
    const v = verdict(dir);
    expect(performance.now() - started).toBeLessThan(10_000); // refused, not blocked forever (bound for a busy machine)
    expect(v.decision).toBe("prompt");
    expect(v.reason).toContain("a FIFO");
  }
});
