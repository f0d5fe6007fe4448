// End to end: a real parent `dist/scv server --stdio` hands work to a real nested `dist/scv` (the running binary
// itself) through the `scv` agent, both against the scripted model endpoint. The nested bash call's approval
// reaches the parent's client with the `[scv-1 depth 1]` prefix and is answered there.
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { listRecords } from "../../src/process/delegation-records";
import { fakeHome, fakeModelForFile, runBinary } from "../fake/binary";
import { startStdioServer } from "../fake/stdio-client";
import { text, toolCalls } from "../fake/model-server";

const fake = fakeModelForFile();

test("a parent and a nested scv: delegated turn, relayed approval, progress, and teardown on EOF", async () => {
  const { env, home, workspace } = fakeHome(fake.url, '[agent]\nprefer = ["scv"]\n');
  const nestedHome = join(home, "agents", "scv");
  mkdirSync(nestedHome, { recursive: true });
  writeFileSync(
    join(nestedHome, "config.toml"),
    // auto_run off: the nested bash call asks (relayed) instead of running unasked inside the sandbox.
    `[provider]\nactive = "scv"\n[providers.scv]\nbase_url = "${fake.url}"\nmodel = "nested-model"\napi_key = "sk-nested-e2e-key"\nmax_retries = 0\n[sandbox]\nauto_run = false\n`,
    { mode: 0o600 },
  );
  fake.queue(
    toolCalls([{ name: "agent", arguments: { agent: "scv", prompt: "Create nested.txt saying hi." } }]),
    toolCalls([{ name: "bash", arguments: { command: "echo hi > nested.txt" } }], { text: "Writing the file now.\n" }),
    text("nested done"),
    text("parent done"),
  );
  const s = startStdioServer(env, workspace);
  s.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocol_version: 3 } });
  await s.waitFor((m) => m.id === 1);
  s.send({ jsonrpc: "2.0", id: 2, method: "session.start", params: { cwd: workspace } });
  const started = (await s.waitFor((m) => m.id === 2)).result;
  expect(started.tools).toContain("agent");
  const session_id = started.session_id;
  s.send({ jsonrpc: "2.0", id: 3, method: "turn.start", params: { session_id, prompt: "delegate it" } });

  // First the parent's own approval for the agent call, then the nested bash call's, relayed.
  const outer = await s.waitFor((m) => m.method === "approval.requested" && m.params.tool === "agent", 20_000);
  expect(outer.params.summary).toContain("agent scv: Start a nested SCV");
  s.send({ jsonrpc: "2.0", id: 4, method: "approval.resolve", params: { session_id, approval_id: outer.params.approval_id, approved: true } });
  const inner = await s.waitFor((m) => m.method === "approval.requested" && m.params.tool === "bash", 20_000);
  expect(inner.params.risk).toBe("process");
  expect(inner.params.summary).toStartWith("[scv-1 depth 1] ");
  expect(inner.params.summary).toContain("echo hi > nested.txt");
  expect(inner.params.call_id).toBe(outer.params.call_id);
  const during = listRecords(home).filter((r) => r.agent === "scv");
  expect(during).toHaveLength(1);
  expect(during[0]).toMatchObject({ conversation: "scv-1", depth: 1, turn: 1 });
  s.send({ jsonrpc: "2.0", id: 5, method: "approval.resolve", params: { session_id, approval_id: inner.params.approval_id, approved: true } });

  const ended = await s.waitFor((m) => m.method === "turn.ended", 30_000);
  expect(ended.params).toMatchObject({ status: "completed", reply: "parent done" });
  expect(readFileSync(join(workspace, "nested.txt"), "utf8")).toBe("hi\n");
  const completed = s.messages.find((m) => m.method === "tool.completed" && m.params.tool === "agent");
  const result = JSON.parse(completed.params.output);
  expect(result).toMatchObject({ agent: "scv", status: "completed", reply: "nested done", session: "scv-1", turn: 1 });
  const progress = s.messages.filter((m) => m.method === "tool.progress").map((m) => m.params.line);
  expect(progress).toContain("Writing the file now.");
  expect(JSON.stringify(s.messages)).not.toContain("sk-nested-e2e-key");

  // The nested model ran with the nested provider's model and key.
  const nestedRequests = fake.requests.filter((r) => r.body?.model === "nested-model");
  expect(nestedRequests).toHaveLength(2);
  expect(nestedRequests[0]!.headers.authorization).toBe("Bearer sk-nested-e2e-key");

  // The nested server idles between calls; EOF on the parent ends both.
  const idle = listRecords(home).filter((r) => r.agent === "scv");
  expect(idle).toHaveLength(1);
  expect(idle[0]!.idle_since_unix).toBeNumber();
  const nestedPid = idle[0]!.pid;
  s.proc.stdin.end();
  expect(await Promise.race([s.proc.exited, Bun.sleep(10_000).then(() => "hung")])).toBe(0);
  expect(existsSync(`/proc/${nestedPid}`)).toBe(false);
  expect(listRecords(home)).toEqual([]);
}, 60_000);

/** Runs a parent exec that delegates one turn to a nested SCV whose own home allows depth 5; returns the nested request's tools. */
async function nestedTools(parentMax: number): Promise<string[]> {
  const { env, home, workspace } = fakeHome(fake.url, `[agent]\nprefer = ["scv"]\nmax_delegation_depth = ${parentMax}\n`);
  // The nested home, and the one below it (so the nested SCV has an agent it could delegate to).
  for (const dir of [join(home, "agents", "scv"), join(home, "agents", "scv", "agents", "scv")]) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "config.toml"),
      `[provider]\nactive = "scv"\n[providers.scv]\nbase_url = "${fake.url}"\nmodel = "nested-model"\napi_key = "nested-depth-key"\nmax_retries = 0\n[agent]\nprefer = ["scv"]\nmax_delegation_depth = 5\n`,
      { mode: 0o600 },
    );
  }
  fake.clear();
  fake.requests.length = 0;
  fake.queue(toolCalls([{ name: "agent", arguments: { agent: "scv", prompt: "look around" } }]), text("nested done"), text("parent done"));
  const r = await runBinary(["exec", "--yes", "delegate"], env, workspace);
  expect(r.stdout + r.stderr).toContain("parent done");
  const nested = fake.requests.find((q) => q.body?.model === "nested-model")!;
  return (nested.body.tools ?? []).map((t: any) => t.name ?? t.function?.name);
}

test("the top-level max_delegation_depth binds nested SCVs whose own config allows more (red team finding 10)", async () => {
  expect(await nestedTools(1)).not.toContain("agent"); // the nested session is at depth 1 = min(5, 1)
  expect(await nestedTools(3)).toContain("agent"); // min(5, 3) = 3 > 1: it may delegate further
}, 60_000);
