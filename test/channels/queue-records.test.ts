// Unreadable queue records through the real daemon with the dir channel (red team finding 5): an oversized or
// broken record in the inbound queue is moved aside with a log line; the daemon starts, `channels status`
// answers and the owner's next message is answered.
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeModelForFile, requireBinary } from "../fake/binary";
import { text } from "../fake/model-server";
import { cleanupBridges, makeBridge, sendMessage, startDaemon, waitForOut } from "./helpers";

const fake = fakeModelForFile();
afterEach(async () => {
  await cleanupBridges();
  fake.clear();
  fake.requests.length = 0;
});

test("an oversized and a broken queued message are moved aside; start-up, status and the next message are unaffected", async () => {
  const b = makeBridge(fake.url);
  const state = join(b.home, "state", "channels", "dir", "default");
  const queue = join(state, "queue");
  mkdirSync(queue, { recursive: true });
  const big = { seq: "000000000000001-000001", id: "big", conversation: "owner-1", from: "owner-1", direct: true, text: "x".repeat(17 * 1024 * 1024), files: [], received: "2026-01-01T00:00:00Z", state: "queued" };
  writeFileSync(join(queue, "000000000000001-000001.json"), JSON.stringify(big));
  writeFileSync(join(queue, "000000000000002-000002.json"), "{ not json");
  writeFileSync(join(queue, "000000000000003-000003.json"), JSON.stringify({ seq: 3 }));
  fake.queue(text("answered"));
  await startDaemon(b);
  sendMessage(b, { text: "hello after the bad records" });
  const [m] = await waitForOut(b, 1);
  expect(m!.text).toBe("answered");
  expect(readdirSync(join(state, "unreadable")).sort()).toEqual(["000000000000001-000001.json", "000000000000002-000002.json", "000000000000003-000003.json"]);
  expect(b.logText()).toContain("moved an unreadable queued message aside");
  const status = Bun.spawnSync([requireBinary(), "channels", "status"], { env: b.env });
  expect(status.exitCode).toBe(0);
}, 30_000);
