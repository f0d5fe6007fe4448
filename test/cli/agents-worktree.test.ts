// Background delegations in worktrees of their own, end to end through dist/scv: two stand-in agents edit the same
// file, each in its worktree on its own branch; the first merges, the second's conflict is reported and not applied.
import { expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, fakeModelForFile, requireBinary, runBinary } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";

const fake = fakeModelForFile();

function git(cwd: string, ...args: string[]): string {
  const r = Bun.spawnSync(["git", "-C", cwd, "-c", "user.name=t", "-c", "user.email=t@t", ...args], { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.toString()}`);
  return r.stdout.toString().trim();
}

/** A fake home offering the stand-in agent dsh, and a workspace that is a git repository with one commit. */
async function repositoryHome(agentSays: string) {
  const { BASH, FAKE_AGENT, signIn } = await import("../fake/agent-harness");
  const { env, workspace, home } = fakeHome(fake.url, `[agents.dsh]\ncommand = "${BASH}"\nargs = ["${FAKE_AGENT}", "--profile", "headless"]\n`);
  signIn(home, "dsh");
  git(workspace, "init", "-q", "-b", "main");
  writeFileSync(join(workspace, "shared.txt"), "original\n");
  git(workspace, "add", "-A");
  git(workspace, "commit", "-qm", "start");
  const agentOut = join(home, "agent-out.txt");
  writeFileSync(agentOut, agentSays);
  return { env, workspace, home, agentOut };
}

test("two background jobs with worktree: true edit the same file apart; merge applies one, reports the other's conflict", async () => {
  const { env, workspace, home, agentOut } = await repositoryHome("edited shared.txt");
  const call = (prompt: string) => ({ name: "agent", arguments: { agent: "dsh", prompt, background: true, worktree: true } });
  fake.queue(toolCalls([call("edit shared.txt one way"), call("edit shared.txt another way")]), text("Started both."), text("Reported."), text("Reported."));
  const agentEnv = { ...env, FAKE_AGENT_STDOUT: agentOut, FAKE_AGENT_WRITE: "shared.txt=edited by @ID@" };
  const r = await runBinary(["exec", "--json", "--yes", "edit in parallel"], agentEnv, workspace);
  expect(r.code).toBe(0);
  // Nothing reached the person's tree; each job's report names its branch and commits.
  expect(readFileSync(join(workspace, "shared.txt"), "utf8")).toBe("original\n");
  expect(git(workspace, "status", "--porcelain")).toBe("");
  const bodies = fake.requests.map((q) => JSON.stringify(q.body)).join("\n");
  expect(bodies).toContain("on branch scv/");
  expect(bodies).toContain("1 commit, 1 file changed");
  const listed = JSON.parse((await runBinary(["agents", "worktrees", "--json"], env, workspace)).stdout).worktrees as { job: string; path: string }[];
  expect(listed.map((w) => w.job).sort()).toEqual(["job-1", "job-2"]);
  for (const w of listed) expect(w.path.startsWith(join(home, "worktrees"))).toBe(true);

  const first = await runBinary(["agents", "merge", "job-1"], env, workspace);
  expect(first.stderr).toBe("");
  expect(first.stdout).toContain("(fast-forward, 1 commit)");
  const merged = readFileSync(join(workspace, "shared.txt"), "utf8");
  expect(merged).toStartWith("edited by ");
  const head = git(workspace, "rev-parse", "HEAD");
  const second = await runBinary(["agents", "merge", "job-2"], env, workspace);
  expect(second.code).toBe(1);
  expect(second.stderr).toContain("conflicts in shared.txt; nothing was applied");
  expect(git(workspace, "rev-parse", "HEAD")).toBe(head);
  expect(git(workspace, "status", "--porcelain")).toBe("");
  expect(readFileSync(join(workspace, "shared.txt"), "utf8")).toBe(merged);
  const discarded = await runBinary(["agents", "discard", "job-2"], env, workspace);
  expect(discarded.code).toBe(0);
  expect(git(workspace, "branch", "--list", "scv/*")).toBe("");
  for (const w of listed) expect(existsSync(w.path)).toBe(false);
}, 30_000);

test("worktree: true outside a git repository is refused with the reason, and nothing is left behind", async () => {
  const { BASH, FAKE_AGENT, signIn } = await import("../fake/agent-harness");
  const { env, workspace, home } = fakeHome(fake.url, `[agents.dsh]\ncommand = "${BASH}"\nargs = ["${FAKE_AGENT}", "--profile", "headless"]\n`);
  signIn(home, "dsh");
  fake.clear();
  fake.queue(toolCalls([{ name: "agent", arguments: { agent: "dsh", prompt: "edit", background: true, worktree: true } }]), text("Could not."));
  const r = await runBinary(["exec", "--yes", "edit in a worktree"], env, workspace);
  expect(r.code).toBe(0);
  expect(r.stderr).toContain("not in a git repository");
  expect(existsSync(join(home, "worktrees"))).toBe(false);
}, 30_000);

test("SCV killed mid-job: reconcile keeps the worktree with work in it (listed as orphaned) and removes one without", async () => {
  const { BASH, FAKE_AGENT, signIn } = await import("../fake/agent-harness");
  const { readdirSync } = await import("node:fs");
  const { env, workspace, home } = fakeHome(fake.url, `[agents.dsh]\ncommand = "${BASH}"\nargs = ["${FAKE_AGENT}", "--profile", "headless"]\n`);
  signIn(home, "dsh");
  git(workspace, "init", "-q", "-b", "main");
  writeFileSync(join(workspace, "shared.txt"), "original\n");
  git(workspace, "add", "-A");
  git(workspace, "commit", "-qm", "start");
  const agentOut = join(home, "agent-out.txt");
  writeFileSync(agentOut, "working");
  const { hang } = await import("../fake/model-server");
  fake.clear();
  const call = { name: "agent", arguments: { agent: "dsh", prompt: "long edit", background: true, worktree: true } };
  fake.queue(toolCalls([call, call]), hang("waiting "));
  const agentEnv = { ...env, FAKE_AGENT_STDOUT: agentOut, FAKE_AGENT_SLEEP: "300", FAKE_AGENT_WRITE: "shared.txt=half done" };
  const proc = Bun.spawn([requireBinary(), "exec", "--yes", "edit"], { cwd: workspace, env: agentEnv, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const wt = join(home, "worktrees");
  const deadline = Date.now() + 20_000;
  const edited = () => (existsSync(wt) ? readdirSync(wt).filter((d) => d !== "records" && existsSync(join(wt, d, "shared.txt")) && readFileSync(join(wt, d, "shared.txt"), "utf8") === "half done\n") : []);
  while (edited().length < 2) {
    if (Date.now() > deadline) throw new Error("the jobs never edited their worktrees");
    await Bun.sleep(50);
  }
  proc.kill("SIGKILL");
  await proc.exited;
  // One job's edit is put back by hand, as if it had done nothing: only the other holds unmerged work.
  const [idle] = edited();
  git(join(wt, idle!), "checkout", "--", "shared.txt");
  const listed = await runBinary(["agents", "worktrees"], env, workspace);
  expect(listed.stderr).toContain(`removed scv/${idle}: its job's process is gone and nothing in it was unmerged`);
  expect(listed.stdout).toContain("[its job's process is gone: merge or discard it]");
  expect(listed.stdout.trim().split("\n")).toHaveLength(1);
  expect(existsSync(join(wt, idle!))).toBe(false);
  await runBinary(["agents", "kill", "--orphans"], env, workspace); // the killed SCV's agents
  const left = JSON.parse((await runBinary(["agents", "worktrees", "--json"], env, workspace)).stdout).worktrees[0];
  expect((await runBinary(["agents", "discard", left.job], env, workspace)).code).toBe(0);
  expect(git(workspace, "worktree", "list").split("\n")).toHaveLength(1);
}, 40_000);

test("a background job started while another works in the repository gets a worktree by default; a merge into a dirty tree is refused", async () => {
  const { env, workspace, agentOut } = await repositoryHome("edited");
  fake.clear();
  const call = { name: "agent", arguments: { agent: "dsh", prompt: "edit shared.txt", background: true } };
  fake.queue(toolCalls([call, call]), text("Started both."), text("Reported."), text("Reported."));
  const r = await runBinary(["exec", "--yes", "edit twice"], { ...env, FAKE_AGENT_STDOUT: agentOut, FAKE_AGENT_SLEEP: "1", FAKE_AGENT_WRITE: "shared.txt=edited by @ID@" }, workspace);
  expect(r.code).toBe(0);
  // The first job worked in the checkout (nothing else was running), the second in its own worktree.
  expect(readFileSync(join(workspace, "shared.txt"), "utf8")).toStartWith("edited by ");
  const listed = JSON.parse((await runBinary(["agents", "worktrees", "--json"], env, workspace)).stdout).worktrees as { job: string }[];
  expect(listed.map((w) => w.job)).toEqual(["job-2"]);
  const refused = await runBinary(["agents", "merge", "job-2"], env, workspace);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain("has uncommitted changes (1 file); commit or stash them before merging scv/");
  expect(readFileSync(join(workspace, "shared.txt"), "utf8")).toStartWith("edited by ");
  expect((await runBinary(["agents", "discard", "job-2"], env, workspace)).code).toBe(0);
}, 30_000);
