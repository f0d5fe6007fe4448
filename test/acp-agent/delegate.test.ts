// SCV delegating to another SCV over ACP: `[agents.scv] transport = "acp"` makes the `agent` tool run
// `scv acp` through SCV's own ACP client, whose permission requests come back through the caller's approvals.
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, fakeModelForFile, runBinary, SCV_BINARY } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";

const fake = fakeModelForFile();
afterEach(() => fake.clear());

test("the agent tool talks to scv acp: the inner SCV's reply comes back and its write is approved by the caller", async () => {
  const outer = fakeHome(fake.url, `[agents.scv]\ntransport = "acp"\ncommand = "${SCV_BINARY}"\n`);
  const innerHome = join(outer.home, "agents", "scv");
  mkdirSync(innerHome, { recursive: true });
  writeFileSync(join(innerHome, "config.toml"), `[provider]\nactive = "fake"\n[providers.fake]\nbase_url = "${fake.url}"\nmodel = "inner-model"\napi_key = "sk-inner-test"\nmax_retries = 0\n`);
  fake.queue(
    toolCalls([{ id: "a1", name: "agent", arguments: { agent: "scv", prompt: "write inner.txt for me" } }]),
    toolCalls([{ id: "w1", name: "write", arguments: { path: "inner.txt", content: "from the inner SCV\n", mode: "create" } }]),
    text("inner done: wrote inner.txt"),
    text("outer done"),
  );
  const run = await runBinary(["exec", "--yes", "--json", "delegate to scv"], outer.env, outer.workspace);
  expect(run.stderr).not.toContain("error");
  expect(run.code).toBe(0);
  const events = run.stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l));
  const agentDone = events.find((e) => e.method === "tool.completed" && e.params.call_id === "a1")!.params;
  expect(agentDone.ok).toBe(true);
  expect(agentDone.output).toContain("inner done: wrote inner.txt");
  // The inner SCV, in its default "ask" mode, asked its client (the outer SCV) with session/request_permission;
  // the outer's gate approved it (--yes), so the write ran.
  expect(readFileSync(join(outer.workspace, "inner.txt"), "utf8")).toBe("from the inner SCV\n");
  // The inner SCV used its own model; the outer one launched it as `scv acp`.
  expect(fake.requests.map((r) => r.body.model)).toEqual(["fake-model", "inner-model", "inner-model", "fake-model"]);
  const started = events.find((e) => e.method === "tool.started" && e.params.call_id === "a1")!.params;
  expect(started.kind).toBe("other");
});
