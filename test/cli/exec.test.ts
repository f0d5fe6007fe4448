// `dist/scv exec` end to end against the fake model endpoint.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, requireBinary } from "../fake/binary";
import { errorReply, type FakeModel, startFakeModel, text, toolCalls } from "../fake/model-server";

let fake: FakeModel;
beforeAll(async () => {
  fake = await startFakeModel();
});
afterAll(() => fake.close());

async function exec(args: string[], env: Record<string, string>, cwd: string, stdin?: string) {
  const proc = Bun.spawn([requireBinary(), "exec", ...args], { cwd, env, stdin: stdin === undefined ? "ignore" : new TextEncoder().encode(stdin), stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
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

test("without --yes and no terminal, a request is denied with a message saying how to allow it", async () => {
  const { env, workspace } = fakeHome(fake.url);
  fake.queue(toolCalls([{ name: "write", arguments: { path: "b.txt", content: "B", mode: "create" } }]), text("Could not write."));
  const r = await exec(["write b.txt"], env, workspace);
  expect(r.code).toBe(0);
  expect(r.stderr).toContain("--yes");
  expect(existsSync(join(workspace, "b.txt"))).toBe(false);
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
  const code = await Promise.race([proc.exited, Bun.sleep(5000).then(() => "hung")]);
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
describe.skipIf(!Bun.which("script"))("in a terminal", () => {
  for (const [answer, written] of [["y", true], ["n", false]] as const) {
    test(`answering ${answer} ${written ? "runs" : "denies"} the write`, async () => {
      const { env, workspace } = fakeHome(fake.url);
      fake.queue(toolCalls([{ name: "write", arguments: { path: "t.txt", content: "T", mode: "create" } }]), text("finished"));
      const p = Bun.spawn(["script", "-qec", `${requireBinary()} exec "write t"`, "/dev/null"], { cwd: workspace, env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
      const reader = p.stdout.getReader();
      let out = "";
      while (!out.includes("[y/N]")) {
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
