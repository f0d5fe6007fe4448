// Switching the model of the open session (/model, /effort), the TUI's start-up words (-p, -m, --effort, --yes,
// a first prompt), in the compiled binary in a real terminal against the scripted model.
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, removeFakeHomes, requireBinary, runBinary } from "../fake/binary";
import { type FakeModel, startFakeModel, text, toolCalls } from "../fake/model-server";
import { openTerminal, type Terminal } from "../fake/tmux";
import { needs } from "../fake/needs";

setDefaultTimeout(60_000);

let fake: FakeModel | undefined;
let panes: Terminal[] = [];
afterEach(async () => {
  for (const p of panes) p.close();
  panes = [];
  await fake?.close();
  fake = undefined;
  removeFakeHomes();
});

const SESSION = /s-[0-9a-f]{8}/;

async function home() {
  fake = await startFakeModel({ models: ["fake-model", "gpt-other", "other-model"] });
  // A second profile on the same endpoint speaking the Chat API.
  return fakeHome(fake.url, `[providers.other]\nbase_url = "${fake.url}"\nmodel = "other-model"\nwire_api = "chat"\nmax_retries = 0\n`);
}

function open(h: { env: Record<string, string>; workspace: string }, args: string[] = []) {
  const pane = openTerminal([requireBinary(), ...args], { env: h.env, cwd: h.workspace });
  panes.push(pane);
  return pane;
}

const sessionOf = (screen: string) => SESSION.exec(screen)![0];

test.skipIf(!needs("tmux"))("/model opens a picker of the profiles and the endpoint's models (type to filter, Enter), and switches the same session: the next request carries the earlier turns", async () => {
  const h = await home();
  const pane = open(h);
  const id = sessionOf(await pane.waitFor(SESSION));
  fake!.queue(text("The capital is Paris."));
  pane.type("capital of France?");
  pane.keys("Enter");
  await pane.waitFor("The capital is Paris.");
  pane.type("/model");
  pane.keys("Enter");
  // The profiles at once, the endpoint's models as they arrive; the one in use marked.
  const listed = await pane.waitFor(/› \* fake {2}profile · fake-model · responses API · 127\.0\.0\.1:\d+[\s\S]*gpt-other {2}model at 127\.0\.0\.1/);
  expect(listed).toMatch(/ {4}other {2}profile · other-model · chat API · 127\.0\.0\.1:\d+/);
  expect(listed).toContain("Switch model type to filter · Up/Down · Enter switches · Esc leaves");
  pane.type("gpt-o"); // narrows the list to the one model
  await pane.waitFor((s) => /filter › gpt-o\n› {3}gpt-other/.test(s) && !/ {4}other {2}profile/.test(s.slice(s.lastIndexOf("filter › gpt-o"))));
  pane.keys("Enter");
  await pane.waitFor("model: gpt-other on fake (responses API) from the next turn; the conversation goes on");
  // Esc leaves the picker with the model as it was.
  pane.type("/model");
  pane.keys("Enter");
  await pane.waitFor(/filter ›[\s\S]*gpt-other/);
  pane.keys("Escape");
  await pane.waitFor("model: gpt-other on fake (responses API) (unchanged)");
  pane.type("/effort high");
  pane.keys("Enter");
  await pane.waitFor("reasoning effort: high from the next turn (gpt-other)");
  fake!.queue(text("Lyon is second."));
  pane.type("and the second city?");
  pane.keys("Enter");
  await pane.waitFor("Lyon is second.");
  const body = fake!.requests.filter((r) => r.method === "POST").at(-1)!.body;
  expect(body.model).toBe("gpt-other");
  expect(body.reasoning?.effort).toBe("high");
  expect(JSON.stringify(body.input)).toContain("The capital is Paris.");
  expect(pane.screen().match(SESSION)![0]).toBe(id); // still the same session
  expect(pane.screen().match(/session s-/g)).toHaveLength(1); // no second "session … in" line: no new session started

  // Another profile with another wire API: the conversation is carried there too.
  pane.type("/model other");
  pane.keys("Enter");
  await pane.waitFor("model: other-model on other (chat API) from the next turn");
  fake!.queue(text("Marseille is third."));
  pane.type("third?");
  pane.keys("Enter");
  await pane.waitFor("Marseille is third.");
  const chat = fake!.requests.at(-1)!;
  expect(chat.path).toBe("/v1/chat/completions");
  expect(chat.body.model).toBe("other-model");
  expect(JSON.stringify(chat.body.messages)).toContain("Lyon is second.");

  // A resume keeps the switch.
  pane.keys("C-d");
  await pane.waitFor(/\[exit 0\]/);
  const again = open(h, ["--continue"]);
  await again.waitFor(`resumed ${id}`);
  fake!.queue(text("Still on the other profile."));
  again.type("which model?");
  again.keys("Enter");
  await again.waitFor("Still on the other profile.");
  expect(fake!.requests.at(-1)!.path).toBe("/v1/chat/completions");
  expect(fake!.requests.at(-1)!.body.model).toBe("other-model");
});

test.skipIf(!needs("tmux"))('scv -p -m --effort --yes "PROMPT" opens a session on them and sends the prompt; tool calls run unasked', async () => {
  const h = await home();
  fake!.queue(toolCalls([{ name: "bash", arguments: { command: "touch made-unasked" } }]), text("Made it."));
  const pane = open(h, ["-p", "other", "-m", "gpt-other", "--effort", "low", "--yes", "make a file please"]);
  await pane.waitFor("Made it.");
  expect(pane.screen()).toContain("› make a file please");
  expect(existsSync(join(h.workspace, "made-unasked"))).toBe(true);
  const first = fake!.requests.find((r) => r.method === "POST")!;
  expect(first.path).toBe("/v1/chat/completions");
  expect(first.body.model).toBe("gpt-other");
  expect(first.body.reasoning_effort).toBe("low");
});

test.skipIf(!needs("tmux"))("scv -- help asks the model about \"help\"; a single unknown word is still an unknown command", async () => {
  const h = await home();
  fake!.queue(text("Here is some help."));
  const pane = open(h, ["--", "help"]);
  await pane.waitFor("Here is some help.");
  expect(pane.screen()).toContain("› help");
  const r = await runBinary(["frobnicate"], h.env, h.workspace);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('unknown command "frobnicate"');
  const bad = await runBinary(["--effort", "loud"], h.env, h.workspace);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain("--effort must be one of: none, minimal, low, medium, high, xhigh");
});

test.skipIf(!needs("tmux"))("leaving names the resume command; the resume replays tool calls as one line and keeps a long prompt collapsed (Ctrl-O shows it)", async () => {
  const h = await home();
  const log = Array.from({ length: 8 }, (_, i) => `log line ${i + 1} of the failure`).join("\n");
  fake!.queue(toolCalls([{ name: "bash", arguments: { command: "echo checked > checked.txt" } }]), text("The failure is in line 8."));
  const pane = open(h, ["--yes", `why does this fail?\n${log}`]);
  await pane.waitFor("The failure is in line 8.");
  let screen = pane.screen();
  expect(screen).toContain("… pasted text, 9 lines");
  expect(screen).not.toContain("log line 8 of the failure");
  expect(screen).toMatch(/✓ \$ echo checked > checked\.txt \(exit 0/);
  pane.keys("C-o"); // the tool's result first, then the prompt before it
  await pane.waitFor("── $ echo checked > checked.txt ──");
  pane.keys("C-o");
  await pane.waitFor("log line 8 of the failure");
  pane.keys("C-d");
  screen = await pane.waitFor(/\[exit 0\]/);
  const id = sessionOf(screen);
  expect(screen).toContain(`resume this session with: scv --resume ${id}`);

  const again = open(h, ["--resume", id]);
  screen = await again.waitFor(`resumed ${id}`);
  expect(screen).toContain("› why does this fail?");
  expect(screen).toContain("… pasted text, 9 lines");
  expect(screen).not.toContain("log line 8 of the failure");
  expect(screen).toMatch(/✓ \$ echo checked > checked\.txt \(exit 0[^\n]*\)\n/);
  expect(screen).toContain("The failure is in line 8.");
});
