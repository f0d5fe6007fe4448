// `scv exec` on a terminal (issue 54): a card nobody answers there within [notify] after_seconds is offered to
// the owner's chat through the running daemon; the owner's `y <id>` runs the call and exec says who answered.
import { afterEach, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
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

test.skipIf(!needs("tmux"))("an exec card answered from the owner's chat runs the call; exec shows who answered", async () => {
  const b = makeBridge(fake.url);
  writeFileSync(join(b.home, "config.toml"), `${readFileSync(join(b.home, "config.toml"), "utf8")}[notify]\nafter_seconds = 1\n[sandbox]\nauto_run = false\n`);
  await startDaemon(b);
  fake.queue(toolCalls([{ name: "bash", arguments: { command: "touch made-by-exec" } }]), text("Exec made it."));
  pane = openTerminal([requireBinary(), "exec", "make the file"], { env: b.env, cwd: b.workspace });
  await waitFor(() => outMessages(b).some((m) => m.text.startsWith("[SCV needs you: bash")), 20_000, `the card in the owner's chat; log:\n${b.logText()}`);
  const card = outMessages(b).find((m) => m.text.startsWith("[SCV needs you: bash"))!;
  expect(card.text).toContain("in scv exec session s-");
  const id = /Reply y ([0-9a-f]{3})/.exec(card.text)![1]!;
  sendMessage(b, { text: `y ${id}` });
  const screen = await pane.waitFor("Exec made it.", 20_000);
  expect(screen).toContain("answered from dir/default (owner-1)");
  expect(await pane.exitCode()).toBe(0);
  expect(existsSync(join(b.workspace, "made-by-exec"))).toBe(true);
}, 60_000);
