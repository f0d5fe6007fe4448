// The usage ledger through the compiled binary: SCV's own requests and two delegated calls (stand-in agents
// replaying Claude Code's and Codex's real output) add up exactly in `scv usage --by agent`; a spending limit
// reached mid-session refuses the next turn with the limit's name and reset time, and `--over-budget` goes over
// it once; a server SIGKILLed while the index was locked (its entries queued) loses nothing at the next start;
// and no model request happens without a prompt.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BASH, FAKE_AGENT } from "../fake/agent-harness";
import { CLAUDE_OK, CODEX_OK } from "../fake/agent-streams";
import { fakeHome, runBinary } from "../fake/binary";
import { type FakeModel, hang, startFakeModel, text, toolCalls } from "../fake/model-server";
import { startStdioServer } from "../fake/stdio-client";

let fake: FakeModel;
beforeAll(async () => {
  fake = await startFakeModel();
});
afterAll(() => fake.close());

const roots: string[] = [];
const servers: ReturnType<typeof startStdioServer>[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.kill();
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  fake.clear();
});

/** A fake SCV_HOME whose claude and codex are the stand-in agent, each replaying its own captured output. */
function agentsHome(extraConfig = "") {
  const root0 = fakeHome(fake.url);
  const root = join(root0.home, "..");
  const claudeOut = join(root, "claude.jsonl");
  const codexOut = join(root, "codex.jsonl");
  writeFileSync(claudeOut, CLAUDE_OK);
  writeFileSync(codexOut, CODEX_OK);
  // env(1) gives each stand-in its own script: both read FAKE_AGENT_STDOUT.
  const agent = (out: string, fixed: string) => `command = "/usr/bin/env"\nargs = ["FAKE_AGENT_STDOUT=${out}", "${BASH}", "${FAKE_AGENT}", "${fixed}"]\n`;
  const base = fakeHome(fake.url, `[agents.claude]\n${agent(claudeOut, "-p")}[agents.codex]\n${agent(codexOut, "exec")}${extraConfig}`);
  roots.push(root, join(base.home, ".."));
  mkdirSync(join(base.workspace, ".git"));
  return base;
}

/** A `scv server --stdio` of the home `h` with one session started in its workspace. */
async function serverSession(h: { env: Record<string, string>; workspace: string }) {
  const server = startStdioServer(h.env, h.workspace);
  servers.push(server);
  await server.call("initialize", { protocol_version: 3 });
  const { result } = await server.call("session.start", { cwd: h.workspace });
  return { server, result: result as { session_id: string } };
}

async function usageJson(env: Record<string, string>, cwd: string, by: string) {
  const r = await runBinary(["usage", "--since", "1d", "--by", by, "--json"], env, cwd);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as { rows: { key: string; requests: number; input_tokens: number; cached_input_tokens: number; cache_hit_share: number; output_tokens: number; cost?: number }[]; total: any };
}

test("own requests and two delegated calls appear in scv usage --by agent with exact sums", async () => {
  const h = agentsHome('[prices."fake-model"]\ninput_per_mtok = 2\ncached_input_per_mtok = 1\noutput_per_mtok = 10\n');
  fake.queue(
    toolCalls([{ name: "agent", arguments: { agent: "claude", prompt: "look at the tests" } }], { usage: { input_tokens: 100, output_tokens: 10 } }),
    toolCalls([{ name: "agent", arguments: { agent: "codex", prompt: "fix the tests" } }], { usage: { input_tokens: 200, output_tokens: 20, cached_tokens: 50 } }),
    text("both done", { usage: { input_tokens: 300, output_tokens: 30, cached_tokens: 100 } }),
  );
  const r = await runBinary(["exec", "--yes", "delegate the work"], h.env, h.workspace);
  expect(r.stderr).not.toContain("unavailable");
  expect(r.code).toBe(0);
  expect(fake.pending()).toBe(0);
  // With no limit to check, exec leaves the index to its next reader, which catches up from the session file.
  expect(existsSync(join(h.home, "state", "index.sqlite"))).toBe(false);

  const byAgent = await usageJson(h.env, h.workspace, "agent");
  const row = (key: string) => byAgent.rows.find((x) => x.key === key);
  expect(row("scv (own model)")).toMatchObject({ requests: 3, input_tokens: 600, cached_input_tokens: 150, output_tokens: 60, cache_hit_share: 0.25 });
  // Claude Code reports input as input + cache creation + cache reads (515 + 25 + 35); Codex its turn.completed.
  // Their cache reads are counted as cached input (Claude's cache_read_input_tokens, Codex's cached_input_tokens).
  expect(row("claude")).toMatchObject({ requests: 1, input_tokens: 575, cached_input_tokens: 35, output_tokens: 60 });
  expect(row("codex")).toMatchObject({ requests: 1, input_tokens: 606, cached_input_tokens: 150, output_tokens: 90 });
  expect(byAgent.total).toMatchObject({ requests: 5, input_tokens: 600 + 575 + 606, output_tokens: 60 + 60 + 90 });
  // Priced: the own model's (450 uncached input at 2, 150 cached at 1, 60 output at 10 per million); the agents' models are unpriced.
  expect(row("scv (own model)")!.cost).toBeCloseTo((450 * 2 + 150 * 1 + 60 * 10) / 1e6, 12);
  expect(row("claude")!.cost).toBeUndefined();
  expect(byAgent.total.unpriced_tokens).toBe(575 + 60 + 606 + 90);

  const byOrigin = await usageJson(h.env, h.workspace, "origin");
  expect(byOrigin.rows.map((x) => x.key)).toEqual(["exec"]);
  const table = await runBinary(["usage", "--by", "agent"], h.env, h.workspace);
  expect(table.stdout).toMatch(/^AGENT\s+CALLS\s+INPUT\s+CACHED\s+HIT\s+OUTPUT\s+REASONING\s+COST$/m);
  expect(table.stdout).toMatch(/^total\s+5\s+1,781\s+335\s+19%\s+210\s+0\s+0\.001[67]\+$/m);
  expect(table.stdout).toMatch(/^scv \(own model\)\s+3\s+600\s+150\s+25%\s/m);
  expect(table.stdout).toContain('+: 1,331 tokens of models with no [prices."<model>"] entry are not in the cost');
  // --by session names each session by its first prompt (issue 56).
  const bySession = await runBinary(["usage", "--by", "session"], h.env, h.workspace);
  expect(bySession.stdout).toMatch(/^SESSION\s+CALLS\s+INPUT\s+CACHED\s+HIT\s+OUTPUT\s+REASONING\s+COST\s+FIRST PROMPT$/m);
  expect(bySession.stdout).toMatch(/^s-[0-9a-f]{8}\s+5\s.*\s+delegate the work$/m);
  const bad = await runBinary(["usage", "--by", "colour"], h.env, h.workspace);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain('--by "colour" is not a grouping: use one of day, model, agent, origin, session');
});

test("a limit reached mid-session refuses the next turn saying which and when it resets; --over-budget goes over it once", async () => {
  const h = agentsHome("[limits]\ndaily_tokens = 1000\n");
  const { server, result } = await serverSession(h);
  const sid = result.session_id;
  // The first request uses 900 tokens and asks for a tool; the step finishes, then the limit stops the turn.
  fake.queue(toolCalls([{ name: "read", arguments: { path: "missing.txt" } }], { usage: { input_tokens: 800, output_tokens: 100 } }), text("under", { usage: { input_tokens: 50, output_tokens: 50 } }));
  await server.call("turn.start", { session_id: sid, prompt: "first" });
  const first = await server.waitFor((m) => m.method === "turn.ended" && m.params.turn_id === "t1");
  expect(first.params.status).toBe("completed");
  fake.queue(text("over", { usage: { input_tokens: 10, output_tokens: 10 } }));
  await server.call("turn.start", { session_id: sid, prompt: "second" });
  const second = await server.waitFor((m) => m.method === "turn.ended" && m.params.turn_id === "t2");
  expect(second.params.status).toBe("failed");
  expect(second.params.error.class).toBe("limit");
  expect(second.params.error.message).toMatch(/limits\.daily_tokens is reached \(1,000 of 1,000 tokens used today\); it resets at \d{4}-\d\d-\d\d 00:00/);
  expect(fake.pending()).toBe(1); // no request was sent for the refused turn
  await server.kill();

  const refused = await runBinary(["exec", "again"], h.env, h.workspace);
  expect(refused.code).not.toBe(0);
  expect(refused.stderr + refused.stdout).toContain("limits.daily_tokens is reached");
  const over = await runBinary(["exec", "--over-budget", "again"], h.env, h.workspace);
  expect(over.code).toBe(0);
  expect(over.stdout).toContain("over");
});

test("SIGKILL while the index is locked: the next start has the whole ledger and index from the session file", async () => {
  const h = agentsHome();
  const { server, result } = await serverSession(h);
  fake.queue(text("warm", { usage: { input_tokens: 1, output_tokens: 1 } }));
  await server.call("turn.start", { session_id: result.session_id, prompt: "warm up" });
  await server.waitFor((m) => m.method === "turn.ended");
  await waitForEntries(join(h.home, "state", "index.sqlite"), 1);
  // Another process holds the index's write lock: the next entries wait in the server's queue.
  const index = new Database(join(h.home, "state", "index.sqlite"));
  index.run("PRAGMA busy_timeout = 5000"); // the server may be indexing its turn's end this moment
  index.run("BEGIN IMMEDIATE");
  fake.queue(toolCalls([{ name: "read", arguments: { path: "none.txt" } }], { usage: { input_tokens: 70, output_tokens: 7 } }), hang("half an answer"));
  await server.call("turn.start", { session_id: result.session_id, prompt: "the quokka question" });
  await server.waitFor((m) => m.method === "assistant.delta" && m.params.turn_id === "t2");
  await server.kill();
  index.run("ROLLBACK");
  index.close();

  const usage = await usageJson(h.env, h.workspace, "session");
  expect(usage.total).toMatchObject({ requests: 2, input_tokens: 71, output_tokens: 8 });
  const listed = await runBinary(["sessions", "list", "--json"], h.env, h.workspace);
  expect(JSON.parse(listed.stdout).sessions[0]).toMatchObject({ id: result.session_id, turns: 2, first_prompt: "warm up" });
  // Counted once, however many starts catch up.
  expect((await usageJson(h.env, h.workspace, "session")).total.input_tokens).toBe(71);
});

/** Waits until the index holds `n` ledger entries (the server writes them just after each request). */
async function waitForEntries(file: string, n: number) {
  for (let i = 0; i < 100; i++) {
    try {
      const db = new Database(file, { readonly: true });
      const count = (db.query("SELECT count(*) AS n FROM ledger").get() as { n: number }).n;
      db.close();
      if (count >= n) return;
    } catch {
      // not created yet
    }
    await Bun.sleep(50);
  }
  throw new Error(`the index never held ${n} ledger entries`);
}

test("no model request happens without a prompt: an idle session sends nothing", async () => {
  const h = agentsHome();
  const start = fake.requests.length;
  const { server, result } = await serverSession(h);
  fake.queue(text("only this", { usage: { input_tokens: 5, output_tokens: 5 } }));
  await server.call("turn.start", { session_id: result.session_id, prompt: "one question" });
  await server.waitFor((m) => m.method === "turn.ended");
  const before = fake.requests.length;
  await Bun.sleep(2500);
  expect(fake.requests.length).toBe(before);
  expect(before - start).toBe(1);
});
