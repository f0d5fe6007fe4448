// The interactive session on a kind = "anthropic" profile (issue 53), in a real terminal (tmux) against the fake
// Messages API: thinking shown as reasoning, a tool call, the answer; /model lists the endpoint's models.
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, removeFakeHomes, requireBinary } from "../fake/binary";
import { type FakeModel, startFakeModel, text, toolCalls } from "../fake/model-server";
import { openTerminal, type Terminal } from "../fake/tmux";

setDefaultTimeout(30_000);
const KEY = "sk-ant-api03-tuiTESTKEY0123456789";

let fake: FakeModel | undefined;
let pane: Terminal | undefined;
afterEach(async () => {
  pane?.close();
  pane = undefined;
  await fake?.close();
  fake = undefined;
  removeFakeHomes();
});

test("a turn on Claude: thinking shown as reasoning, a read, the answer; /model lists the endpoint's models", async () => {
  fake = await startFakeModel({ anthropicKey: KEY, models: ["claude-haiku-4-5", "claude-sonnet-4-5"] });
  const h = fakeHome(fake.anthropicUrl, 'kind = "anthropic"\nthinking = { budget_tokens = 2048 }\n');
  writeFileSync(join(h.workspace, "notes.txt"), "remember the milk\n");
  pane = openTerminal([requireBinary()], { env: { ...h.env, ANTHROPIC_API_KEY: KEY }, cwd: h.workspace });
  await pane.waitFor(/s-[0-9a-f]{8}/);
  fake.queue(toolCalls([{ name: "read", arguments: { path: "notes.txt" } }], { reasoning: "The notes file should say it." }), text("The notes say: remember the milk."));
  pane.type("what is in my notes?");
  pane.keys("Enter");
  const screen = await pane.waitFor("The notes say: remember the milk.");
  expect(screen).toContain("The notes file should say it.");
  expect(screen).toContain("notes.txt");
  const second = fake.requests.at(-1)!.body;
  expect(second.messages[1].content[0].type).toBe("thinking");
  pane.type("/model");
  pane.keys("Enter");
  const list = await pane.waitFor("claude-haiku-4-5");
  expect(list).toContain("claude-sonnet-4-5");
});
