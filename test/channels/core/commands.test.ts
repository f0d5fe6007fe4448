import { expect, test } from "bun:test";
import { accessFor, formerOwners, isOwner, SenderRate } from "../../../src/channels/core/access";
import { CHAT_COMMANDS, chatCommand } from "../../../src/channels/core/commands";

test("a chat command is its /name alone, in any case; anything more is an ordinary message", () => {
  expect(chatCommand(" /STOP ", false)?.name).toBe("stop");
  expect(chatCommand("/stop now", false)).toBeUndefined();
  expect(chatCommand("stop", false)).toBeUndefined();
  expect(chatCommand("/nonsense", true)).toBeUndefined();
  expect(new Set(CHAT_COMMANDS.map((c) => c.name)).size).toBe(CHAT_COMMANDS.length);
});

test("an owner-only command from anyone else is an ordinary message; /new waits its turn in the queue", () => {
  expect(chatCommand("/usage", true)?.name).toBe("usage");
  expect(chatCommand("/usage", false)).toBeUndefined();
  expect(chatCommand("/memory", false)?.name).toBe("memory"); // answered with a refusal, not sent to the model
  expect(chatCommand("/new", false)?.when).toBe("in_order");
  expect(chatCommand("/stop", false)?.when).toBe("now");
});

test("the owner is the adapter's owner now, in a direct chat only; a session of a former owner is found", () => {
  const channel = { key: "dir/a", adapter: { owner: "alice" } };
  expect(isOwner(channel, { direct: true, from: "alice" })).toBe(true);
  expect(isOwner(channel, { direct: false, from: "alice" })).toBe(false);
  expect(isOwner({ key: "dir/a", adapter: { owner: "" } }, { direct: true, from: "" })).toBe(false);
  const access = accessFor(channel, { direct: true, from: "alice" });
  expect(formerOwners(channel, access)).toBe(false);
  expect(formerOwners({ key: "dir/a", adapter: { owner: "bob" } }, access)).toBe(true);
  expect(formerOwners(channel, accessFor(channel, { direct: true, from: "eve" }))).toBe(false);
});

test("a sender over the rate is told once, then quiet, and ok again a minute later", () => {
  const rate = new SenderRate();
  expect(rate.take("s", 2, 0)).toBe("ok");
  expect(rate.take("s", 2, 1)).toBe("ok");
  expect(rate.take("s", 2, 2)).toBe("tell");
  expect(rate.take("s", 2, 3)).toBe("quiet");
  expect(rate.take("s", 2, 60_001)).toBe("ok");
});

test("/skills takes words after it (owner only); its reply lists the drafts and accepts one", async () => {
  const { mkdtempSync, rmSync, existsSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const { checkDraft, writeDraft } = await import("../../../src/skills/index");
  const { commandArg } = await import("../../../src/channels/core/commands");
  expect(chatCommand("/skills accept notes", true)?.name).toBe("skills");
  expect(chatCommand("/skills", false)).toBeUndefined();
  expect(chatCommand("/stop please", true)).toBeUndefined();
  expect(commandArg("/Skills  accept notes ")).toBe("accept notes");
  const home = mkdtempSync(join(tmpdir(), "scv-chat-skills-"));
  try {
    const input = { action: "create" as const, name: "notes", skill: "---\nname: notes\ndescription: Notes.\n---\nkeep notes\n" };
    writeDraft(home, input, checkDraft(input, { projectSkillNames: [], scvHome: home }));
    const replies: string[] = [];
    const ctx = { owner: true, arg: "", scvHome: home, reply: (t: string) => void replies.push(t) } as any;
    const skills = chatCommand("/skills", true)!;
    await skills.run(ctx);
    expect(replies[0]).toContain("notes: a new skill, drafted");
    expect(replies[0]).toContain("accept: /skills accept notes");
    expect(replies[0]).toContain("+keep notes");
    await skills.run({ ...ctx, arg: "accept notes" });
    expect(replies[1]).toBe("notes: in place; new sessions see it");
    expect(existsSync(join(home, "skills", "notes", "SKILL.md"))).toBe(true);
    await skills.run({ ...ctx, arg: "reject notes" });
    expect(replies[2]).toContain('there is no draft named "notes"');
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
