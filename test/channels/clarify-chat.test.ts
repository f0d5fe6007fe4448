// The model's question (clarify) in the owner's chat, through the real daemon and the dir channel: the question
// goes to the conversation, the owner's next message answers it (never a prompt of its own), and with nobody
// answering the turn goes on after tools.clarify_timeout_seconds.
import { afterEach, expect, test } from "bun:test";
import { fakeModelForFile } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";
import { cleanupBridges, makeBridge, sendMessage, startDaemon, waitForOut } from "./helpers";

const fake = fakeModelForFile();
afterEach(async () => {
  await cleanupBridges();
  fake.clear();
  fake.requests.length = 0;
});

const ask = (question: string, choices?: string[]) => toolCalls([{ name: "clarify", arguments: { question, ...(choices ? { choices } : {}) } }]);
const outputs = (): string[] => (fake.requests.at(-1)!.body.input as any[]).filter((i) => i.type === "function_call_output").map((i) => String(i.output));

test("the question goes to the owner's chat and their next message (a choice's number) answers it", async () => {
  const b = makeBridge(fake.url);
  fake.queue(ask("Which database?", ["SQLite", "PostgreSQL"]), text("Setting up PostgreSQL."));
  await startDaemon(b);
  sendMessage(b, { text: "set up storage" });
  const [question] = await waitForOut(b, 1, 20_000);
  expect(question!.text).toStartWith("SCV asks: Which database?\n1. SQLite\n2. PostgreSQL\n(Reply with a number or your own answer; your next message answers it.");
  sendMessage(b, { text: "2" });
  const all = await waitForOut(b, 2, 20_000);
  expect(all[1]!.text).toBe("Setting up PostgreSQL.");
  expect(outputs()).toEqual(["The person answered: PostgreSQL"]);
  // The answer was not queued as a turn: two model requests in all (the question, then the reply).
  await Bun.sleep(300);
  expect(fake.requests.length).toBe(2);
}, 40_000);

test("nobody answering: the turn goes on after the bounded wait with no answer", async () => {
  const b = makeBridge(fake.url, "\n[tools]\nclarify_timeout_seconds = 1\n");
  fake.queue(ask("Deploy now?"), text("Not deploying without an answer."));
  await startDaemon(b);
  sendMessage(b, { text: "ship it" });
  const all = await waitForOut(b, 2, 20_000);
  expect(all[0]!.text).toStartWith("SCV asks: Deploy now?\n(Reply with your answer;");
  expect(all[1]!.text).toBe("Not deploying without an answer.");
  expect(outputs()[0]).toContain("No answer came within");
}, 40_000);
