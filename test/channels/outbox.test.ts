// The outbox with a scripted adapter: holds keep a conversation's later messages behind the held one until
// released, a paused channel sends nothing, a refusal fails at once and is told to the owner.
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChannelAdapter, OutboundMessage, SendResult } from "../../src/channels/core/adapter";
import { Outbox } from "../../src/channels/core/outbox";
import { waitFor } from "./helpers";

const homes: string[] = [];
const stops: AbortController[] = [];
afterEach(() => {
  for (const s of stops.splice(0)) s.abort();
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
});

function setup(script: (m: OutboundMessage) => SendResult, extra: { tombstones?: number } = {}) {
  const home = mkdtempSync(join(tmpdir(), "scv-outbox-"));
  homes.push(home);
  const sent: OutboundMessage[] = [];
  let ready = true;
  const adapter: ChannelAdapter = {
    kind: "fake",
    account: "a",
    owner: "boss",
    ownerConversation: () => "boss",
    connect: async () => {},
    send: async (m) => {
      const r = script(m);
      if (r.status === "sent") sent.push(m);
      return r;
    },
  };
  const outbox = new Outbox({ scvHome: home, maxAttempts: 3, retryBaseMs: 20, adapter: () => adapter, ready: () => ready, log: () => {}, ...extra });
  const stop = new AbortController();
  stops.push(stop);
  void outbox.run(stop.signal);
  return { home, outbox, sent, setReady: (r: boolean) => ((ready = r), outbox.wake()) };
}

test("a held message keeps the conversation's later ones behind it until released; other conversations go on", async () => {
  let holdOnce = true;
  const { outbox, sent } = setup((m) => (m.text === "first" && holdOnce ? ((holdOnce = false), { status: "held", reason: "reply budget used up" }) : { status: "sent" }));
  outbox.add({ channel: "fake/a", conversation: "boss", text: "first" });
  outbox.add({ channel: "fake/a", conversation: "boss", text: "second" });
  outbox.add({ channel: "fake/a", conversation: "other", text: "elsewhere" });
  await waitFor(() => sent.length === 1, 25_000, "the other conversation's message");
  expect(sent.map((m) => m.text)).toEqual(["elsewhere"]);
  expect(outbox.counts("fake/a")).toMatchObject({ held: 1, pending: 1 });
  await Bun.sleep(100);
  expect(sent.length).toBe(1);
  outbox.release("fake/a", "boss");
  await waitFor(() => sent.length === 3, 25_000, "the released messages");
  expect(sent.map((m) => m.text)).toEqual(["elsewhere", "first", "second"]);
});

test("a channel that is not connected (paused) sends nothing until it is", async () => {
  const { outbox, sent, setReady } = setup(() => ({ status: "sent" }));
  setReady(false);
  outbox.add({ channel: "fake/a", conversation: "boss", text: "later" });
  await Bun.sleep(150);
  expect(sent).toEqual([]);
  setReady(true);
  await waitFor(() => sent.length === 1, 25_000, "the send once connected");
});

test("a refused send fails at once, its files are deleted, and the owner hears of it with the next message", async () => {
  const { outbox, sent, home } = setup((m) => (m.conversation === "stranger" ? { status: "refused", error: "blocked by the platform" } : { status: "sent" }));
  const src = join(home, "x.txt");
  writeFileSync(src, "x");
  const file = outbox.stage(src);
  const rec = outbox.add({ channel: "fake/a", conversation: "stranger", text: "hello", files: [file] });
  await waitFor(() => outbox.counts("fake/a").failed === 1, 25_000, "the refusal");
  expect(rec.attempts).toBe(1);
  expect(readdirSync(outbox.mediaDir)).toEqual([]);
  outbox.add({ channel: "fake/a", conversation: "boss", text: "news" });
  await waitFor(() => sent.length === 1, 25_000, "the owner's message");
  expect(sent[0]!.text).toContain("could not deliver an earlier message");
  expect(sent[0]!.text).toContain("blocked by the platform");
  expect(sent[0]!.text.endsWith("news")).toBe(true);
  expect(outbox.counts("fake/a").failed).toBe(0); // told once, then forgotten
});

test("the sender loop leaves no abort listener behind per wait (a daemon runs for months)", async () => {
  const home = mkdtempSync(join(tmpdir(), "scv-outbox-"));
  homes.push(home);
  const stop = new AbortController();
  stops.push(stop);
  let live = 0;
  // A signal that counts its listeners; it forwards to the real one so the loop still ends on abort.
  const counted = {
    get aborted() {
      return stop.signal.aborted;
    },
    addEventListener: (type: string, fn: () => void, opts?: AddEventListenerOptions) => (live++, stop.signal.addEventListener(type, fn, opts)),
    removeEventListener: (type: string, fn: () => void) => (live--, stop.signal.removeEventListener(type, fn)),
  } as unknown as AbortSignal;
  const outbox = new Outbox({ scvHome: home, maxAttempts: 3, retryBaseMs: 20, adapter: () => undefined, ready: () => true, log: () => {} });
  const running = outbox.run(counted);
  for (let i = 0; i < 50; i++) {
    outbox.wake();
    await Bun.sleep(2);
  }
  expect(live).toBeLessThanOrEqual(1);
  stop.abort();
  await running;
});

test("a message for after the quiet hours waits until then without holding up the conversation's others, also across a restart", async () => {
  const { home, outbox, sent } = setup(() => ({ status: "sent" }));
  const until = Date.now() + 700;
  outbox.add({ id: "quiet-1", channel: "fake/a", conversation: "boss", text: "after the quiet hours", notBefore: until });
  outbox.add({ channel: "fake/a", conversation: "boss", text: "a reply now" });
  await waitFor(() => sent.length === 1, 25_000, "the reply");
  expect(sent.map((m) => m.text)).toEqual(["a reply now"]);
  // A second outbox over the same files (a restart) keeps the time.
  const again = new Outbox({ scvHome: home, maxAttempts: 3, retryBaseMs: 20, adapter: () => undefined, ready: () => false, log: () => {} });
  expect(again.known("quiet-1")).toBe(true);
  await waitFor(() => sent.length === 2, 25_000, "the quiet-hours message");
  expect(Date.now()).toBeGreaterThanOrEqual(until);
  expect(sent[1]!.text).toBe("after the quiet hours");
});

test("sent records are kept as tombstones only up to a count: the outbox does not grow with every reply it ever sent", async () => {
  const { home, outbox, sent } = setup(() => ({ status: "sent" }), { tombstones: 10 });
  const ids: string[] = [];
  for (let i = 0; i < 40; i++) {
    ids.push(outbox.add({ id: `r-${i}`, channel: "fake/a", conversation: `c${i % 4}`, text: `reply ${i}` }).id);
    if (i % 10 === 9) await waitFor(() => sent.length === i + 1, 5000, "the replies so far");
  }
  // The newest ten are known (a repeated step keeps its record); the older ones are gone, in memory and on disk.
  expect(ids.filter((id) => outbox.known(id))).toEqual(ids.slice(30));
  const files = () => readdirSync(join(home, "state", "channels", "outbox")).filter((n) => n.endsWith(".json"));
  expect(files().length).toBe(10);
  // A restart loads no more than that either.
  const again = new Outbox({ scvHome: home, maxAttempts: 3, retryBaseMs: 20, adapter: () => undefined, ready: () => false, log: () => {}, tombstones: 5 });
  expect(ids.filter((id) => again.known(id))).toEqual(ids.slice(35));
  expect(files().length).toBe(5);
});
