// The direct start (src/sandbox/direct.ts): a sandboxed command started by SCV itself, no launcher process, its
// PID 1 SCV's own child sharing SCV's memory. Driven through the sandbox room's contract (runSandboxed and
// startSandboxed) from source, as root, in a session with its network namespace up. Sleeps carry durations unique
// to each run, so the test finds (and, failing, kills) only its own processes.
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { assemblePid1 } from "../../scripts/assemble-pid1";
import { DIRECT_X86_64 } from "../../src/sandbox/direct-code";
import { openSessionNetwork, runSandboxed, startSandboxed, type SandboxSettings } from "../../src/sandbox";
import type { RunOptions } from "../../src/process";
import { needs } from "../fake/needs";
import { killAll, pidsWithArgv } from "../fake/proc";
import { until } from "../fake/until";

const root = mkdtempSync(join("/var/tmp", "scv-sandbox-direct-"));
const net = openSessionNetwork();
const leftovers: number[] = [];
afterAll(() => {
  net.close();
  killAll(leftovers.flatMap((d) => pidsWithArgv(["sleep", String(d)])));
  rmSync(root, { recursive: true, force: true });
});
const duration = () => {
  const d = 4000 + Math.floor(Math.random() * 5000);
  leftovers.push(d);
  return d;
};
const linuxX64 = needs("root") && needs("x86_64");

function setup(name: string): { settings: SandboxSettings; opts: (script: string) => RunOptions } {
  const ws = join(root, name);
  mkdirSync(ws, { recursive: true });
  const settings: SandboxSettings = { mode: "workspace-write", workspace: ws, writableRoots: [], hidden: [], network: false, autoRun: true, required: true, sessionNetwork: net };
  const opts = (script: string): RunOptions => ({ argv: ["/bin/bash", "-c", script], cwd: ws, env: { PATH: process.env.PATH!, MARK: "direct-test" }, stdin: "null", captureBytes: 64 * 1024 });
  return { settings, opts };
}

test.skipIf(!needs("binutils") || !needs("x86_64"))("the machine code is what its assembly source assembles to", () => {
  expect(DIRECT_X86_64).toBe(assemblePid1(join(import.meta.dir, "..", "..", "src", "sandbox", "direct", "x86_64.S")));
});

test.skipIf(!linuxX64)("no launcher: the command is PID 2 under a PID 1 that is this process's own child, and ends as the command ended", async () => {
  const { settings, opts } = setup("shape");
  const r = await runSandboxed(opts("echo pid=$$ parent=$PPID; tr '\\0' ' ' < /proc/1/cmdline; echo; echo tmp=$TMPDIR"), settings);
  if (r.kind !== "ran") throw new Error(r.why);
  const lines = r.stdout.text.trim().split("\n");
  expect(lines[0]).toBe("pid=2 parent=1");
  // PID 1 runs in this process's memory: its command line is this process's, not `scv __sandbox …`.
  expect(lines[1]!.trim()).toBe(readFileSync("/proc/self/cmdline", "utf8").split("\0").filter(Boolean).join(" "));
  expect(lines[2]).toBe("tmp=/tmp");
  expect(r.exitCode).toBe(0);
  const exit = await runSandboxed(opts("exit 7"), settings);
  expect(exit.kind === "ran" && exit.exitCode).toBe(7);
  const killed = await runSandboxed(opts("kill -TERM $$"), settings);
  expect(killed.kind === "ran" && killed.signal).toBe("SIGTERM");
  // SIGPIPE at its default (Bun ignores it, and an ignored signal would stay so across execve).
  const pipe = await runSandboxed(opts("yes | head -1; echo ${PIPESTATUS[0]}"), settings);
  expect(pipe.kind === "ran" && pipe.stdout.text).toBe("y\n141\n");
  expect(pipe.kind === "ran" && pipe.stderr.text).toBe("");
});

test.skipIf(!linuxX64)("PID 1 shares this process's memory, and the command cannot reach it: no environ, no ptrace, no signal, no capability", async () => {
  const { settings, opts } = setup("reach");
  const r = await runSandboxed(
    opts(
      [
        "tr '\\0' '\\n' < /proc/1/environ 2>/dev/null | grep -q MARK= && echo environ-read",
        "head -c 1 /proc/1/mem >/dev/null 2>&1 && echo mem-read",
        "perl -e 'exit(syscall(101, 16, 1, 0, 0) == 0 ? 0 : 1)' && echo ptrace-attached",
        "kill -CONT 1 2>/dev/null && echo signalled",
        "grep -q 'CapEff:\\s*0*[1-9a-f]' /proc/self/status && echo capable",
        "grep -q 'NoNewPrivs:\\s*1' /proc/self/status && echo no-new-privs",
        "echo done",
      ].join("; "),
    ),
    settings,
  );
  if (r.kind !== "ran") throw new Error(r.why);
  expect(r.stdout.text).toBe("no-new-privs\ndone\n");
  // The control: this process reads its own environment where the command could not.
  expect(readFileSync("/proc/self/environ", "utf8")).toContain("PATH=");
});

test.skipIf(!linuxX64)("what a command leaves running, a setsid env -i daemon too, ends with it and is counted", async () => {
  const { settings, opts } = setup("daemon");
  const [a, b] = [duration(), duration()];
  const r = await runSandboxed(opts(`sleep ${a} & (setsid env -i bash -c 'exec sleep ${b}' &); sleep 0.3; echo started`), settings);
  if (r.kind !== "ran") throw new Error(r.why);
  expect(r.stdout.text).toBe("started\n");
  expect(r.cleanedUp).toBe(2);
  expect([...pidsWithArgv(["sleep", String(a)]), ...pidsWithArgv(["sleep", String(b)])]).toEqual([]);
});

test.skipIf(!linuxX64)("a cancel's TERM reaches the command, whose trap runs; what it left is gone after", async () => {
  const { settings, opts } = setup("term");
  const a = duration();
  let out = "";
  const run = startSandboxed({ ...opts(`sleep ${a} & trap 'echo trapped; exit 3' TERM; echo ready; while :; do sleep 0.05; done`), onStdout: (c) => (out += new TextDecoder().decode(c)) }, settings);
  await until("the command's ready", () => (out.includes("ready") ? true : undefined));
  run.cancel();
  const r = await run.result;
  if (r.kind !== "ran") throw new Error(r.why);
  expect(r.stdout.text).toBe("ready\ntrapped\n");
  expect(r.exitCode).toBe(3);
  expect(r.cancelled).toBe(true);
  expect(pidsWithArgv(["sleep", String(a)])).toEqual([]);
});

test.skipIf(!linuxX64)("a step PID 1 cannot take is named, and the command never runs", async () => {
  const { settings, opts } = setup("refused");
  const marker = join(root, "refused-ran");
  const o = opts(`touch ${marker}`);
  rmSync(settings.workspace, { recursive: true, force: true });
  const r = await runSandboxed(o, settings);
  expect(r.kind).toBe("launch-failed");
  expect(r.kind === "launch-failed" && r.why).toBe(`the command was not run: chdir to ${settings.workspace} failed (ENOENT)`);
  expect(existsSync(marker)).toBe(false);
});

test.skipIf(!linuxX64)("without the session's namespace (an MCP server's case) the command gets a network namespace of its own, loopback down, still with no launcher", async () => {
  const { settings, opts } = setup("own-net");
  const alone = { ...settings, sessionNetwork: undefined };
  // A server on the host's loopback, which the command must not reach (the test itself does).
  const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const reach = `(exec 3<>/dev/tcp/127.0.0.1/${server.port}) 2>/dev/null && echo reached || echo unreachable`;
  const control = Bun.spawnSync(["bash", "-c", reach]).stdout.toString();
  const r = await runSandboxed(opts(`echo pid=$$; tr '\\0' ' ' < /proc/1/cmdline; echo; ip -o link | awk '{print $2}'; ip -o link show lo | grep -q 'LOOPBACK,UP' && echo up || echo down; ${reach}`), alone);
  server.stop(true);
  expect(control).toBe("reached\n");
  if (r.kind !== "ran") throw new Error(r.why);
  const lines = r.stdout.text.trim().split("\n");
  expect(lines[0]).toBe("pid=2");
  expect(lines[1]!.trim()).toBe(readFileSync("/proc/self/cmdline", "utf8").split("\0").filter(Boolean).join(" "));
  expect(lines.slice(2)).toEqual(["lo:", "down", "unreachable"]);
});
