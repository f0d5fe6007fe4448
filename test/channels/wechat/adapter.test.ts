// The WeChat adapter in process against the fake iLink server: network failures back off and keep the cursor,
// a stop aborts the long poll at once, and the reply window holds what comes after it.
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AdapterContext, ChannelState, InboundMessage } from "../../../src/channels/core/adapter";
import { backoffMs, WechatAdapter } from "../../../src/channels/wechat/adapter";
import { saveLogin } from "../../../src/channels/wechat/store";
import { startFakeIlink } from "../../fake/ilink-server";
import { waitFor } from "../helpers";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(opts: { pollMs?: number; windowMs?: number } = {}) {
  const ilink = await startFakeIlink({ pollMs: opts.pollMs ?? 1000 });
  const home = mkdtempSync(join(tmpdir(), "scv-wechat-"));
  cleanups.push(() => ilink.close(), () => rmSync(home, { recursive: true, force: true }));
  saveLogin(home, "default", { bot_token: ilink.token, bot_id: ilink.botId, base_url: ilink.url, owner: ilink.ownerId, saved_at: new Date().toISOString() });
  const adapter = new WechatAdapter({
    scvHome: home,
    account: "default",
    baseUrl: ilink.url,
    cdnBaseUrl: ilink.cdnUrl,
    replyBudget: 10,
    replyWindowMs: opts.windowMs ?? 3_600_000,
    sendMaxAttempts: 8,
    loginCheckMs: 100,
  });
  const received: InboundMessage[] = [];
  const states: ChannelState[] = [];
  const ctx: AdapterContext = {
    receive: async (m) => void received.push(m),
    setState: (s) => void states.push(s),
    release: () => {},
    log: () => {},
  };
  const abort = new AbortController();
  const running = adapter.connect(ctx, abort.signal);
  cleanups.push(async () => {
    abort.abort();
    await running;
  });
  await waitFor(() => states.at(-1)?.state === "connected", 25_000, "connected");
  return { ilink, adapter, received, states, abort, running, home };
}

test("backoff doubles from 1 s to a cap, with jitter between half and all of it", () => {
  for (let i = 0; i < 50; i++) {
    const first = backoffMs(1);
    expect(first).toBeGreaterThanOrEqual(500);
    expect(first).toBeLessThanOrEqual(1000);
    const late = backoffMs(20);
    expect(late).toBeGreaterThanOrEqual(15_000);
    expect(late).toBeLessThanOrEqual(30_000);
  }
  expect(new Set(Array.from({ length: 20 }, () => backoffMs(5))).size).toBeGreaterThan(1);
});

test("network failures back off, reconnect and keep the cursor", async () => {
  const { ilink, received, states } = await setup();
  ilink.push([{ type: 1, text_item: { text: "one" } }]);
  await waitFor(() => received.length === 1, 25_000, "the first message");
  await waitFor(() => ilink.cursors.at(-1) === "c1", 25_000, "a poll with the new cursor");
  const from = ilink.cursors.length;
  ilink.failPolls = 2;
  await waitFor(() => ilink.failPolls === 0, 25_000, "two failed polls");
  await waitFor(() => states.at(-1)?.state === "connecting", 25_000, "the channel to show it is reconnecting");
  expect((states.at(-1) as { reason?: string }).reason).toMatch(/getupdates failed: WeChat getupdates answered HTTP 502; retrying in \d\.\d s/);
  ilink.push([{ type: 1, text_item: { text: "two" } }]);
  await waitFor(() => received.length === 2, 10_000, "the message after the failures");
  expect(received.map((m) => m.text)).toEqual(["one", "two"]);
  expect(states.at(-1)!.state).toBe("connected");
  // The failed polls and the one after them all asked from the same cursor: nothing skipped.
  const polls = ilink.cursors.slice(from);
  const beforeTwo = polls.includes("c2") ? polls.slice(0, polls.indexOf("c2")) : polls;
  expect(beforeTwo.length).toBeGreaterThanOrEqual(3);
  expect(beforeTwo.every((c) => c === "c1")).toBe(true);
});

test("a stop aborts the open long poll at once", async () => {
  const { ilink, abort, running } = await setup({ pollMs: 30_000 });
  await waitFor(() => ilink.pollsOpen() > 0, 25_000, "a long poll to be open");
  const began = Date.now();
  abort.abort();
  await running;
  expect(Date.now() - began).toBeLessThan(10_000); // not the 30 s poll; notifystop is bounded too
  await waitFor(() => ilink.pollsOpen() === 0, 25_000, "the server to see the poll end");
});

test("outside the reply window a report is held, not sent; the next message opens the window again", async () => {
  const { ilink, adapter, received } = await setup({ windowMs: 300 });
  expect(await adapter.send({ idempotencyKey: "early", conversation: ilink.ownerId, text: "before any message", files: [] })).toMatchObject({ status: "held" });
  ilink.push([{ type: 1, text_item: { text: "hello" } }]);
  await waitFor(() => received.length === 1, 25_000, "the message");
  expect(await adapter.send({ idempotencyKey: "r1", conversation: ilink.ownerId, text: "in time", files: [] })).toEqual({ status: "sent" });
  // The same record again (a crash before the outbox noted it) sends nothing.
  expect(await adapter.send({ idempotencyKey: "r1", conversation: ilink.ownerId, text: "in time", files: [] })).toEqual({ status: "sent" });
  await Bun.sleep(400);
  expect(await adapter.send({ idempotencyKey: "report", conversation: ilink.ownerId, text: "a late report", files: [] })).toMatchObject({ status: "held" });
  expect(ilink.attempts.map((a) => a.item.text_item.text)).toEqual(["in time"]);
  const again = ilink.push([{ type: 1, text_item: { text: "again" } }]);
  await waitFor(() => received.length === 2, 25_000, "the second message");
  expect(await adapter.send({ idempotencyKey: "report", conversation: ilink.ownerId, text: "a late report", files: [] })).toEqual({ status: "sent" });
  expect(ilink.sent.map((s) => [s.item.text_item.text, s.context_token])).toEqual([
    ["in time", `ctx-${again - 1}`],
    ["a late report", `ctx-${again}`],
  ]);
});
