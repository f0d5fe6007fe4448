// Limits that bind, through the real daemon with the dir channel (red team finding 10): no more than
// channels.max_concurrent_turns chat turns reach the model at once, and a non-owner over
// channels.sender_messages_per_minute is not answered, told once.
import { afterEach, expect, test } from "bun:test";
import { fakeModelForFile } from "../fake/binary";
import { hang, text } from "../fake/model-server";
import { cleanupBridges, makeBridge, outMessages, sendMessage, startDaemon, waitFor, waitForOut } from "./helpers";

const fake = fakeModelForFile();
afterEach(async () => {
  await cleanupBridges();
  fake.clear();
  fake.requests.length = 0;
});

test("twelve senders at once: at most 4 turns reach the model together; the rest wait their turn", async () => {
  const b = makeBridge(fake.url);
  for (let i = 0; i < 12; i++) fake.queue(hang());
  await startDaemon(b);
  for (let i = 0; i < 12; i++) sendMessage(b, { from: `sender-${i}`, text: `hello ${i}` });
  await waitFor(() => fake.requests.length >= 4, 10_000, "the first turns to reach the model");
  await Bun.sleep(1500);
  expect(fake.requests.length).toBe(4);
}, 30_000);

test("a non-owner sending 8 messages in a burst gets 5 answered and is told once about the rest", async () => {
  const b = makeBridge(fake.url);
  for (let i = 0; i < 8; i++) fake.queue(text(`answer ${i}`));
  await startDaemon(b);
  for (let i = 0; i < 8; i++) sendMessage(b, { from: "stranger", text: `message ${i}` });
  await waitForOut(b, 6);
  await Bun.sleep(1000);
  const out = outMessages(b);
  expect(out.filter((m) => m.text.startsWith("answer")).length).toBe(5);
  expect(out.filter((m) => m.text.includes("faster than SCV answers")).length).toBe(1);
  expect(fake.requests.length).toBe(5);
  // The owner is not limited.
  fake.clear();
  for (let i = 0; i < 7; i++) fake.queue(text(`owner answer ${i}`));
  for (let i = 0; i < 7; i++) sendMessage(b, { text: `owner ${i}` });
  await waitFor(() => outMessages(b).filter((m) => m.text.startsWith("owner answer")).length === 7, 20_000, "the owner's seven answers");
}, 40_000);
