// A person-only (`unsandboxed`) card of a TUI session answered on the web page (issue 54): it waits in the Live
// view's approvals beside the daemon's own, the page's answer runs the call once, and a second answer is refused.
import { afterEach, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fakeModelForFile, requireBinary } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";
import { openTerminal, type Terminal } from "../fake/tmux";
import { needs } from "../fake/needs";
import { cleanupBridges, waitFor } from "../channels/helpers";
import { get, post, signIn, startWebDaemon } from "./helpers";

const fake = fakeModelForFile();
let pane: Terminal | undefined;
afterEach(async () => {
  pane?.close();
  pane = undefined;
  await cleanupBridges();
  fake.clear();
  fake.requests.length = 0;
});

test.skipIf(!needs("tmux"))("an unsandboxed card of a terminal session answered from the web runs once", async () => {
  const d = await startWebDaemon(fake.url, "", "[notify]\nafter_seconds = 1\n");
  const auth = await signIn(d);
  fake.queue(toolCalls([{ name: "bash", arguments: { command: "echo ran >> ran-outside.txt", unsandboxed: "it needs the host's own network" } }]), text("It ran."));
  pane = openTerminal([requireBinary()], { env: d.env, cwd: d.workspace });
  await pane.waitFor(/s-[0-9a-f]{8}/, 15_000);
  pane.type("run it outside");
  pane.keys("Enter");
  await pane.waitFor("y approve once", 15_000);
  let approvals: any[] = [];
  await waitFor(async () => {
    approvals = ((await (await get(d, "/api/live", auth)).json()) as { approvals: any[] }).approvals;
    return approvals.length > 0;
  }, 15_000, "the card on the Live view");
  const [a] = approvals;
  expect(a.id).toMatch(/^away-[0-9a-f]{3}$/);
  expect(a.source).toBe("the terminal");
  expect(a.request.tool).toBe("bash");
  expect(a.request.guard.person_only).toBe(true);
  // The owner's chat is offered it after after_seconds; answered on the web after that, the chat is told.
  const { outMessages: out } = await import("../channels/helpers");
  await waitFor(() => out(d).some((m) => m.text.startsWith("[SCV needs you")), 15_000, "the card in the owner's chat");
  const ok = await post(d, `/api/approvals/${a.id}`, { decision: "once" }, auth);
  expect(ok.status).toBe(200);
  const again = await post(d, `/api/approvals/${a.id}`, { decision: "once" }, auth);
  expect(again.status).toBe(404);
  const screen = await pane.waitFor("It ran.", 15_000);
  expect(screen).toContain("answered from the web page");
  expect(readFileSync(join(d.workspace, "ran-outside.txt"), "utf8")).toBe("ran\n");
  // The owner's chat had the card; it is told where it was answered.
  const { outMessages } = await import("../channels/helpers");
  const id = a.id.slice("away-".length);
  await waitFor(() => outMessages(d).some((m) => m.text.startsWith(`[SCV card ${id} was answered on the web page (approved)`)), 10_000, "the chat to be told");
  expect(outMessages(d).find((m) => m.text.startsWith("[SCV needs you"))!.text).toContain("(this one needs a person: no rule or auto-approval answers it)");
  expect(existsSync(join(d.workspace, "ran-outside.txt"))).toBe(true);
  expect(fake.requests).toHaveLength(2);
}, 60_000);

test("a web chat's approval nobody answers on the page is offered to the owner's chat, and answered there", async () => {
  const d = await startWebDaemon(fake.url, "", "[notify]\nafter_seconds = 1\n");
  const auth = await signIn(d);
  const { outMessages, sendMessage } = await import("../channels/helpers");
  fake.queue(toolCalls([{ name: "write", arguments: { path: "from-chat.txt", content: "approved from the chat\n", mode: "create" } }]), text("Written."));
  expect((await post(d, "/api/chat", { id: "away-test-0001", text: "write the file" }, auth)).status).toBe(202);
  await waitFor(() => outMessages(d).some((m) => m.text.startsWith("[SCV needs you: write")), 15_000, `the card in the owner's chat; log:\n${d.logText()}`);
  const card = outMessages(d).find((m) => m.text.startsWith("[SCV needs you: write"))!;
  expect(card.text).toContain("in web chat session s-");
  expect(card.text).toContain("approved from the chat");
  const id = /Reply y ([0-9a-f]{3})/.exec(card.text)![1]!;
  const asked = sendMessage(d, { text: `y ${id}` });
  await waitFor(() => existsSync(join(d.workspace, "from-chat.txt")), 15_000, "the approved write");
  expect(readFileSync(join(d.workspace, "from-chat.txt"), "utf8")).toBe("approved from the chat\n");
  await waitFor(() => outMessages(d).some((m) => m.in_reply_to === asked), 10_000, "the confirmation");
  expect(outMessages(d).find((m) => m.in_reply_to === asked)!.text).toBe(`Approved card ${id} once.`);
  const approvals = ((await (await get(d, "/api/live", auth)).json()) as { approvals: unknown[] }).approvals;
  expect(approvals).toEqual([]);
}, 60_000);
