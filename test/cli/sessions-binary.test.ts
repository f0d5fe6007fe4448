// Durable sessions through the compiled binary: a `scv server --stdio` SIGKILLed mid-turn (with a background job
// running) or in the middle of writing a 16 MB record is resumed by a new server; `scv exec --continue` continues a stand-in
// agent's conversation with the same vendor session ID; `scv sessions` lists, shows and removes.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BASH, FAKE_AGENT, readInvocations } from "../fake/agent-harness";
import { CODEX_OK, CODEX_RESUMED, CODEX_THREAD_ID } from "../fake/agent-streams";
import { fakeHome, runBinary } from "../fake/binary";
import { type FakeModel, hang, startFakeModel, text, toolCalls } from "../fake/model-server";
import { alive } from "../fake/proc";
import { startStdioServer as startServer } from "../fake/stdio-client";

let fake: FakeModel;
beforeAll(async () => {
  fake = await startFakeModel();
});
afterAll(() => fake.close());

const roots: string[] = [];
const servers: ReturnType<typeof startServer>[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.proc.kill("SIGKILL");
    await s.proc.exited;
  }
  for (const root of roots.splice(0)) {
    // The stand-in agents' shells name their PID in their log files (<ns>-<pid>.args).
    for (const name of readdirSafe(join(root, "log"))) {
      const pid = Number(/-(\d+)\.args$/.exec(name)?.[1]);
      if (pid && alive(pid)) process.kill(pid, "SIGKILL");
    }
    rmSync(root, { recursive: true, force: true });
  }
  fake.clear();
});

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** A fake SCV_HOME whose codex is the stand-in agent replaying `stdout`. */
function codexHome(stdout: string, extraEnv: Record<string, string> = {}, extraConfig = "") {
  const base = fakeHome(fake.url, `[agents.codex]\ncommand = "${BASH}"\nargs = ["${FAKE_AGENT}", "exec"]\n${extraConfig}`);
  const root = join(base.home, "..");
  roots.push(root);
  const logDir = join(root, "log");
  Bun.spawnSync(["mkdir", "-p", logDir]);
  const stdoutFile = join(root, "agent-stdout.jsonl");
  writeFileSync(stdoutFile, stdout);
  const env = { ...base.env, FAKE_AGENT_LOG: logDir, FAKE_AGENT_STDOUT: stdoutFile, ...extraEnv };
  return { ...base, root, logDir, stdoutFile, env };
}

const inputOf = (i: number) => JSON.stringify(fake.requests[i]!.body.input);

test("SIGKILL mid-turn: a new server resumes with the completed turns, the cut-off turn and job interrupted, and the next turn works", async () => {
  const home = codexHome(CODEX_OK, { FAKE_AGENT_SLEEP: "30" });
  const a = startServer(home.env, home.workspace);
  servers.push(a);
  expect((await a.call("initialize", { protocol_version: 3 })).result.protocol_version).toBe(3);
  const sid = (await a.call("session.start", { cwd: home.workspace, auto_approve: true })).result.session_id;

  fake.queue(toolCalls([{ name: "agent", arguments: { agent: "codex", prompt: "refactor the parser", background: true } }]), text("Started job-1 for the parser."));
  await a.call("turn.start", { session_id: sid, prompt: "refactor the parser in the background" });
  expect((await a.waitFor((m) => m.method === "turn.ended" && m.params.turn_id === "t1")).params.status).toBe("completed");

  fake.queue(hang("half an answer"));
  await a.call("turn.start", { session_id: sid, prompt: "a question the crash cuts off" });
  await a.waitFor((m) => m.method === "assistant.delta" && m.params.turn_id === "t2");
  a.proc.kill("SIGKILL");
  await a.proc.exited;
  const file = join(home.home, "state", "sessions", `${sid}.jsonl`);

  const b = startServer(home.env, home.workspace);
  servers.push(b);
  await b.call("initialize", { protocol_version: 3 });
  const resumed = (await b.call("session.resume", { session_id: sid, auto_approve: true })).result;
  expect(resumed.turns.map((t: any) => [t.turn_id, t.status])).toEqual([
    ["t1", "completed"],
    ["t2", "interrupted"],
  ]);
  expect(resumed.turns[0].reply).toBe("Started job-1 for the parser.");
  expect(resumed.jobs).toEqual([{ job: "job-1", agent: "codex", status: "interrupted" }]);
  expect(resumed.warnings).toEqual([]);

  const before = fake.requests.length;
  fake.queue(text("Back after the crash."));
  await b.call("turn.start", { session_id: sid, prompt: "are you there?" });
  const ended = (await b.waitFor((m) => m.method === "turn.ended" && m.params.turn_id === "t3")).params;
  expect(ended).toMatchObject({ status: "completed", reply: "Back after the crash." });
  const sent = inputOf(before);
  expect(sent).toContain("refactor the parser in the background");
  expect(sent).toContain("Started job-1 for the parser.");
  expect(sent).not.toContain("a question the crash cuts off");

  b.proc.stdin.end();
  expect(await b.proc.exited).toBe(0);
  // The file now says what happened.
  const records = readFileSync(file, "utf8").trimEnd().split("\n").map((l) => JSON.parse(l));
  expect(records.some((r) => r.type === "turn_ended" && r.turn === "t2" && r.status === "interrupted")).toBe(true);
}, 30_000);

const BIG_OUTPUT = "[tools]\noutput_limit_bytes = 16777216\n";

/**
 * Runs a turn whose bash call prints 16 MB, and SIGKILLs the server while it writes that tool result's record
 * (the file has grown by 1 MB of it). Returns the session ID and whether the file ends in a torn record.
 */
async function killWhileWritingRecord(home: ReturnType<typeof codexHome>): Promise<{ sid: string; torn: boolean }> {
  const s = startServer(home.env, home.workspace);
  servers.push(s);
  await s.call("initialize", { protocol_version: 3 });
  const sid = (await s.call("session.start", { cwd: home.workspace, auto_approve: true })).result.session_id;
  fake.clear();
  fake.queue(text("Kept answer."));
  await s.call("turn.start", { session_id: sid, prompt: "a turn that completes" });
  await s.waitFor((m) => m.method === "turn.ended" && m.params.turn_id === "t1");
  fake.queue(toolCalls([{ name: "bash", arguments: { command: "head -c 16000000 /dev/zero | tr '\\0' a" } }]), text("never sent"));
  await s.call("turn.start", { session_id: sid, prompt: "print a lot" });
  await s.waitFor((m) => m.method === "tool.started" && m.params.turn_id === "t2");
  const file = join(home.home, "state", "sessions", `${sid}.jsonl`);
  const base = statSync(file).size;
  const deadline = Date.now() + 20_000;
  while (statSync(file).size < base + 1_000_000 && Date.now() < deadline);
  s.proc.kill("SIGKILL");
  await s.proc.exited;
  return { sid, torn: !readFileSync(file, "latin1").endsWith("\n") };
}

test("SIGKILL in the middle of writing a record: the torn record is skipped with a warning, earlier turns intact, the next turn works", async () => {
  let home = codexHome("", {}, BIG_OUTPUT);
  let killed = await killWhileWritingRecord(home);
  // The kill lands while the 16 MB write is under way; should the write ever win the race, try again.
  for (let retry = 0; !killed.torn && retry < 2; retry++) {
    home = codexHome("", {}, BIG_OUTPUT);
    killed = await killWhileWritingRecord(home);
  }
  expect(killed.torn).toBe(true);

  const b = startServer(home.env, home.workspace);
  servers.push(b);
  await b.call("initialize", { protocol_version: 3 });
  const resumed = (await b.call("session.resume", { session_id: killed.sid })).result;
  expect(resumed.turns.map((t: any) => [t.turn_id, t.status, t.reply])).toEqual([
    ["t1", "completed", "Kept answer."],
    ["t2", "interrupted", ""],
  ]);
  expect(resumed.warnings.join("\n")).toContain("torn last record");
  fake.clear();
  const before = fake.requests.length;
  fake.queue(text("Fine again."));
  await b.call("turn.start", { session_id: killed.sid, prompt: "still there?" });
  expect((await b.waitFor((m) => m.method === "turn.ended" && m.params.turn_id === "t3")).params).toMatchObject({ status: "completed", reply: "Fine again." });
  const sent = inputOf(before);
  expect(sent).toContain("Kept answer.");
  expect(sent).not.toContain("aaaaaaaaaa");
  b.proc.stdin.end();
  expect(await b.proc.exited).toBe(0);
}, 60_000);

/** A stored session last touched 91 days ago: past the default sessions.keep_days (90). */
function staleSession(scvHome: string, workspace: string): { dir: string; stale: string } {
  const dir = join(scvHome, "state", "sessions");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stale = join(dir, "s-5ta1e.jsonl");
  writeFileSync(stale, `${JSON.stringify({ type: "session", at: 1, v: 1, id: "s-5ta1e", workspace, provider: "fake", model: "m", tools: true })}\n`);
  const longAgo = new Date(Date.now() - 91 * 86_400_000);
  utimesSync(stale, longAgo, longAgo);
  return { dir, stale };
}

test("server --stdio prunes sessions idle past keep_days shortly after start, never the one it has open", async () => {
  const home = codexHome(CODEX_OK);
  const { dir, stale } = staleSession(home.home, home.workspace);
  const server = startServer(home.env, home.workspace);
  servers.push(server);
  await server.request(1, "initialize", { protocol_version: 3 });
  const started = await server.request(2, "session.start", { cwd: home.workspace });
  // Pruning waits until the way to the first model request is clear; it still comes within moments.
  const deadline = Date.now() + 25_000; // a bound for a busy machine; nothing here promises a time
  while (existsSync(stale) && Date.now() < deadline) await Bun.sleep(20);
  expect(existsSync(stale)).toBe(false);
  // The session this server opened has no turn yet, so its file is the only other one, and it stays.
  expect(readdirSync(dir).filter((n) => n.endsWith(".jsonl"))).toEqual([`${started.result.session_id}.jsonl`]);
});

test("scv exec --continue after exec exited continues the stand-in codex conversation under the same thread ID", async () => {
  const home = codexHome(CODEX_OK);
  // A session idle for longer than sessions.keep_days (90) is pruned when exec starts.
  const { stale } = staleSession(home.home, home.workspace);
  fake.queue(toolCalls([{ name: "agent", arguments: { agent: "codex", prompt: "add the feature" } }]), text("Codex added it."));
  const first = await runBinary(["exec", "--yes", "add the feature with codex"], home.env, home.workspace);
  expect(existsSync(stale)).toBe(false);
  expect(first.stdout).toBe("Codex added it.\n");
  expect(first.code).toBe(0);

  writeFileSync(home.stdoutFile, CODEX_RESUMED);
  const before = fake.requests.length;
  fake.queue(toolCalls([{ name: "agent", arguments: { session: "codex-1", prompt: "now add tests" } }]), text("Codex added tests too."));
  const second = await runBinary(["exec", "--yes", "--continue", "now the tests"], home.env, home.workspace);
  expect(second.code).toBe(0);
  expect(second.stdout).toBe("Codex added tests too.\n");
  expect(second.stderr).toContain("resuming s-");

  const runs = readInvocations(home.logDir);
  expect(runs.length).toBe(2);
  expect(runs[0]!.args).not.toContain("resume");
  // Codex's own `exec resume <thread-id>`: the conversation continues in the CLI's own session.
  const at = runs[1]!.args.indexOf("resume");
  expect(at).toBeGreaterThan(-1);
  expect(runs[1]!.args[at + 1]).toBe(CODEX_THREAD_ID);
  // The model saw the first exec's turn, and the resumed call's result carries the same handle and the turn's
  // own usage (Codex reports the thread's running total; 811 - 606 = 205).
  expect(inputOf(before)).toContain("Codex added it.");
  const outputs = fake.requests[before + 1]!.body.input.filter((i: any) => i.type === "function_call_output");
  expect(outputs.length).toBe(2);
  const agentResult = JSON.parse(outputs[1].output);
  expect(agentResult).toMatchObject({ status: "completed", session: "codex-1", turn: 2, reply: "Resumed and done." });
  expect(agentResult.usage.input_tokens).toBe(205);

  // scv sessions: list, show and rm through the binary.
  const list = await runBinary(["sessions", "list", "--json"], home.env, home.workspace);
  const sessions = JSON.parse(list.stdout).sessions;
  expect(sessions.length).toBe(1);
  expect(sessions[0]).toMatchObject({ turns: 2, first_prompt: "add the feature with codex", workspace: home.workspace });
  const show = await runBinary(["sessions", "show", sessions[0].id], home.env, home.workspace);
  expect(show.stdout).toContain("> add the feature with codex");
  // Each call as the person saw it (its label and outcome), not the model's JSON arguments.
  expect(show.stdout).toContain("· agent codex: now add tests (completed)");
  expect(show.stdout).not.toContain('{"session":"codex-1"');
  expect(show.stdout).toContain("Codex added tests too.");
  expect(show.stdout).toContain("agent conversations: codex-1 (codex");
  expect((await runBinary(["sessions", "list", "--bogus"], home.env, home.workspace)).stderr).toContain('unknown option "--bogus"');
  expect((await runBinary(["sessions", "rm", sessions[0].id], home.env, home.workspace)).code).toBe(0);
  expect((await runBinary(["sessions", "list"], home.env, home.workspace)).stdout).toContain("no sessions in");
  expect((await runBinary(["exec", "--continue", "again"], home.env, home.workspace)).stderr).toContain("no earlier session");
  const unknown = await runBinary(["exec", "--resume", "s-00000000", "again"], home.env, home.workspace);
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toContain("no session s-00000000");
}, 30_000);
