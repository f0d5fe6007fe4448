// The owner's command files in a chat, through the daemon and the directory channel: `/name args` from the owner
// runs as the file's prompt with its arguments; from anyone else the same text goes to the model as typed. (issue 56)
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeModelForFile } from "../fake/binary";
import { text } from "../fake/model-server";
import { cleanupBridges, makeBridge, outMessages, sendMessage, startDaemon, waitFor } from "./helpers";

const fake = fakeModelForFile();
afterEach(async () => {
  await cleanupBridges();
  fake.clear();
});

test("/name args of a command file from the owner is its prompt; from someone else it is a message", async () => {
  const b = makeBridge(fake.url);
  mkdirSync(join(b.home, "commands"), { recursive: true });
  writeFileSync(join(b.home, "commands", "remind.md"), "---\ndescription: a reminder note\n---\nWrite a short reminder about $ARGUMENTS.\n");
  fake.queue(text("Reminder written."));
  await startDaemon(b);
  sendMessage(b, { text: "/remind the dentist on Friday" });
  await waitFor(() => outMessages(b).some((m) => m.text === "Reminder written."), 20_000, "the command's reply");
  expect(JSON.stringify(fake.requests.at(-1)!.body)).toContain("Write a short reminder about the dentist on Friday.");
  fake.queue(text("Not sure what you mean."));
  sendMessage(b, { from: "someone-else", text: "/remind me" });
  await waitFor(() => outMessages(b).some((m) => m.text === "Not sure what you mean."), 20_000, "the reply to another sender");
  const other = JSON.stringify(fake.requests.at(-1)!.body);
  expect(other).toContain("/remind me");
  expect(other).not.toContain("Write a short reminder");
}, 60_000);
