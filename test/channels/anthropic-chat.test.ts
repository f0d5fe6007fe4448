// A chat turn through the real daemon on a kind = "anthropic" profile (issue 53): the owner's message reaches
// Claude through the fake Messages API with the chat's tools, a tool call runs, the answer is sent back.
import { afterEach, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeModelForFile } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";
import { cleanupBridges, makeBridge, sendMessage, startDaemon, waitForOut } from "./helpers";

const KEY = "sk-ant-api03-chatTESTKEY0123456789";
const fake = fakeModelForFile({ anthropicKey: KEY });
afterEach(async () => {
  await cleanupBridges();
  fake.clear();
});

test("the owner's chat message is answered by Claude after a tool call", async () => {
  const b = makeBridge(fake.anthropicUrl);
  const file = join(b.home, "config.toml");
  writeFileSync(file, readFileSync(file, "utf8").replace("[providers.fake]\n", '[providers.fake]\nkind = "anthropic"\n'));
  b.env.ANTHROPIC_API_KEY = KEY;
  writeFileSync(join(b.workspace, "todo.txt"), "buy milk\n");
  fake.queue(toolCalls([{ name: "read", arguments: { path: "todo.txt" } }]), text("Your list says: buy milk."));
  await startDaemon(b);
  const asked = sendMessage(b, { text: "what is on my list?" });
  const [reply] = await waitForOut(b, 1, 20_000);
  expect(reply).toMatchObject({ to: "owner-1", text: "Your list says: buy milk.", in_reply_to: asked });
  const [first, second] = fake.requests.map((r) => r.body);
  expect(fake.requests.map((r) => r.path)).toEqual(["/v1/messages", "/v1/messages"]);
  expect(first.tools.map((t: { name: string }) => t.name)).toEqual(expect.arrayContaining(["read", "chat_attach", "chat_history"]));
  expect(JSON.stringify(second.messages.at(-1))).toContain("buy milk");
}, 30_000);
