// An ACP agent's permission request reaches the client as the session's own approval.requested, with the
// conversation in its summary, and the client's answer goes back to the agent.
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ACP_AGENT, ACP_SERVER, script } from "../fake/acp-harness";
import { type Harness, startHarness } from "../fake/harness";
import { text, toolCalls } from "../fake/model-server";

let h: Harness | undefined;
let userHome: string | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  if (userHome) rmSync(userHome, { recursive: true, force: true });
});

test("relayed through the gate as agent: [claude-1 acp] <title> (<kind>), file-system risk, the denial reaches the agent", async () => {
  userHome = mkdtempSync(join(tmpdir(), "scv-acp-home-"));
  mkdirSync(join(userHome, ".local", "bin"), { recursive: true });
  symlinkSync(ACP_AGENT, join(userHome, ".local", "bin", "claude-agent-acp"));
  h = await startHarness({ env: { HOME: userHome, PATH: "/nonexistent", FAKE_ACP_SERVER: ACP_SERVER, FAKE_ACP_BUN: process.execPath } });
  const diff = [{ type: "diff", path: "/w/notes.txt", oldText: null, newText: "a\nb\n" }];
  const prompt = script([{ ask: { title: "Write notes.txt", kind: "edit", locations: [{ path: "/w/notes.txt" }], content: diff } }]);
  h.fake.queue(toolCalls([{ name: "agent", arguments: { agent: "claude", prompt } }]), text("done"));
  const sid = await h.start();
  const { turn_id } = await h.request("turn.start", { session_id: sid, prompt: "delegate" });
  const launch = await h.waitFor("approval.requested");
  expect(launch).toMatchObject({ tool: "agent", risk: "delegate" });
  expect(launch.summary).toContain("as its Agent Client Protocol server");
  await h.request("approval.resolve", { session_id: sid, approval_id: launch.approval_id, approved: true });
  const relayed = await h.waitFor("approval.requested", (p) => p.approval_id !== launch.approval_id);
  expect(relayed).toMatchObject({ tool: "agent", risk: "filesystem", summary: "[claude-1 acp] Write notes.txt (edit)\ncreate /w/notes.txt +2 -0", call_id: launch.call_id });
  await h.request("approval.resolve", { session_id: sid, approval_id: relayed.approval_id, approved: false });
  const completed = await h.waitFor("tool.completed", (p) => p.tool === "agent");
  expect(JSON.parse(completed.output)).toMatchObject({ status: "completed", reply: "permission: reject", session: "claude-1" });
  await h.waitFor("turn.ended", (p) => p.turn_id === turn_id);
}, 20_000);

test("inside a background job nobody is asked: the denial reaches the agent and the client hears of it with the job", async () => {
  userHome = mkdtempSync(join(tmpdir(), "scv-acp-home-"));
  mkdirSync(join(userHome, ".local", "bin"), { recursive: true });
  symlinkSync(ACP_AGENT, join(userHome, ".local", "bin", "claude-agent-acp"));
  h = await startHarness({ env: { HOME: userHome, PATH: "/nonexistent", FAKE_ACP_SERVER: ACP_SERVER, FAKE_ACP_BUN: process.execPath } });
  const prompt = script([{ ask: { title: "Read a.ts", kind: "read" } }, { ask: { title: "Write b.ts", kind: "edit" } }]);
  h.fake.queue(toolCalls([{ name: "agent", arguments: { agent: "claude", prompt, background: true } }]), text("started"), text("reported"));
  const sid = await h.start({ auto_approve: false });
  await h.request("turn.start", { session_id: sid, prompt: "delegate in the background" });
  const launch = await h.waitFor("approval.requested");
  await h.request("approval.resolve", { session_id: sid, approval_id: launch.approval_id, approved: true });
  const denied = await h.waitFor("approval.denied_unattended", undefined, 15_000);
  expect(denied).toMatchObject({ session_id: sid, job: "job-1", tool: "agent", risk: "filesystem", summary: "[claude-1 acp] Write b.ts (edit)" });
  expect(denied.reason.length).toBeGreaterThan(0);
  // Only the write was denied: the read-only request was approved without a word to the client.
  expect(h.events.filter((e) => e.method === "approval.denied_unattended").length).toBe(1);
  expect(h.events.filter((e) => e.method === "approval.requested").length).toBe(1);
  const report = await h.waitFor("turn.started", (p) => p.origin.kind === "background", 15_000);
  expect(report.prompt).toContain("permission: reject");
}, 30_000);
