// Progress, permission requests, refused client methods, stop reasons and errors over ACP.
import { describe, expect, test } from "bun:test";
import type { Tool } from "../../../src/tools/tool";
import { type AcpFixture, acpCall, acpFixtures, script } from "../../fake/acp-harness";
import { invokeTool, makeCallContext } from "../../fake/scope";
import { jobsFor } from "../../../src/agents/jobs";

const setup = acpFixtures();

describe("progress", () => {
  test("message lines, tool titles, failures and plan steps; never thoughts or tool output; redacted", async () => {
    const { f, tool } = setup({ servers: ["claude"] });
    const r = await acpCall(f, tool, {
      agent: "claude",
      prompt: script([
        { thought: "secret reasoning" },
        { plan: [{ content: "Read the code", status: "in_progress" }, { content: "Fix it", status: "pending" }] },
        { say: "Looking at it.\nStill" },
        { tool: { toolCallId: "t1", title: "Terminal", kind: "execute", status: "pending", rawInput: {} } },
        { toolUpdate: { toolCallId: "t1", title: "curl -H 'Authorization: Bearer abcdef123456789' https://x.test/a?token=zzz", rawOutput: "OUTPUT-NEVER-SHOWN" } },
        { toolUpdate: { toolCallId: "t1", status: "failed", content: [{ type: "content", content: { type: "text", text: "OUTPUT-NEVER-SHOWN" } }] } },
        { tool: { toolCallId: "t2", kind: "read", status: "pending" } },
        { plan: [{ content: "Read the code", status: "completed" }, { content: "Fix it", status: "in_progress" }] },
        { say: " going.\nDone" },
      ]),
    });
    expect(r.json.reply).toBe("Looking at it.\nStill going.\nDone");
    const lines = r.ctx.progressLines;
    expect(lines).toContain("Read the code");
    expect(lines).toContain("Fix it");
    expect(lines).toContain("Looking at it.");
    expect(lines).toContain("Still going.");
    expect(lines).toContain("Terminal");
    expect(lines).toContain("read");
    expect(lines.some((l) => l.endsWith(" failed") && l.startsWith("curl"))).toBe(true);
    const all = lines.join("\n");
    expect(all).not.toContain("abcdef123456789");
    expect(all).not.toContain("zzz");
    expect(all).not.toContain("OUTPUT-NEVER-SHOWN");
    expect(all).not.toContain("secret reasoning");
    // The final line of the answer, still being written when the turn ended, is not progress.
    expect(lines).not.toContain("Done");
  });
});

describe("permission requests", () => {
  const ask = (title: string, kind: string, extra: Record<string, unknown> = {}) => ({ ask: { title, kind, ...extra } });

  test("approved → allow-once; denied → reject-once; the summary names the conversation; risks follow SCV's tools", async () => {
    const { f, tool } = setup({ servers: ["claude"] });
    const r = await acpCall(
      f,
      tool,
      {
        agent: "claude",
        prompt: script([
          ask("Write notes.txt", "edit"),
          ask("rm -rf build", "execute"),
          ask("Read src/a.ts", "read", { locations: [{ path: "/w/src/a.ts" }] }),
          ask("Read .env", "read", { locations: [{ path: "/w/.env" }] }),
          ask("Fetch https://x.test", "fetch"),
          ask("Switch mode", "switch_mode"),
        ]),
      },
      { gate: (req) => !req.summary.includes("rm -rf") },
    );
    expect(r.asked.map((a) => [a.summary.split("\n")[0], a.risk])).toEqual([
      ["[claude-1 acp] Write notes.txt (edit)", "filesystem"],
      ["[claude-1 acp] rm -rf build (execute)", "process"],
      ["[claude-1 acp] Read src/a.ts (read)", "read_only"],
      ["[claude-1 acp] Read .env (read)", "filesystem"],
      ["[claude-1 acp] Fetch https://x.test (fetch)", "network"],
      ["[claude-1 acp] Switch mode (switch_mode)", "delegate"],
    ]);
    expect(r.json.reply.split("\n").filter(Boolean)).toEqual([
      "permission: allow-once",
      "permission: reject",
      "permission: allow-once",
      "permission: allow-once",
      "permission: allow-once",
      "permission: allow-once",
    ]);
  });

  test("the summary also shows what the request touches: edits with line counts, locations, the command", async () => {
    const { f, tool } = setup({ servers: ["claude"] });
    const r = await acpCall(
      f,
      tool,
      {
        agent: "claude",
        prompt: script([
          ask("Edit a.ts", "edit", {
            locations: [{ path: "/w/src/a.ts" }],
            content: [
              { type: "diff", path: "/w/src/a.ts", oldText: "one\ntwo\n", newText: "one\n2\n3\n" },
              { type: "diff", path: "/w/src/new.ts", oldText: null, newText: "x" },
            ],
          }),
          ask("Terminal", "execute", { rawInput: { command: "curl -H 'Authorization: Bearer abc123def456' https://x.test" } }),
        ]),
      },
      { gate: () => true },
    );
    expect(r.asked.map((a) => a.summary)).toEqual([
      "[claude-1 acp] Edit a.ts (edit)\nedit /w/src/a.ts +3 -2\ncreate /w/src/new.ts +1 -0",
      "[claude-1 acp] Terminal (execute)\n$ curl -H 'Authorization: Bearer …' https://x.test",
    ]);
  });

  test("the always variants stand in when once is missing; neither means cancelled", async () => {
    const { f, tool } = setup({ servers: ["claude"] });
    const always = [
      { optionId: "yes-always", kind: "allow_always" },
      { optionId: "no-always", kind: "reject_always" },
    ];
    const r = await acpCall(
      f,
      tool,
      {
        agent: "claude",
        prompt: script([
          ask("one", "edit", { options: always }),
          ask("two", "execute", { options: always }),
          ask("three", "edit", { options: [{ optionId: "other", kind: "something_else" }] }),
        ]),
      },
      { gate: (req) => req.summary.includes("one") },
    );
    expect(r.json.reply.split("\n").filter(Boolean)).toEqual(["permission: yes-always", "permission: no-always", "permission: cancelled"]);
  });

  test("with no approval gate every request is rejected", async () => {
    const { f, tool } = setup({ servers: ["codex"] });
    const r = await acpCall(f, tool, { agent: "codex", prompt: script([ask("apply patch", "edit")]) });
    // codex-acp's string request IDs are answered too.
    expect(r.json.reply).toBe("permission: reject");
  });

  test("fs/* and terminal/* and anything else are answered method not found", async () => {
    const { f, tool } = setup({ servers: ["grok"] });
    const r = await acpCall(f, tool, {
      agent: "grok",
      prompt: script([{ request: "fs/read_text_file" }, { request: "fs/write_text_file" }, { request: "terminal/create" }, { request: "elicitation/create" }]),
    });
    expect(r.json.reply.split("\n")).toEqual([
      "fs/read_text_file: -32601",
      "fs/write_text_file: -32601",
      "terminal/create: -32601",
      "elicitation/create: -32601",
    ]);
  });
});

describe("stop reasons and errors", () => {
  test("refusal is declined, max_tokens completes with a note", async () => {
    const { f, tool } = setup({ servers: ["claude", "grok"] });
    const refused = await acpCall(f, tool, { agent: "claude", prompt: script([{ say: "I can't help with that." }], { stop: "refusal" }) });
    expect(refused.json).toMatchObject({ status: "declined", reply: "I can't help with that." });
    expect(refused.json.note).toContain('agent "grok"');
    const early = await acpCall(f, tool, { agent: "claude", prompt: script([{ say: "partial" }], { stop: "max_tokens" }) });
    expect(early.json).toMatchObject({ status: "completed", reply: "partial", note: "(stopped early: max_tokens)" });
  });

  test("a JSON-RPC error fails the call with the agent's redacted message and keeps the conversation", async () => {
    const { f, tool } = setup({ servers: ["grok", "claude"] });
    const r = await acpCall(f, tool, {
      agent: "grok",
      prompt: script([{ error: { code: -32603, message: "Internal error", data: { message: "API error (status 404 Not Found): key xai-abcdefghijklmnopqrstuvwx", http_status: 404 } } }]),
    });
    expect(r.json.status).toBe("failed");
    expect(r.json.error).toContain("API error (status 404 Not Found)");
    expect(r.json.error).not.toContain("xai-abcdefghijklmnop");
    expect(r.json.fallback).toContain("claude");
    expect(r.json.session).toBe("grok-1");
    const again = await acpCall(f, tool, { session: "grok-1", prompt: script([{ say: "ok" }]) });
    expect(again.json).toMatchObject({ status: "completed", reply: "ok", turn: 2 });
  });

  test("Authentication required on session/new fails with the sign-in hint and ends the conversation", async () => {
    const { f, tool } = setup({ servers: ["claude"], env: { FAKE_ACP_AUTH: "required" } });
    const r = await acpCall(f, tool, { agent: "claude", prompt: "hello" });
    expect(r.json).toMatchObject({ status: "failed", error: "Authentication required" });
    expect(r.json.hint).toContain("scv agents login claude");
    expect(r.json.session).toBeUndefined();
  });

  test("a protocol version other than 1 fails clearly", async () => {
    const { f, tool } = setup({ servers: ["codex"], env: { FAKE_ACP_PROTOCOL: "2" } });
    const r = await acpCall(f, tool, { agent: "codex", prompt: "hello" });
    expect(r.json.status).toBe("failed");
    expect(r.json.error).toContain("Agent Client Protocol version 2; SCV speaks version 1");
  });
});

describe("inside background jobs", () => {
  const steps = script([{ ask: { title: "Read a.ts", kind: "read" } }, { ask: { title: "Write b.ts", kind: "edit" } }]);

  async function runJob(f: AcpFixture, tool: Tool) {
    const ctx = makeCallContext(f.scope);
    ctx.approve = async () => {
      throw new Error("a job never asks the turn's gate");
    };
    const inv = await invokeTool(tool, { agent: "claude", background: true, prompt: steps }, ctx);
    const { job } = JSON.parse(inv.result.output);
    const j = jobsFor(f.scope).get(job);
    await j.done;
    return j.result!;
  }

  test("without auto_approve: read-only approved, the rest denied", async () => {
    const { f, tool } = setup({ servers: ["claude"] });
    const result = await runJob(f, tool);
    expect(result.reply.split("\n").filter(Boolean)).toEqual(["permission: allow-once", "permission: reject"]);
  });

  test("with the client's auto_approve: approved like the foreground", async () => {
    const { f, tool } = setup({ servers: ["claude"], autoApprove: true });
    const result = await runJob(f, tool);
    expect(result.reply.split("\n").filter(Boolean)).toEqual(["permission: allow-once", "permission: allow-once"]);
  });
});
