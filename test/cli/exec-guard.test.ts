// The command guard through the compiled binary: read-only commands run unasked on a pipe, a destructive one is
// refused even with --yes, a command that runs repository code asks (and is denied with nobody to ask), and a
// command's environment holds no key from SCV's own.
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, fakeModelForFile, runBinary } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";

const fake = fakeModelForFile();

const events = (stdout: string) => stdout.trim().split("\n").map((l) => JSON.parse(l));
const byMethod = (all: any[], method: string) => all.filter((e) => e.method === method).map((e) => e.params);

function gitWorkspace(url: string) {
  const h = fakeHome(url);
  const git = (...args: string[]) => Bun.spawnSync(["git", ...args], { cwd: h.workspace, env: { PATH: process.env.PATH!, HOME: h.env.HOME! } });
  git("init", "-q");
  writeFileSync(join(h.workspace, "tracked.txt"), "x\n");
  return h;
}

test("on a pipe without --yes: git status and ls run unasked, each marked allow on tool.started", async () => {
  const { env, workspace } = gitWorkspace(fake.url);
  fake.queue(toolCalls([{ name: "bash", arguments: { command: "git status --short" } }, { name: "bash", arguments: { command: "ls" } }]), text("looked"));
  const r = await runBinary(["exec", "--json", "look around"], env, workspace);
  expect(r.code).toBe(0);
  const all = events(r.stdout);
  expect(byMethod(all, "approval.requested")).toEqual([]);
  expect(byMethod(all, "tool.started").map((p) => [p.label, p.guard.decision])).toEqual([
    ["$ git status --short", "allow"],
    ["$ ls", "allow"],
  ]);
  const done = byMethod(all, "tool.completed");
  expect(done.map((p) => [p.ok, p.denied ?? false])).toEqual([[true, false], [true, false]]);
  expect(done[0].output).toContain("?? tracked.txt");
  expect(done[1].output).toContain("tracked.txt");
});

test("rm -rf ~ is refused even with --yes: the reason is shown, the home is untouched", async () => {
  const { env, workspace } = fakeHome(fake.url);
  mkdirSync(env.HOME!, { recursive: true });
  writeFileSync(join(env.HOME!, "keep.txt"), "mine");
  fake.queue(toolCalls([{ name: "bash", arguments: { command: "rm -rf ~" } }]), text("could not"));
  const json = await runBinary(["exec", "--json", "--yes", "clean up"], env, workspace);
  expect(json.code).toBe(0);
  const all = events(json.stdout);
  const started = byMethod(all, "tool.started")[0];
  expect(started.guard.decision).toBe("block");
  expect(started.guard.reason).toContain("home directory");
  const done = byMethod(all, "tool.completed")[0];
  expect(done.denied).toBe(true);
  expect(done.output).toContain("run it yourself");
  expect(existsSync(join(env.HOME!, "keep.txt"))).toBe(true);
  // The model was told why.
  expect(JSON.stringify(fake.requests.at(-1)!.body)).toContain("never runs this");

  fake.queue(toolCalls([{ name: "bash", arguments: { command: "r''m -rf \"$HOME\"" } }]), text("could not"));
  const plain = await runBinary(["exec", "-y", "clean up"], env, workspace);
  expect(plain.stderr).toContain("blocked: ");
  expect(existsSync(join(env.HOME!, "keep.txt"))).toBe(true);
});

test("npm test asks (guard prompt, with a rule offered) when the sandbox does not run it unasked; on a pipe nobody can answer, so it is denied", async () => {
  const { env, workspace } = fakeHome(fake.url, "[sandbox]\nauto_run = false\n");
  writeFileSync(join(workspace, "package.json"), JSON.stringify({ scripts: { test: "touch ran-tests" } }));
  fake.queue(toolCalls([{ name: "bash", arguments: { command: "npm test" } }]), text("not run"));
  const r = await runBinary(["exec", "--json", "run the tests"], env, workspace);
  expect(r.code).toBe(4); // the turn ended, but a call was denied because nobody could approve it
  const asked = byMethod(events(r.stdout), "approval.requested");
  expect(asked).toHaveLength(1);
  expect(asked[0].guard.decision).toBe("prompt");
  expect(asked[0].guard.reason).toContain("repository's code");
  expect(asked[0].rule_prefix).toEqual(["npm", "test"]);
  expect(r.stderr).toContain("not asked, so denied");
  expect(existsSync(join(workspace, "ran-tests"))).toBe(false);
});

test("a bash call's environment holds no OPENAI_API_KEY from SCV's environment; tools.bash_env passes what it names", async () => {
  const { env, workspace, home } = fakeHome(fake.url, '[tools]\nbash_env = ["PASS_ME"]\n');
  env.OPENAI_API_KEY = "sk-test-guard-0123456789abcdef";
  env.PASS_ME = "passed";
  fake.queue(toolCalls([{ name: "bash", arguments: { command: 'echo "key=${OPENAI_API_KEY-unset} pass=${PASS_ME-unset}"; env | grep -c sk-test || true' } }]), text("ok"));
  const r = await runBinary(["exec", "--json", "--yes", "show env"], env, workspace);
  expect(r.code).toBe(0);
  const out = byMethod(events(r.stdout), "tool.completed")[0].output;
  expect(out).toContain("key=unset pass=passed");
  expect(out).toContain("\n0\n");
  expect(r.stdout).not.toContain("sk-test-guard");
  // scv config show names what bash gets, never a value.
  const shown = await runBinary(["config", "show"], { ...env, SCV_HOME: home }, workspace);
  expect(shown.stdout).toMatch(/bash environment \(names\) = \[[^\]]*"PASS_ME"[^\]]*\]/);
  expect(shown.stdout).not.toContain("OPENAI_API_KEY\"");
});
