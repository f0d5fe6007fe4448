// Skills through a real session over the protocol and the fake model endpoint: the tool list, the system prompt
// the model receives, and a read_skill call whose result goes back to the model.
import { afterEach, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { text, toolCalls } from "../fake/model-server";
import { type Harness, startHarness } from "../fake/harness";
import { writeSkill } from "../fake/skills";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  if (h) rmSync(dirname(h.home), { recursive: true, force: true });
  h = undefined;
});

async function harnessWithSkills() {
  const home = join(process.env.HOME!, `skills-session-${process.pid}-${Date.now()}`);
  h = await startHarness({ env: { HOME: home } });
  writeSkill(join(home, ".agents", "skills", "release-checks"), "release-checks", "Run the release checklist.", "1. bun test\n");
  writeSkill(join(h.workspace, "web", ".claude", "skills", "deploy"), "deploy", "Deploy the site.");
  return { h, home };
}

test("a tool-enabled session offers read_skill, lists skills in its prompt, and reads one by name", async () => {
  const { h, home } = await harnessWithSkills();
  try {
    h.fake.queue(toolCalls([{ name: "read_skill", arguments: { name: "release-checks" } }]), text("Following the checklist."));
    await h.request("initialize", { protocol_version: 3 });
    const started = await h.request("session.start", { cwd: h.workspace });
    expect(started.tools).toContain("read_skill");
    const ended = await h.turn(started.session_id, "cut a release");
    expect(ended.status).toBe("completed");
    const first = h.fake.requests[0]!.body;
    expect(first.instructions).toContain("## Skills");
    expect(first.instructions).toContain("- release-checks: Run the release checklist.");
    expect(first.instructions).toContain("## Project skills");
    expect(first.instructions).toContain("- web:deploy: Deploy the site.");
    const completed = await h.waitFor("tool.completed");
    expect(completed).toMatchObject({ tool: "read_skill", ok: true });
    expect(JSON.stringify(h.fake.requests[1]!.body.input)).toContain("1. bun test");
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test("a tool-free session gets no skills and no read_skill", async () => {
  const { h, home } = await harnessWithSkills();
  try {
    h.fake.queue(text("no tools here"));
    await h.request("initialize", { protocol_version: 3 });
    const started = await h.request("session.start", { cwd: h.workspace, tools: false });
    expect(started.tools).toEqual([]);
    await h.turn(started.session_id, "cut a release");
    const body = h.fake.requests[0]!.body;
    expect(body.instructions).not.toContain("Skills");
    expect(body.instructions).not.toContain("release-checks");
    expect(body.tools ?? []).toEqual([]);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
