// A realistic coding session in auto mode through the compiled binary, nobody to ask (no --yes, stdin not a
// terminal): edits, git status, npm test, a build and the git commit (git alone gets .git's data writable) run
// unasked inside the sandbox. Then the model's bash tries to
// kill the death watch before leaving an escapee: blocked, and the escapee still dies with SCV.
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, fakeModelForFile, requireBinary } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";
import { alive, guardOf, killAll, pidsWithArgv } from "../fake/proc";
import { pid1Supported as pidNamespaces } from "../../src/sandbox/pid1";
import { until } from "../fake/until";

const fake = fakeModelForFile();

function project(workspace: string, env: Record<string, string>) {
  mkdirSync(join(workspace, "src"));
  writeFileSync(join(workspace, "src", "add.js"), "module.exports = (a, b) => a - b;\n");
  writeFileSync(join(workspace, "test.js"), "const add = require('./src/add'); if (add(2, 3) !== 5) { console.error('add is wrong'); process.exit(1); } console.log('1 test passed');\n");
  writeFileSync(join(workspace, "package.json"), JSON.stringify({ name: "demo", version: "1.0.0", scripts: { test: "node test.js" } }));
  writeFileSync(join(workspace, "hello.c"), '#include <stdio.h>\nint main(void) { puts("hello"); return 0; }\n');
  writeFileSync(join(workspace, "Makefile"), "hello: hello.c\n\tcc -o hello hello.c\n");
  const git = (...args: string[]) => {
    const r = Bun.spawnSync(["git", "-c", "user.email=t@t", "-c", "user.name=t", ...args], { cwd: workspace, env });
    if (!r.success) throw new Error(r.stderr.toString());
  };
  git("init", "-q");
  // The home is under /tmp, which the sandbox shows as the command's private one: the identity goes in the repository.
  git("config", "user.email", "t@t");
  git("config", "user.name", "t");
  git("add", "-A");
  git("commit", "-qm", "start");
}

test("auto mode: edits, status, tests, the build and the git commit ask nothing and all run inside the sandbox", async () => {
  const { env, workspace } = fakeHome(fake.url);
  project(workspace, env);
  const steps = [
    `sed -i 's/a - b/a + b/' src/add.js`,
    `cat > src/mul.js <<'EOF'\nmodule.exports = (a, b) => a * b;\nEOF`,
    "git status --short",
    "git diff --stat",
    "npm test",
    "make",
    "./hello",
    "ls /tmp && echo scratch > /tmp/notes && cat /tmp/notes",
    `git commit -qam "add adds"`,
  ];
  for (const command of steps) fake.queue(toolCalls([{ name: "bash", arguments: { command } }]));
  fake.queue(text("done"));
  const scv = Bun.spawn([requireBinary(), "exec", "--json", "fix add"], { cwd: workspace, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out] = await Promise.all([new Response(scv.stdout).text(), scv.exited]);
  const events = out.trim().split("\n").map((l) => JSON.parse(l) as { method: string; params: Record<string, any> });
  const asked = events.filter((e) => e.method === "approval.requested").map((e) => e.params.summary.split("\n")[0]);
  const completed = events.filter((e) => e.method === "tool.completed").map((e) => ({ ok: e.params.ok, sandbox: e.params.sandbox, out: String(e.params.output) }));
  console.log(`auto mode: ${steps.length} commands, ${asked.length} approval asked (${asked.join("; ")})`);
  expect(asked).toEqual([]);
  if (!completed[8]?.ok) console.log(completed[8]?.out);
  expect(completed.map((c) => [c.ok, c.sandbox])).toEqual(Array(9).fill([true, "workspace-write"]));
  const log = Bun.spawnSync(["git", "log", "--format=%s"], { cwd: workspace, env }).stdout.toString();
  expect(log.split("\n")[0]).toBe("add adds");
  expect(completed[4]!.out).toContain("1 test passed");
  expect(completed[6]!.out).toContain("hello");
  expect(readFileSync(join(workspace, "src", "add.js"), "utf8")).toContain("a + b");
  expect(existsSync(join(workspace, "hello"))).toBe(true);
  const started = events.filter((e) => e.method === "tool.started").map((e) => e.params.guard?.sandbox ?? "");
  expect(started.every((s) => s.startsWith("sandboxed: workspace-write"))).toBe(true);
  expect(started[8]).toContain(".git's data writable for git, its hooks and config read-only");
}, 120_000);

test("the model's bash cannot kill the death watch: after SCV is SIGKILLed its setsid escapee still dies within 2 s", async () => {
  const { env, workspace } = fakeHome(fake.url);
  fake.clear();
  const n = 3000 + Math.floor(Math.random() * 5000); // sleeps of this run's own durations
  // What the red team did: find the guard among SCV's children by its command line, kill it, then leave work behind.
  const command =
    `for p in $(cat /proc/$PPID/task/*/children) $(ls /proc | grep '^[0-9]'); do if [ "$(tr '\\0' ' ' < /proc/$p/cmdline 2>/dev/null)" = '/bin/sh -c eval "$W" ' ]; then echo $p > found; kill -9 $p && echo killed-guard >> tried; break; fi; done; ` +
    `setsid sleep ${n} & echo $! > escapee.pid; (setsid env -i bash -c 'exec sleep ${n + 2}' &); echo $$ > main.pid; sleep ${n + 1}`;
  fake.queue(toolCalls([{ name: "bash", arguments: { command } }]), text("unreached"));
  const scv = Bun.spawn([requireBinary(), "exec", "go"], { cwd: workspace, env, stdin: "ignore", stdout: "ignore", stderr: "ignore" });
  const read = (f: string) => (existsSync(join(workspace, f)) ? Number(readFileSync(join(workspace, f), "utf8")) || undefined : undefined);
  await until("the bash call", () => read("main.pid"), 30_000);
  await until("the escapee", () => read("escapee.pid"));
  try {
    // The guard is not even visible from the command's PID namespace (without one: found, and the kill refused).
    expect(read("found")).toBe(pidNamespaces ? undefined : guardOf(scv.pid));
    expect(existsSync(join(workspace, "tried"))).toBe(false);
    expect(guardOf(scv.pid)).toBeGreaterThan(0);
    // The pids the command wrote are its namespace's; the host's are found by their command lines.
    const sleepers = await until("the three sleeps", () => {
      const found = [n, n + 1, n + 2].flatMap((d) => pidsWithArgv(["sleep", String(d)]));
      return found.length === 3 ? found : undefined;
    });
    scv.kill("SIGKILL");
    await scv.exited;
    await until("the runs to stop", () => (sleepers.every((p) => !alive(p)) ? true : undefined), 2000);
  } finally {
    // Never the pids the command wrote: inside a PID namespace they name other processes out here.
    scv.kill("SIGKILL");
    killAll([n, n + 1, n + 2].flatMap((d) => pidsWithArgv(["sleep", String(d)])));
  }
}, 60_000);
