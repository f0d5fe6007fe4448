// A card waiting in a terminal session reaches the owner's chat (issue 54): the TUI registers it with the running
// daemon after [notify] after_seconds; a stranger's answer is refused, the owner's `y <id>` runs the call and the
// TUI shows who answered; a second answer is told the card no longer waits.
import { afterEach, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fakeModelForFile, requireBinary } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";
import { openTerminal, type Terminal } from "../fake/tmux";
import { needs } from "../fake/needs";
import { cleanupBridges, makeBridge, outMessages, sendMessage, startDaemon, waitFor } from "../channels/helpers";

const fake = fakeModelForFile();
let pane: Terminal | undefined;
afterEach(async () => {
  pane?.close();
  pane = undefined;
  await cleanupBridges();
  fake.clear();
  fake.requests.length = 0;
});

const CONFIG = "[notify]\nafter_seconds = 1\n[sandbox]\nauto_run = false\n";
const replyTo = (b: ReturnType<typeof makeBridge>, id: string) => outMessages(b).find((m) => m.in_reply_to === id)?.text;

test.skipIf(!needs("tmux"))("a TUI card answered from the owner's chat runs the call; a stranger's answer is refused", async () => {
  // [notify] is a table after [channels]'s keys: the bridge's own [channels.dir] follows it.
  const b = makeBridge(fake.url);
  const { writeFileSync, readFileSync } = await import("node:fs");
  writeFileSync(join(b.home, "config.toml"), `${readFileSync(join(b.home, "config.toml"), "utf8")}${CONFIG}`);
  await startDaemon(b);
  fake.queue(toolCalls([{ name: "bash", arguments: { command: "touch made-from-chat" } }]), text("Made it."));
  pane = openTerminal([requireBinary()], { env: b.env, cwd: b.workspace });
  await pane.waitFor(/s-[0-9a-f]{8}/, 15_000);
  pane.type("make the file");
  pane.keys("Enter");
  await pane.waitFor("y approve once", 15_000);
  await waitFor(() => outMessages(b).some((m) => m.text.startsWith("[SCV needs you: bash")), 15_000, `the card in the owner's chat; log:\n${b.logText()}`);
  const card = outMessages(b).find((m) => m.text.startsWith("[SCV needs you: bash"))!;
  expect(card).toMatchObject({ to: "owner-1" });
  expect(card.text).toContain("touch made-from-chat");
  expect(card.text).toContain("in the terminal session s-");
  const id = /Reply y ([0-9a-f]{3}) to allow once/.exec(card.text)![1]!;
  // A stranger cannot answer it.
  const stranger = sendMessage(b, { from: "stranger-9", text: `y ${id}` });
  await waitFor(() => replyTo(b, stranger) !== undefined, 10_000, "the stranger's refusal");
  expect(replyTo(b, stranger)).toBe(`Only the owner of this SCV answers its approval cards; card ${id} was not answered.`);
  await Bun.sleep(1000);
  expect(existsSync(join(b.workspace, "made-from-chat"))).toBe(false);
  expect(pane.screen()).toContain("y approve once");
  // The owner's answer runs the call; the TUI says where it was answered.
  const owner = sendMessage(b, { text: `y ${id}` });
  await waitFor(() => replyTo(b, owner) !== undefined, 10_000, "the owner's confirmation");
  expect(replyTo(b, owner)).toBe(`Approved card ${id} once.`);
  const screen = await pane.waitFor("Made it.", 15_000);
  expect(screen).toContain("✓ $ touch made-from-chat"); // one line per call: the approval folds into it
  expect(screen).toContain("answered from dir/default (owner-1)");
  expect(existsSync(join(b.workspace, "made-from-chat"))).toBe(true);
  // A second answer: the card no longer waits, nothing changes.
  const again = sendMessage(b, { text: `n ${id} too late` });
  await waitFor(() => replyTo(b, again) !== undefined, 10_000, "the answer to the late reply");
  expect(replyTo(b, again)).toBe(`Card ${id} no longer waits: it was answered in dir/default (owner-1). Nothing changed.`);
  expect(fake.requests).toHaveLength(2);
}, 60_000);

test.skipIf(!needs("tmux"))("a card answered on its own screen first: the owner's chat is told where", async () => {
  const b = makeBridge(fake.url);
  const { writeFileSync, readFileSync } = await import("node:fs");
  writeFileSync(join(b.home, "config.toml"), `${readFileSync(join(b.home, "config.toml"), "utf8")}${CONFIG}`);
  await startDaemon(b);
  fake.queue(toolCalls([{ name: "bash", arguments: { command: "touch made-here" } }]), text("Done here."));
  pane = openTerminal([requireBinary()], { env: b.env, cwd: b.workspace });
  await pane.waitFor(/s-[0-9a-f]{8}/, 15_000);
  pane.type("make it");
  pane.keys("Enter");
  await pane.waitFor("y approve once", 15_000);
  await waitFor(() => outMessages(b).some((m) => m.text.startsWith("[SCV needs you: bash")), 15_000, "the card in the owner's chat");
  const id = /Reply y ([0-9a-f]{3})/.exec(outMessages(b).find((m) => m.text.startsWith("[SCV needs you"))!.text)![1]!;
  pane.keys("y");
  await pane.waitFor("Done here.", 15_000);
  await waitFor(() => outMessages(b).some((m) => m.text === `[SCV card ${id} was answered in the terminal; nothing more to do here.]`), 10_000, `the chat to be told; have ${JSON.stringify(outMessages(b))}`);
  const late = sendMessage(b, { text: `y ${id}` });
  await waitFor(() => replyTo(b, late) !== undefined, 10_000, "the late reply's answer");
  expect(replyTo(b, late)).toContain(`Card ${id} no longer waits`);
}, 60_000);

test.skipIf(!needs("tmux"))("no daemon running: the card waits on screen as before, with no error", async () => {
  const { fakeHome, removeFakeHomes } = await import("../fake/binary");
  try {
    const h = fakeHome(fake.url, CONFIG);
    fake.queue(toolCalls([{ name: "bash", arguments: { command: "touch alone" } }]), text("Alone done."));
    pane = openTerminal([requireBinary()], { env: h.env, cwd: h.workspace });
    await pane.waitFor(/s-[0-9a-f]{8}/, 15_000);
    pane.type("make it");
    pane.keys("Enter");
    await pane.waitFor("y approve once", 15_000);
    await Bun.sleep(2500); // past after_seconds: the offer finds no daemon
    expect(pane.screen()).toContain("y approve once");
    expect(pane.screen()).not.toMatch(/error|ECONN|ENOENT/i);
    pane.keys("y");
    await pane.waitFor("Alone done.", 15_000);
    expect(existsSync(join(h.workspace, "alone"))).toBe(true);
  } finally {
    pane?.close();
    pane = undefined;
    removeFakeHomes();
  }
}, 60_000);

test.skipIf(!needs("tmux"))("a turn longer than long_turn_seconds that ends with nobody at the keys is announced in the owner's chat, once", async () => {
  const b = makeBridge(fake.url);
  const { writeFileSync, readFileSync } = await import("node:fs");
  // 4 s, so the quick turn below stays under it on a busy machine too (at 1 s a slow text-only turn could count as
  // long); the long one sleeps past it.
  writeFileSync(join(b.home, "config.toml"), `${readFileSync(join(b.home, "config.toml"), "utf8")}[notify]\nlong_turn_seconds = 4\n`);
  await startDaemon(b);
  fake.queue(toolCalls([{ name: "bash", arguments: { command: "sleep 5" } }]), text("The long job is finished.\nDetails follow."), text("Quick."));
  pane = openTerminal([requireBinary()], { env: b.env, cwd: b.workspace });
  await pane.waitFor(/s-[0-9a-f]{8}/, 15_000);
  pane.type("do the long job");
  pane.keys("Enter");
  await pane.waitFor("Details follow.", 30_000);
  await waitFor(() => outMessages(b).length === 1, 25_000, `the done notice; log:\n${b.logText()}`);
  const [m] = outMessages(b);
  expect(m).toMatchObject({ to: "owner-1" });
  expect(m!.text).toMatch(/^\[SCV: a turn in the terminal \(.*\) ended after \d+ s: “The long job is finished\.”\. The rest: scv sessions show s-[0-9a-f]{8}, or back at that terminal\.\]$/);
  // A quick turn says nothing.
  pane.type("and now?");
  pane.keys("Enter");
  await pane.waitFor("Quick.", 15_000);
  await Bun.sleep(1000);
  expect(outMessages(b)).toHaveLength(1);
}, 60_000);

test.skipIf(!needs("tmux"))("a question (clarify) nobody answers in the TUI is asked in the owner's chat; `<id> 2` picks the second choice", async () => {
  const b = makeBridge(fake.url);
  const { writeFileSync, readFileSync } = await import("node:fs");
  writeFileSync(join(b.home, "config.toml"), `${readFileSync(join(b.home, "config.toml"), "utf8")}${CONFIG}`);
  await startDaemon(b);
  fake.queue(toolCalls([{ name: "clarify", arguments: { question: "Which colour for the button?", choices: ["red", "blue"] } }]), text("Blue it is."));
  pane = openTerminal([requireBinary()], { env: b.env, cwd: b.workspace });
  await pane.waitFor(/s-[0-9a-f]{8}/, 15_000);
  pane.type("style the button");
  pane.keys("Enter");
  await pane.waitFor("Which colour for the button?", 15_000);
  await waitFor(() => outMessages(b).some((m) => m.text.startsWith("[SCV asks you")), 15_000, `the question in the owner's chat; log:\n${b.logText()}`);
  const q = outMessages(b).find((m) => m.text.startsWith("[SCV asks you"))!;
  expect(q.text).toContain("Which colour for the button?\n1. red\n2. blue\nReply ");
  const id = /Reply ([0-9a-f]{3}) followed by your answer/.exec(q.text)![1]!;
  sendMessage(b, { from: "stranger-9", text: `${id} 1` });
  await waitFor(() => outMessages(b).some((m) => m.text.startsWith("Only the owner of this SCV answers its questions")), 10_000, "the stranger's refusal");
  const owner = sendMessage(b, { text: `${id} 2` });
  const screen = await pane.waitFor("Blue it is.", 15_000);
  expect(screen).toContain("→ blue (answered from dir/default (owner-1))");
  await waitFor(() => replyTo(b, owner) !== undefined, 10_000, "the owner's confirmation");
  expect(replyTo(b, owner)).toBe(`Answered card ${id}: “blue”.`);
  expect(JSON.stringify(fake.requests[1]!.body)).toContain("blue");
}, 60_000);
