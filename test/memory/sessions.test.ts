// Which sessions carry the owner's memory, decided by the server: the owner's (no channel, or the chat the
// bridge marks as the owner's), never a delegated session or another chat, and none when memory is off.
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Harness, startHarness } from "../fake/harness";
import { text } from "../fake/model-server";

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
