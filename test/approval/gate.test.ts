import { expect, test } from "bun:test";
import { createApprovalGate } from "../../src/approval/gate";
import { TOOL_RISKS } from "../../src/scope";

const req = (risk: (typeof TOOL_RISKS)[number]) => ({ callId: "c1", tool: "t", risk, summary: "s" });

test("on-risk: read_only runs unasked; everything else asks the client", async () => {
  const asked: string[] = [];
  const gate = createApprovalGate({ policy: "on-risk", autoApprove: false, ask: async (r) => (asked.push(r.risk), r.risk === "process") });
  expect((await gate.decide(req("read_only"))).approved).toBe(true);
  expect(asked).toEqual([]);
  expect((await gate.decide(req("process"))).approved).toBe(true);
  const denied = await gate.decide(req("network"));
  expect(denied.approved).toBe(false);
  expect(denied.reason).toContain("denied");
  expect(asked).toEqual(["process", "network"]);
});

test("never: read_only runs, the rest is denied without asking, even with auto_approve", async () => {
  for (const autoApprove of [false, true]) {
    let asked = 0;
    const gate = createApprovalGate({ policy: "never", autoApprove, ask: async () => (asked++, true) });
    expect((await gate.decide(req("read_only"))).approved).toBe(true);
    for (const risk of TOOL_RISKS.filter((r) => r !== "read_only")) {
      const d = await gate.decide(req(risk));
      expect(d.approved).toBe(false);
      expect(d.reason).toContain("never");
    }
    expect(asked).toBe(0);
  }
});

test("auto_approve approves every request unasked under on-risk", async () => {
  let asked = 0;
  const gate = createApprovalGate({ policy: "on-risk", autoApprove: true, ask: async () => (asked++, false) });
  for (const risk of TOOL_RISKS) expect((await gate.decide(req(risk))).approved).toBe(true);
  expect(asked).toBe(0);
});

test("unattended decisions: policy, then auto_approve, then deny", () => {
  expect(createApprovalGate({ policy: "on-risk", autoApprove: false }).decideUnattended("read_only").approved).toBe(true);
  expect(createApprovalGate({ policy: "on-risk", autoApprove: false }).decideUnattended("process").approved).toBe(false);
  expect(createApprovalGate({ policy: "on-risk", autoApprove: true }).decideUnattended("process").approved).toBe(true);
  expect(createApprovalGate({ policy: "never", autoApprove: true }).decideUnattended("delegate").approved).toBe(false);
});

test("the command guard: block is refused under auto_approve and an allow override; allow runs unasked", async () => {
  let asked = 0;
  const block = { decision: "block" as const, reason: "refused: it deletes your home directory" };
  for (const opts of [{ autoApprove: true }, { autoApprove: false, perTool: { bash: "allow" as const } }]) {
    const gate = createApprovalGate({ policy: "on-risk", ...opts, ask: async () => (asked++, true) });
    const d = await gate.decide({ ...req("process"), tool: "bash", guard: block });
    expect(d).toEqual({ approved: false, reason: block.reason });
  }
  const gate = createApprovalGate({ policy: "on-risk", autoApprove: false, ask: async () => (asked++, false) });
  expect((await gate.decide({ ...req("process"), guard: { decision: "allow", reason: "literal and read-only: ls" } })).approved).toBe(true);
  expect((await gate.decide({ ...req("process"), guard: { decision: "prompt", reason: "`npm test` may run the repository's code" } })).approved).toBe(false);
  expect(asked).toBe(1);
});

test("[tools.approval] overrides: allow runs unasked, deny never runs, prompt asks even for a read-only tool", async () => {
  const asked: string[] = [];
  const perTool = { web_fetch: "allow", bash: "deny", read: "prompt" } as const;
  const gate = createApprovalGate({ policy: "on-risk", perTool, autoApprove: false, ask: async (r) => (asked.push(r.tool), true) });
  expect((await gate.decide({ ...req("network"), tool: "web_fetch" })).approved).toBe(true);
  const denied = await gate.decide({ ...req("process"), tool: "bash", guard: { decision: "allow", reason: "ls" } });
  expect(denied.approved).toBe(false);
  expect(denied.reason).toContain('bash = "deny"');
  expect((await gate.decide({ ...req("read_only"), tool: "read" })).approved).toBe(true);
  expect(asked).toEqual(["read"]);
  expect(createApprovalGate({ policy: "on-risk", perTool, autoApprove: true }).decideUnattended("process", "bash").approved).toBe(false);
});
