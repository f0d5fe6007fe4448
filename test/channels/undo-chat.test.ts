// The chat owner's /undo, through the daemon and the directory channel: the first /undo shows what will change
// and changes nothing; the same /undo again restores the files the last turn changed. From anyone else /undo is
// an ordinary message.
import { afterEach, expect, test } from "bun:test";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeModelForFile } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";
import { cleanupBridges, makeBridge, outMessages, sendMessage, startDaemon, waitFor } from "./helpers";

const fake = fakeModelForFile();
afterEach(async () => {
  await cleanupBridges();
  fake.clear();
});

test("/undo in the owner's chat shows the change, then undoes the last turn's files when sent again", async () => {
  const b = makeBridge(fake.url);
  appendFileSync(join(b.home, "config.toml"), `[tools.approval]\nwrite = "allow"\n`);
  writeFileSync(join(b.workspace, "todo.txt"), "milk\n");
  fake.queue(toolCalls([{ name: "write", arguments: { path: "todo.txt", content: "milk\neggs\n", mode: "replace" } }]), text("Added eggs."));
  await startDaemon(b);
  sendMessage(b, { text: "add eggs to my list" });
  await waitFor(() => outMessages(b).some((m) => m.text === "Added eggs."), 20_000, "the turn's reply");
  expect(readFileSync(join(b.workspace, "todo.txt"), "utf8")).toBe("milk\neggs\n");
  const first = sendMessage(b, { text: "/undo" });
  await waitFor(() => outMessages(b).some((m) => m.in_reply_to === first), 10_000, "the /undo plan");
  const plan = outMessages(b).find((m) => m.in_reply_to === first)!.text;
  expect(plan).toContain("restore todo.txt");
  expect(plan).toContain("-eggs");
  expect(plan).toContain("Send /undo again");
  expect(readFileSync(join(b.workspace, "todo.txt"), "utf8")).toBe("milk\neggs\n");
  const again = sendMessage(b, { text: "/undo" });
  await waitFor(() => outMessages(b).some((m) => m.in_reply_to === again), 10_000, "the /undo result");
  expect(outMessages(b).find((m) => m.in_reply_to === again)!.text).toContain("Undone: 1 restored");
  expect(readFileSync(join(b.workspace, "todo.txt"), "utf8")).toBe("milk\n");
  expect(fake.requests.length).toBe(2); // neither /undo reached the model
  fake.queue(text("What should I undo?"));
  sendMessage(b, { from: "someone-else", text: "/undo" });
  await waitFor(() => outMessages(b).some((m) => m.text === "What should I undo?"), 20_000, "the model's answer to another sender's /undo");
  expect(JSON.stringify(fake.requests[2]!.body)).toContain("/undo");
}, 60_000);
