// `dist/scv exec` end to end against the fake model endpoint.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, fakeModelForFile, requireBinary, runBinary } from "../fake/binary";
import { errorReply, text, toolCalls } from "../fake/model-server";
import { needs } from "../fake/needs";

const fake = fakeModelForFile();

function exec(args: string[], env: Record<string, string>, cwd: string, stdin?: string) {
  return runBinary(["exec", ...args], env, cwd, stdin);
}

test("--yes runs a write, prints the reply on stdout and progress on stderr, exit 0", async () => {
  const { env, workspace } = fakeHome(fake.url);
  fake.queue(toolCalls([{ name: "write", arguments: { path: "a.txt", content: "A", mode: "create" } }]), text("Wrote a.txt."));
  const r = await exec(["--yes", "write a.txt"], env, workspace);
  expect(r.code).toBe(0);
  expect(r.stdout).toBe("Wrote a.txt.\n");
  expect(r.stderr).toContain("write");
  expect(readFileSync(join(workspace, "a.txt"), "utf8")).toBe("A");
});

test("without --yes and no terminal, a request is denied with a message saying how to allow it, and the run exits 4", async () => {
  const { env, workspace } = fakeHome(fake.url);
  fake.queue(toolCalls([{ name: "write", arguments: { path: "b.txt", content: "B", mode: "create" } }]), text("Could not write."));
  const r = await exec(["write b.txt"], env, workspace);
  expect(r.code).toBe(4);
  expect(r.stdout).toBe("Could not write.\n");
  expect(r.stderr).toContain("--yes");
  expect(r.stderr).toContain("scv exec: 1 tool call was denied because nobody could approve it");
  expect(existsSync(join(workspace, "b.txt"))).toBe(false);
});

test("a run whose calls all ran, or that made none, exits 0; -C that is not a directory is a usage error", async () => {
  const { env, workspace } = fakeHome(fake.url);
  fake.queue(text("no tools needed"));
  expect((await exec(["hi"], env, workspace)).code).toBe(0);
  const bad = await exec(["-C", join(workspace, "nope"), "hi"], env, workspace);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain("not a directory");
});

test("--json prints protocol events as JSONL; the prompt can come from stdin", async () => {
  const { env, workspace } = fakeHome(fake.url);
  fake.queue(text("json reply"));
  const r = await exec(["--json", "-"], env, workspace, "prompt from stdin\n");
  expect(r.code).toBe(0);
  const events = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
  expect(events[0].method).toBe("turn.started");
  expect(events[0].params.prompt).toBe("prompt from stdin");
  expect(events[events.length - 1]).toMatchObject({ method: "turn.ended", params: { status: "completed", reply: "json reply" } });
});

test("a bash escapee that clears its tag and leaves the session is still stopped: exec is a subreaper", async () => {
  // Unsandboxed: a sandboxed command's PID namespace would end the escapee before the subreaper is asked to.
  const { env, workspace } = fakeHome(fake.url, '[sandbox]\nmode = "off"\n');
  const command = "env -i setsid sleep 300 >/dev/null 2>&1 & echo $!; sleep 0.3";
  fake.queue(toolCalls([{ name: "bash", arguments: { command } }]), text("started it"));
  const r = await exec(["--json", "--yes", "start a daemon"], env, workspace);
  expect(r.code).toBe(0);
  const completed = r.stdout.trim().split("\n").map((l) => JSON.parse(l)).find((e) => e.method === "tool.completed");
  const pid = Number(/^(\d+)$/m.exec(completed.params.output)?.[1]);
  expect(pid).toBeGreaterThan(0);
  const alive = existsSync(`/proc/${pid}`) && !/\) [ZX] /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  if (alive) process.kill(pid, "SIGKILL");
  expect(alive).toBe(false);
  expect(completed.params.output).toContain("stopped 1 background process");
});

test("--json --yes records every command, path and URL a turn used, on tool.started", async () => {
  const { env, workspace } = fakeHome(fake.url);
  writeFileSync(join(workspace, "in.txt"), "hello\n");
  fake.queue(
    toolCalls([
      { name: "bash", arguments: { command: "echo from-bash" } },
      { name: "read", arguments: { path: "in.txt" } },
      { name: "write", arguments: { path: "out.txt", content: "bye\n", mode: "create" } },
      { name: "web_fetch", arguments: { url: "http://127.0.0.1:9/page" } },
    ]),
    text("all done"),
  );
  const r = await exec(["--json", "--yes", "do things"], env, workspace);
  expect(r.code).toBe(0);
  const events = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
  const started = events.filter((e) => e.method === "tool.started").map((e) => e.params);
  expect(started.map((p) => [p.tool, p.label, p.arguments])).toEqual([
    ["bash", "$ echo from-bash", { command: "echo from-bash" }],
    ["read", "read in.txt (bytes 0-6)", { path: "in.txt" }],
    ["write", "write out.txt", { path: "out.txt", content: "bye\n", mode: "create" }],
    ["web_fetch", "fetch http://127.0.0.1:9/page", { url: "http://127.0.0.1:9/page" }],
  ]);
  const completed = events.filter((e) => e.method === "tool.completed").map((e) => e.params);
  expect(completed[0].display).toMatch(/^exit 0, \d+\.\d s$/);
  expect(completed[2].display).toBe("+1 -0 lines");
});

test("text mode shows each call as a person reads it; -o writes the final reply to a file", async () => {
  const { env, workspace } = fakeHome(fake.url);
  fake.queue(toolCalls([{ name: "bash", arguments: { command: "exit 3" } }]), text("It failed with 3."));
  const r = await exec(["-y", "-o", "last.txt", "run it"], env, workspace);
  expect(r.code).toBe(0);
  expect(r.stderr).toMatch(/^\$ exit 3 \(exit 3, \d+\.\d s\)\n$/);
  expect(r.stderr).not.toMatch(/\x1b\[/); // not a terminal: no colour
  expect(readFileSync(join(workspace, "last.txt"), "utf8")).toBe("It failed with 3.\n"); // ends with a newline
});

test("a failed turn exits non-zero with the reason on stderr", async () => {
  const { env, workspace } = fakeHome(fake.url);
  fake.queue(errorReply("model_not_found"));
  const r = await exec(["hi"], env, workspace);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain("failed");
});

test("no provider key: a clear error that says how to set one", async () => {
  const { env, workspace, home } = fakeHome(fake.url);
  writeFileSync(join(home, "config.toml"), "");
  const r = await exec(["hi"], env, workspace);
  expect(r.code).toBe(78);
  expect(r.stderr).toContain("OPENAI_API_KEY");
  expect(r.stderr).toContain(`in ${join(home, "config.toml")}`);
  expect(r.stderr).toContain("base_url");
});

test("SIGINT cancels the turn cleanly", async () => {
  const { env, workspace } = fakeHome(fake.url);
  const { hang } = await import("../fake/model-server");
  fake.queue(hang("working "));
  const proc = Bun.spawn([requireBinary(), "exec", "wait"], { cwd: workspace, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const reader = proc.stdout.getReader();
  await reader.read(); // the first delta arrived: the turn is running
  proc.kill("SIGINT");
  const code = await Promise.race([proc.exited, Bun.sleep(20_000).then(() => "hung")]);
  expect(code).toBe(130);
});

test("the binary ignores .env and bunfig.toml in the working directory and BUN_OPTIONS", async () => {
  const { env, workspace } = fakeHome(fake.url);
  writeFileSync(join(workspace, ".env"), "SCV_PROVIDER=from-dotenv\n");
  writeFileSync(join(workspace, "bunfig.toml"), `preload = ["./pre.ts"]\n`);
  writeFileSync(join(workspace, "pre.ts"), `console.log("PRELOAD RAN")\n`);
  const shown = Bun.spawnSync([requireBinary(), "config", "show"], { cwd: workspace, env: { ...env, BUN_OPTIONS: "--smol" } });
  const out = shown.stdout.toString();
  expect(shown.exitCode).toBe(0);
  expect(out).toContain(`provider.active = "fake"`);
  expect(out).not.toContain("PRELOAD RAN");
  const v = Bun.spawnSync([requireBinary(), "--version"], { cwd: workspace, env: { ...env, BUN_OPTIONS: "--smol" } });
  expect(v.stdout.toString()).toMatch(/^scv \d+\.\d+\.\d+/);
});

test("exec prints each background report and stays open until every job it started was reported", async () => {
  const { BASH, FAKE_AGENT, signIn } = await import("../fake/agent-harness");
  const { env, workspace, home } = fakeHome(fake.url, `[agents.dsh]\ncommand = "${BASH}"\nargs = ["${FAKE_AGENT}", "--profile", "headless"]\n`);
  signIn(home, "dsh");
  const agentOut = join(home, "agent-out.txt");
  writeFileSync(agentOut, "the migration is done");
  fake.queue(
    toolCalls([{ name: "agent", arguments: { agent: "dsh", prompt: "run the migration", background: true } }]),
    text("Started job-1."),
    text("Report: the migration is done."),
  );
  const t0 = Date.now();
  const r = await exec(["--yes", "migrate in the background"], { ...env, FAKE_AGENT_STDOUT: agentOut, FAKE_AGENT_SLEEP: "1" }, workspace);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("Started job-1.");
  expect(r.stdout).toContain("Report: the migration is done.");
  expect(r.stderr).toContain("background report: job-1");
  expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
}, 20_000);

// In a terminal exec asks y/n for each approval; `script` gives the binary a real pseudo-terminal.
describe.skipIf(!needs("script"))("in a terminal", () => {
  for (const [answer, written, flags] of [["y", true, ""], ["n", false, ""], ["y", true, "--json "]] as const) {
    test(`${flags}answering ${answer} ${written ? "runs" : "denies"} the write`, async () => {
      const { env, workspace } = fakeHome(fake.url);
      fake.queue(toolCalls([{ name: "write", arguments: { path: "t.txt", content: "T", mode: "create" } }]), text("finished"));
      const p = Bun.spawn(["script", "-qec", `${requireBinary()} exec ${flags}"write t"`, "/dev/null"], { cwd: workspace, env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
      const reader = p.stdout.getReader();
      let out = "";
      while (!out.includes("[y/N/a")) {
        const { value, done } = await reader.read();
        if (done) break;
        out += new TextDecoder().decode(value);
      }
      expect(out).toContain("write t.txt (create, 1 bytes)");
      p.stdin.write(`${answer}\n`);
      p.stdin.flush();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        out += new TextDecoder().decode(value);
      }
      expect(await p.exited).toBe(0);
      expect(existsSync(join(workspace, "t.txt"))).toBe(written);
      expect(out).toContain("finished");
    }, 20_000);
  }
});

test("Ctrl-C while the turn that started a job still runs cancels the job too: no report turn, no survivor", async () => {
  const { BASH, FAKE_AGENT, signIn } = await import("../fake/agent-harness");
  const { hang } = await import("../fake/model-server");
  const { mkdirSync, readdirSync } = await import("node:fs");
  const { env, workspace, home } = fakeHome(fake.url, `[agents.dsh]\ncommand = "${BASH}"\nargs = ["${FAKE_AGENT}", "--profile", "headless"]\n`);
  signIn(home, "dsh");
  const logDir = join(home, "agent-log");
  mkdirSync(logDir);
  const agentOut = join(home, "agent-out.txt");
  writeFileSync(agentOut, "never reported");
  fake.queue(toolCalls([{ name: "agent", arguments: { agent: "dsh", prompt: "a long migration", background: true } }]), hang("still thinking "));
  const agentEnv = { ...env, FAKE_AGENT_STDOUT: agentOut, FAKE_AGENT_SLEEP: "300", FAKE_AGENT_CHILD: "1", FAKE_AGENT_LOG: logDir };
  const proc = Bun.spawn([requireBinary(), "exec", "--yes", "migrate"], { cwd: workspace, env: agentEnv, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const reader = proc.stdout.getReader();
  let out = "";
  while (!out.includes("still thinking")) {
    const { value, done } = await reader.read();
    if (done) break;
    out += new TextDecoder().decode(value);
  }
  let child = "";
  for (let i = 0; i < 100 && !child; i++) {
    child = readdirSync(logDir).find((f) => f.endsWith(".child")) ?? "";
    if (!child) await Bun.sleep(50);
  }
  const childPid = Number(readFileSync(join(logDir, child), "utf8"));
  expect(childPid).toBeGreaterThan(0);
  proc.kill("SIGINT");
  const code = await Promise.race([proc.exited, Bun.sleep(12_000).then(() => "hung")]);
  if (code === "hung") proc.kill("SIGKILL");
  const stderr = await new Response(proc.stderr).text();
  expect(code).toBe(130);
  expect(stderr).toContain("started job-1");
  expect(stderr).not.toContain("background report"); // the user stopped it: no report turn asks the model
  let gone = false;
  try {
    const stat = readFileSync(`/proc/${childPid}/stat`, "utf8");
    gone = stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    gone = true;
  }
  expect(gone).toBe(true);
}, 20_000);

test("--effort sets the session's reasoning effort; a bad value is refused and nothing is sent", async () => {
  const { env, workspace } = fakeHome(fake.url);
  fake.queue(text("thought hard"));
  const before = fake.requests.length;
  const r = await exec(["--effort", "high", "think"], env, workspace);
  expect(r.code).toBe(0);
  expect(r.stdout).toBe("thought hard\n");
  expect(fake.requests.at(-1)!.body.reasoning).toEqual({ effort: "high" });
  const bad = await exec(["--effort", "max", "think"], env, workspace);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain("--effort");
  expect(bad.stderr).toContain("none, minimal, low, medium, high, xhigh");
  expect(fake.requests.length - before).toBe(1);
});
