// Which sessions carry the owner's memory, decided by the server: the owner's (no channel, or the chat the
// bridge marks as the owner's), never a delegated session or another chat, and none when memory is off.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Harness, startHarness } from "../fake/harness";
import { startFakeModel, text, toolCalls } from "../fake/model-server";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const toolNames = (body: any): string[] => (body.tools ?? []).map((t: any) => t.name);

async function firstRequest(params: Record<string, unknown>) {
  await h.request("initialize", { protocol_version: 3 }).catch(() => {});
  const { session_id, tools } = await h.request("session.start", { cwd: h.workspace, ...params });
  h.fake.queue(text("ok"));
  await h.turn(session_id, "hi");
  const body = h.fake.requests.at(-1)!.body;
  return { tools: tools as string[], offered: toolNames(body), instructions: body.instructions as string };
}

function remember(home: string) {
  mkdirSync(join(home, "memory"), { recursive: true, mode: 0o700 });
  writeFileSync(join(home, "memory", "USER.md"), "- Owner-only fact: the cat is called Mochi.\n", { mode: 0o600 });
}

test("the owner's sessions carry memory; a delegated one and another chat's do not", async () => {
  h = await startHarness();
  remember(h.home);
  const owner = await firstRequest({});
  expect(owner.tools).toContain("memory");
  expect(owner.instructions).toContain("the cat is called Mochi");

  const delegated = await firstRequest({ delegation_depth: 1 });
  expect(delegated.tools).not.toContain("memory");
  expect(delegated.instructions).not.toContain("Mochi");

  const stranger = await firstRequest({ channel: { kind: "dir", account: "default", conversation: "someone" } });
  expect(stranger.offered).not.toContain("memory");
  expect(stranger.instructions).not.toContain("Mochi");

  const chatOwner = await firstRequest({ channel: { kind: "dir", account: "default", conversation: "owner-1", owner: true } });
  expect(chatOwner.tools).toContain("memory");
  expect(chatOwner.instructions).toContain("Mochi");

  // stored before the bridge said `owner`: only the owner's chat has a log
  const legacyOwner = await firstRequest({ channel: { kind: "dir", account: "default", conversation: "owner-1", log: join(h.home, "log") } });
  expect(legacyOwner.instructions).toContain("Mochi");

  const toolFree = await firstRequest({ tools: false });
  expect(toolFree.tools).toEqual([]);
  expect(toolFree.instructions).toContain("Mochi"); // still the owner: memory is read, not written
});

test("memory.enabled = false: no tool and nothing in the instructions", async () => {
  h = await startHarness({ config: "[memory]\nenabled = false\n" });
  remember(h.home);
  const owner = await firstRequest({});
  expect(owner.tools).not.toContain("memory");
  expect(owner.instructions).not.toContain("Mochi");
  expect(owner.instructions).not.toContain("# Memory");
});

test("the approval shows the change the memory tool will make, with the size after", async () => {
  h = await startHarness();
  remember(h.home);
  await h.request("initialize", { protocol_version: 3 });
  const { session_id } = await h.request("session.start", { cwd: h.workspace });
  h.fake.queue(toolCalls([{ name: "memory", arguments: { action: "replace", scope: "user", old_text: "Mochi", text: "Mochi (a tabby)" } }]), text("Updated."));
  const ended = h.turn(session_id, "my cat is a tabby");
  const asked = await h.waitFor("approval.requested");
  expect(asked).toMatchObject({ tool: "memory", risk: "filesystem" });
  expect(asked.summary).toBe(
    "memory replace USER.md (54 of 4096 bytes after), +1 -1 lines:\n@@ -1,1 +1,1 @@\n-- Owner-only fact: the cat is called Mochi.\n+- Owner-only fact: the cat is called Mochi (a tabby).",
  );
  await h.request("approval.resolve", { session_id, approval_id: asked.approval_id, approved: true });
  expect((await ended).status).toBe("completed");
  expect(readFileSync(join(h.home, "memory", "USER.md"), "utf8")).toBe("- Owner-only fact: the cat is called Mochi (a tabby).\n");
});

describe("the save step before compaction", () => {
  const pad = " (context)".repeat(500);
  const kindOf = (body: any) =>
    body.instructions.startsWith("You are compacting") ? "summary" : JSON.stringify(body.input.at(-1)).includes("[SCV, not the user]") ? "save" : "turn";

  async function twoTurns(config: string) {
    const fake = await startFakeModel({
      respond: (body) => (kindOf(body) === "save" ? text("nothing to save") : kindOf(body) === "summary" ? text("Summary.") : text(`Answered.${pad}`)),
    });
    h = await startHarness({ fake, config: `context_window = 6000\n${config}` });
    try {
      const sid = await h.start();
      await h.turn(sid, `First.${pad}`);
      const ended = await h.turn(sid, `Second.${pad}`);
      return { ended, kinds: fake.requests.map((r) => kindOf(r.body)) };
    } finally {
      await fake.close();
    }
  }

  test("a model with nothing to add answers in words: nothing is run or written, compaction goes on", async () => {
    const { ended, kinds } = await twoTurns("");
    expect(kinds).toEqual(["turn", "save", "summary", "turn"]);
    expect(ended.status).toBe("completed");
    expect(h.events.filter((e) => e.method === "tool.started")).toEqual([]);
    expect(h.events.filter((e) => e.method === "assistant.delta").map((e) => e.params.text).join("")).not.toContain("nothing to save");
  });

  test("a first turn with nothing older to summarise (one step over the threshold) gets no save step: no compaction is coming", async () => {
    const fake = await startFakeModel({ respond: (body) => (kindOf(body) === "turn" ? text("Answered.") : text("nothing to save")) });
    h = await startHarness({ fake, config: "context_window = 6000\n" });
    try {
      const ended = await h.turn(await h.start(), `Only.${pad}${pad}`);
      expect(ended.status).toBe("completed");
      expect(fake.requests.map((r) => kindOf(r.body))).toEqual(["turn"]);
    } finally {
      await fake.close();
    }
  });

  test("a session without the memory tool compacts without the step", async () => {
    const { kinds } = await twoTurns("[memory]\nenabled = false\n");
    expect(kinds).toEqual(["turn", "summary", "turn"]);
  });
});
