// The dir channel through the real daemon process: owner vs other senders, queueing, commands, dedupe,
// crash recovery, retries and unprompted reports.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import { startFakeModel, text, hang, type FakeModel } from "../fake/model-server";
import { cleanupBridges, killDaemon, makeBridge, outMessages, sendMessage, startDaemon, waitFor, waitForOut } from "./helpers";

let fake: FakeModel;
beforeAll(async () => {
  fake = await startFakeModel();
});
afterAll(async () => {
  await fake.close();
});
afterEach(async () => {
  await cleanupBridges();
  fake.clear();
  fake.requests.length = 0;
});

test("the owner's direct chat gets tools; another sender gets a tool-free session", async () => {
  const b = makeBridge(fake.url);
  fake.queue(text("hello owner"), text("hello stranger"));
  await startDaemon(b);
  const ownerMsg = sendMessage(b, { text: "hi" });
  const [reply] = await waitForOut(b, 1);
  expect(reply).toMatchObject({ to: "owner-1", text: "hello owner", in_reply_to: ownerMsg, files: [] });
  sendMessage(b, { from: "stranger", text: "hi" });
  const all = await waitForOut(b, 2);
  expect(all.find((m) => m.to === "stranger")?.text).toBe("hello stranger");
  const [ownerReq, otherReq] = fake.requests.map((r) => r.body);
  const names = (body: any) => (body.tools ?? []).map((t: any) => t.name ?? t.function?.name);
  expect(names(ownerReq)).toEqual(expect.arrayContaining(["read", "bash", "chat_attach", "chat_history", "chat_keep"]));
  expect(names(otherReq)).toEqual([]);
  expect(JSON.stringify(ownerReq)).toContain("Chat channel");
  const inbox = require("node:fs").readdirSync(`${b.chat}/in`);
  expect(inbox).toEqual([]); // taken and removed once queued
}, 30_000);
