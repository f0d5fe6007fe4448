// A chat owner's session approves unasked, but never a command the guard blocks (through the real daemon).
import { afterEach, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeModelForFile } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";
import { cleanupBridges, makeBridge, sendMessage, startDaemon, waitForOut } from "./helpers";

const fake = fakeModelForFile();
afterEach(async () => {
  await cleanupBridges();
  fake.clear();
  fake.requests.length = 0;
});

test("the owner's auto-approved session refuses rm -rf ~ and tells the model why; a plain command still runs", async () => {
  const b = makeBridge(fake.url);
  writeFileSync(join(b.env.HOME!, "keep.txt"), "mine");
  fake.queue(
    toolCalls([{ name: "bash", arguments: { command: "rm -rf ~" } }, { name: "bash", arguments: { command: "touch made-by-owner" } }]),
    text("refused the first"),
  );
  await startDaemon(b);
  sendMessage(b, { text: "tidy my home" });
  const [reply] = await waitForOut(b, 1);
  expect(reply.text).toBe("refused the first");
  expect(existsSync(join(b.env.HOME!, "keep.txt"))).toBe(true);
  expect(existsSync(join(b.workspace, "made-by-owner"))).toBe(true); // auto-approval still works for the rest
  const followUp = JSON.stringify(fake.requests.at(-1)!.body);
  expect(followUp).toContain("not run: refused");
  expect(followUp).toContain("home directory");
}, 30_000);
