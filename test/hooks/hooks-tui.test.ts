// Hooks as a person sees them in the interactive session (tmux): a call a PreToolUse hook refused says so on its
// line with the hook's reason, and the Notification hook runs while an approval card waits for a key.
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fakeHome, removeFakeHomes, requireBinary } from "../fake/binary";
import { type FakeModel, startFakeModel, text, toolCalls } from "../fake/model-server";
import { openTerminal, type Terminal } from "../fake/tmux";
import { until } from "../fake/until";
import { needs } from "../fake/needs";

setDefaultTimeout(40_000);

let fake: FakeModel | undefined;
const panes: Terminal[] = [];
afterEach(async () => {
  for (const p of panes.splice(0)) p.close();
  await fake?.close();
  fake = undefined;
  removeFakeHomes();
});

test.skipIf(!needs("tmux"))("a refused call names the hook and its reason; the Notification hook runs while the card waits", async () => {
  fake = await startFakeModel();
  const h = fakeHome(fake.url);
  const notified = join(dirname(h.home), "notified.json");
  appendFileSync(
    join(h.home, "config.toml"),
    `
[sandbox]
auto_run = false
[[hooks.PreToolUse]]
matcher = "Write"
command = "echo 'dist/ is generated; edit src/' >&2; exit 2"
[[hooks.Notification]]
command = "cat > ${notified}"
`,
  );
  const term = openTerminal([requireBinary()], { env: h.env, cwd: h.workspace, width: 120 });
  panes.push(term);
  await term.waitFor(/s-[0-9a-f]{8}/);
  fake.queue(
    toolCalls([{ name: "write", arguments: { path: "dist/app.js", content: "x", mode: "create" } }]),
    toolCalls([{ name: "bash", arguments: { command: "touch made.txt" } }]),
    text("All done."),
  );
  term.type("build it");
  term.keys("Enter");
  await term.waitFor("denied by PreToolUse hook: dist/ is generated; edit src/");
  // The bash call asks: the card is up, and the notifier has already run with Claude Code's input.
  await term.waitFor("touch made.txt");
  const input = await until("the Notification hook", () => (existsSync(notified) && readFileSync(notified, "utf8").trim() ? JSON.parse(readFileSync(notified, "utf8")) : undefined));
  expect(input).toMatchObject({ hook_event_name: "Notification", notification_type: "permission_prompt", tool_name: "bash" });
  expect(existsSync(join(h.workspace, "made.txt"))).toBe(false);
  term.type("y");
  await term.waitFor("All done.");
  expect(existsSync(join(h.workspace, "made.txt"))).toBe(true);
  expect(existsSync(join(h.workspace, "dist", "app.js"))).toBe(false);
  term.keys("C-d");
  expect(await term.exitCode()).toBe(0);
});
