// `skill_manage` through the compiled binary: a skill the model drafts is shown whole as a diff, kept as a draft no
// session reads, offered only after `scv skills accept`, marked as SCV's in `scv skills list`; bad names, folders
// over the cap, secrets and drafts that would shadow a project skill are refused.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, fakeModelForEachTest, runBinary } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";

setDefaultTimeout(60_000);
const fake = fakeModelForEachTest();

const SKILL = "---\nname: release-checks\ndescription: Steps before tagging a release.\n---\n1. Run scripts/check.sh.\n2. Update CHANGELOG.md.\n";
const manage = (args: Record<string, unknown>) => toolCalls([{ name: "skill_manage", arguments: args }]);

function events(stdout: string): { method: string; params: any }[] {
  return stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l));
}

function lastToolOutput(): string {
  const input = fake.requests.at(-1)!.body.input as any[];
  return String(input.filter((i) => i.type === "function_call_output").at(-1)?.output);
}

describe("skill_manage", () => {
  test("a drafted skill is shown whole, kept as a draft nobody reads, and offered only after scv skills accept", async () => {
    const h = fakeHome(fake.url);
    // Without --yes on a pipe nobody approves: the card (approval.requested) still shows the whole draft as a diff.
    fake.queue(manage({ action: "create", name: "release-checks", skill: SKILL, files: { "scripts/check.sh": "#!/bin/sh\nbun test\n" } }), text("not kept"));
    const denied = await runBinary(["exec", "--json", "keep a skill"], h.env, h.workspace);
    const card = events(denied.stdout).find((e) => e.method === "approval.requested")!.params;
    expect(card.tool).toBe("skill_manage");
    expect(card.summary).toContain("create skill release-checks (a draft: used only after you accept it with scv skills accept release-checks)");
    expect(card.summary).toContain("--- SKILL.md (new file)\n@@ -0,0 +1,6 @@\n+---\n+name: release-checks\n");
    expect(card.summary).toContain("--- scripts/check.sh (new file)\n@@ -0,0 +1,2 @@\n+#!/bin/sh\n+bun test");
    expect(existsSync(join(h.env.SCV_HOME!, "skill-drafts"))).toBe(false);

    fake.queue(manage({ action: "create", name: "release-checks", skill: SKILL, files: { "scripts/check.sh": "#!/bin/sh\nbun test\n" } }), text("drafted"));
    const kept = await runBinary(["exec", "--yes", "keep a skill"], h.env, h.workspace);
    expect(kept.code).toBe(0);
    expect(lastToolOutput()).toContain("kept as a draft (new skill release-checks)");

    // The draft is not a skill yet: the next session neither lists it nor offers read_skill.
    fake.queue(text("hi"));
    await runBinary(["exec", "hi"], h.env, h.workspace);
    let body = fake.requests.at(-1)!.body;
    expect(JSON.stringify(body.instructions)).not.toContain("release-checks");
    expect(body.tools.map((t: any) => t.name)).not.toContain("read_skill");

    const drafts = await runBinary(["skills", "drafts"], h.env, h.workspace);
    expect(drafts.stdout).toContain("release-checks: a new skill, drafted");
    expect(drafts.stdout).toContain("accept: scv skills accept release-checks");
    expect(drafts.stdout).toContain("+2. Update CHANGELOG.md.");

    const accepted = await runBinary(["skills", "accept", "release-checks"], h.env, h.workspace);
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toBe("release-checks: in place; new sessions see it\n");
    expect((await runBinary(["skills", "drafts"], h.env, h.workspace)).stdout).toContain("no skill drafts");
    expect((await runBinary(["skills", "list"], h.env, h.workspace)).stdout).toContain("release-checks  Steps before tagging a release.  (written by SCV)");

    fake.queue(toolCalls([{ name: "read_skill", arguments: { name: "release-checks", file: "scripts/check.sh" } }]), text("read it"));
    await runBinary(["exec", "--yes", "release"], h.env, h.workspace);
    body = fake.requests.at(-1)!.body;
    expect(JSON.stringify(body.instructions)).toContain("release-checks: Steps before tagging a release.");
    expect(lastToolOutput()).toContain("bun test");

    // A removal is a draft too, and accepting it removes the folder.
    fake.queue(manage({ action: "delete", name: "release-checks" }), text("drafted removal"));
    await runBinary(["exec", "--yes", "forget it"], h.env, h.workspace);
    expect(existsSync(join(h.env.SCV_HOME!, "skills", "release-checks", "SKILL.md"))).toBe(true);
    expect((await runBinary(["skills", "accept", "release-checks"], h.env, h.workspace)).stdout).toBe("release-checks: removed the skill\n");
    expect(existsSync(join(h.env.SCV_HOME!, "skills", "release-checks"))).toBe(false);
  });

  test("bad names, folders over 256 KiB, a secret (base64, reversed), and shadowing a project skill are refused; reject throws a draft away", async () => {
    const key = "sk-fake-provider-key-0123456789abcdef";
    const h = fakeHome(fake.url, "api_key_env = \"FAKE_KEY\"\n");
    const env = { ...h.env, FAKE_KEY: key };
    mkdirSync(join(h.workspace, ".agents", "skills", "deploy"), { recursive: true });
    writeFileSync(join(h.workspace, ".agents", "skills", "deploy", "SKILL.md"), "---\nname: deploy\ndescription: Deploy.\n---\nsteps\n");
    const skill = (name: string, body = "steps\n") => `---\nname: ${name}\ndescription: A skill.\n---\n${body}`;
    fake.queue(
      manage({ action: "create", name: "../escape", skill: skill("escape") }),
      manage({ action: "create", name: "big", skill: skill("big", "x".repeat(300 * 1024)) }),
      manage({ action: "create", name: "keyed", skill: skill("keyed", `token: ${Buffer.from(key).toString("base64")}\n`) }),
      manage({ action: "create", name: "keyed-hex", skill: skill("keyed-hex", "token: PLACEHOLDER\n"), files: { "notes.md": [...key].reverse().join("") } }),
      manage({ action: "create", name: "deploy", skill: skill("deploy") }),
      manage({ action: "update", name: "nothing-here", skill: skill("nothing-here") }),
      manage({ action: "create", name: "kept", skill: skill("kept") }),
      text("done"),
    );
    const r = await runBinary(["exec", "--yes", "--json", "try"], env, h.workspace);
    expect(r.code).toBe(0);
    const outputs = events(r.stdout).filter((e) => e.method === "tool.completed").map((e) => e.params.output as string);
    expect(outputs[0]).toContain("must be a plain folder name");
    expect(outputs[1]).toContain("over the cap of 262144 (256 KiB)");
    expect(outputs[2]).toContain("looks like it holds a configured secret");
    expect(outputs[3]).toContain("notes.md looks like it holds a configured secret");
    expect(outputs[4]).toContain("would shadow the project skill");
    expect(outputs[5]).toContain("there is no skill named nothing-here");
    expect(outputs[6]).toContain("kept as a draft");
    expect(r.stdout).not.toContain(key);
    expect((await runBinary(["skills", "reject", "kept"], env, h.workspace)).stdout).toBe("kept: thrown away\n");
    const again = await runBinary(["skills", "accept", "kept"], env, h.workspace);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('there is no draft named "kept"');
  });
});
