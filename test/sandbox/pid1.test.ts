// Each sandboxed command in a PID namespace of its own whose PID 1 is SCV's machine code (src/sandbox/pid1.ts):
// the launcher from source, as root (namespaces), and the binary through `scv exec`. Sleeps carry durations unique
// to each run, so the test finds (and, failing, kills) only its own processes.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { assemblePid1 } from "../../scripts/assemble-pid1";
import { PID1_X86_64 } from "../../src/sandbox/pid1-code";
import { STOPPED_NOTE, type SandboxPolicy } from "../../src/sandbox/policy";
import { LAUNCHER_ENV } from "../../src/sandbox/policy";
import { fakeHome, fakeModelForFile, requireBinary } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";
import { needs } from "../fake/needs";
import { alive, killAll, pidsWithArgv } from "../fake/proc";
import { until } from "../fake/until";

const root = mkdtempSync(join("/var/tmp", "scv-sandbox-pid1-"));
const entry = join(import.meta.dir, "..", "..", "src", "sandbox", "launcher-entry.ts");
const leftovers: number[] = [];
afterAll(() => {
  killAll(leftovers.flatMap((d) => pidsWithArgv(["sleep", String(d)])));
  rmSync(root, { recursive: true, force: true });
});
const fake = fakeModelForFile();

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}
const duration = () => {
  const d = 4000 + Math.floor(Math.random() * 5000);
  leftovers.push(d);
  return d;
};

function policy(name: string): SandboxPolicy {
  const ws = join(root, name, "ws");
  const tmp = join(root, name, "tmp");
  mkdirSync(ws, { recursive: true });
  mkdirSync(tmp, { recursive: true });
  return { mode: "workspace-write", cwd: ws, workspace: ws, protect: [], sealed: [], writableRoots: [], hidden: [], network: false, tmpdir: tmp, expect: { namespaces: true, landlock: true, pidns: true } };
}

function launch(p: SandboxPolicy, script: string) {
  const r = Bun.spawnSync([process.execPath, entry, "__sandbox", JSON.stringify(p), "/bin/bash", "-c", script], {
    cwd: "/",
    env: { PATH: process.env.PATH!, ...LAUNCHER_ENV },
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: r.exitCode, signal: r.signalCode, out: r.stdout.toString(), err: r.stderr.toString() };
}

test.skipIf(!needs("binutils") || !needs("x86_64"))("the machine code is what its assembly source assembles to", () => {
  expect(PID1_X86_64).toBe(assemblePid1(join(import.meta.dir, "..", "..", "src", "sandbox", "pid1", "x86_64.S")));
});

test.skipIf(!needs("root") || !needs("x86_64"))("what a command leaves running, a setsid env -i daemon too, ends with it, and is counted", () => {
  const p = policy("daemon");
  const [a, b] = [duration(), duration()];
  const r = launch(p, `sleep ${a} & (setsid env -i bash -c 'exec sleep ${b}' &); sleep 0.3; echo started`);
  expect(r.out.trim()).toBe("started");
  expect(r.code).toBe(0);
  // Nothing is left by the time the launcher has ended: the kernel ended the namespace with its PID 1.
  expect([...pidsWithArgv(["sleep", String(a)]), ...pidsWithArgv(["sleep", String(b)])]).toEqual([]);
  expect(readFileSync(join(p.tmpdir, STOPPED_NOTE), "utf8")).toBe("2");
});

test.skipIf(!needs("root") || !needs("x86_64"))("the command sees its own namespace only: its own /proc, PID 1 not traceable, nothing outside signalled or reniced", () => {
  const p = policy("view");
  const outside = Bun.spawn(["sleep", String(duration())], { stdio: ["ignore", "ignore", "ignore"] });
  try {
    const r = launch(p, [
      "echo pid=$$",
      "echo procs=$(ls /proc | grep -c '^[0-9]')",
      "cat /proc/1/maps >/dev/null 2>&1 || echo maps-refused",
      "ls -l /proc/1/fd 2>/dev/null | grep -q -- '->' || echo fds-refused",
      `kill -0 ${outside.pid} 2>/dev/null || echo signal-refused`,
      `renice -n 5 -p ${outside.pid} >/dev/null 2>&1 || echo renice-refused`,
      `prlimit --pid ${outside.pid} --core=0:0 2>/dev/null || echo prlimit-refused`,
      "kill -0 $PPID 2>/dev/null && echo parent=$PPID",
    ].join("; "));
    expect(r.err).toBe("");
    const lines = r.out.trim().split("\n");
    expect(lines).toEqual(["pid=2", expect.stringMatching(/^procs=[2-7]$/), "maps-refused", "fds-refused", "signal-refused", "renice-refused", "prlimit-refused", "parent=1"]);
    expect(alive(outside.pid)).toBe(true);
  } finally {
    outside.kill("SIGKILL");
  }
});

test.skipIf(!needs("root") || !needs("x86_64"))("the launcher ends as the command ended: its status, its signal; SIGPIPE at its default", () => {
  expect(launch(policy("exit"), "exit 7").code).toBe(7);
  const killed = launch(policy("signal"), "kill -TERM $$");
  expect(killed.signal).toBe("SIGTERM");
  const pipe = launch(policy("pipe"), "yes | head -1; echo ${PIPESTATUS[0]}");
  expect(pipe.out).toBe("y\n141\n");
  expect(pipe.err).toBe("");
});

test.skipIf(!needs("root") || !needs("x86_64"))("a TERM to the run's group reaches the command, whose trap runs; the launcher waits for it", async () => {
  const p = policy("term");
  const proc = Bun.spawn([process.execPath, entry, "__sandbox", JSON.stringify(p), "/bin/bash", "-c", "trap 'echo trapped; exit 3' TERM; echo ready; while :; do sleep 0.05; done"], {
    cwd: "/",
    env: { PATH: process.env.PATH!, ...LAUNCHER_ENV },
    stdout: "pipe",
    stderr: "pipe",
    detached: true,
  });
  const reader = proc.stdout.getReader();
  let out = "";
  while (!out.includes("ready")) {
    const { value, done } = await reader.read();
    if (done) break;
    out += new TextDecoder().decode(value);
  }
  process.kill(-proc.pid, "SIGTERM");
  const code = await proc.exited;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    out += new TextDecoder().decode(value);
  }
  expect(out).toBe("ready\ntrapped\n");
  expect(code).toBe(3);
});

test.skipIf(!needs("root") || !needs("x86_64"))("through the bash tool: a background process the command left is stopped and said; SCV killed ends the rest at once", async () => {
  const { env, workspace } = fakeHome(fake.url);
  const [a, b, c] = [duration(), duration(), duration()];
  fake.clear();
  fake.queue(toolCalls([{ name: "bash", arguments: { command: `sleep ${a} & echo left` } }]));
  fake.queue(toolCalls([{ name: "bash", arguments: { command: `(setsid env -i bash -c 'exec sleep ${b}' &); echo $$ > main.pid; sleep ${c}` } }]), text("unreached"));
  const scv = Bun.spawn([requireBinary(), "exec", "--json", "go"], { cwd: workspace, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  try {
    const sleepers = await until("the second call's sleeps", () => {
      const found = [b, c].flatMap((d) => pidsWithArgv(["sleep", String(d)]));
      return found.length === 2 ? found : undefined;
    }, 30_000);
    // The first call's result said what was stopped, and nothing of it is left.
    expect(pidsWithArgv(["sleep", String(a)])).toEqual([]);
    // The session's network namespace holder (session-net.ts) is SCV's child while the session lasts.
    const holders = childrenOf(scv.pid).filter((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8") === "/bin/sh\0-c\0read -r _ || :\0");
    expect(holders.length).toBe(1);
    scv.kill("SIGKILL");
    await scv.exited;
    await until("the second call's processes and the holder to end", () => ([...sleepers, ...holders].every((pid) => !alive(pid)) ? true : undefined), 3000);
    const out = await new Response(scv.stdout).text();
    const first = out.split("\n").filter(Boolean).map((l) => JSON.parse(l)).find((e) => e.method === "tool.completed");
    expect(String(first?.params.output)).toContain("[stopped 1 background process still running after the command]");
  } finally {
    scv.kill("SIGKILL");
  }
}, 60_000);
