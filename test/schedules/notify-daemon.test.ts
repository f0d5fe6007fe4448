// A terminal-made reminder reaches the owner ([notify], issue 54), through dist/scv and the daemon with the dir
// channel: its reply goes to the owner's chat exactly once, also when the daemon is SIGKILLed while the
// message cannot be delivered yet; `scv schedules list` shows the reply's first line.
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { countNotices } from "../../src/schedules/notices";
import { ScheduleStore } from "../../src/schedules/store";
import { fakeModelForFile, runBinary } from "../fake/binary";
import { text } from "../fake/model-server";
import { cleanupBridges, killDaemon, makeBridge, outMessages, startDaemon, waitFor, waitForOut } from "../channels/helpers";

const fake = fakeModelForFile();
afterEach(async () => {
  await cleanupBridges();
  fake.clear();
  fake.requests.length = 0;
});

const LOW_FLOOR = "[schedules]\nmin_every_seconds = 1\ntime_zone = \"Europe/Berlin\"\n";

test("a terminal-made reminder's reply reaches the owner's chat once, across a SIGKILL of the daemon mid-delivery", async () => {
  const b = makeBridge(fake.url, LOW_FLOOR);
  await startDaemon(b);
  // The chat platform stops taking messages: out/ becomes a file, so every send is retried.
  const out = join(b.chat, "out");
  renameSync(out, `${out}.away`);
  writeFileSync(out, "not a directory");
  fake.queue(text("Stand up, stretch for a minute and drink a glass of water.\nThen back to work."));
  const add = await runBinary(["schedules", "add", "--at", new Date(Date.now() + 2000).toISOString(), "stretch and drink water"], b.env, b.workspace);
  const id = /created (sch-[0-9a-f]{8}): once/.exec(add.stdout)![1]!;
  await waitFor(() => /sending t-sch-[0-9a-f]{8}-1 failed \(attempt 1\)/.test(b.logText()), 15_000, `the first delivery attempt; log:\n${b.logText()}`);
  await killDaemon(b, "SIGKILL");
  expect(new ScheduleStore(b.home).state(id).last).toMatchObject({ outcome: "answered", reply: "Stand up, stretch for a minute and drink a glass of water." });
  rmSync(out);
  renameSync(`${out}.away`, out);
  mkdirSync(out, { recursive: true });
  fake.queue(text("must not be used"));
  await startDaemon(b);
  const [m] = await waitForOut(b, 1, 15_000);
  expect(m).toMatchObject({ to: "owner-1", id: `t-${id}-1` });
  expect(m!.text).toBe(`[SCV schedule ${id} “stretch and drink water”]\n\nStand up, stretch for a minute and drink a glass of water.\nThen back to work.`);
  await killDaemon(b, "SIGKILL"); // and once more: nothing is sent again
  await startDaemon(b);
  await Bun.sleep(1500);
  expect(outMessages(b)).toHaveLength(1);
  expect(fake.requests).toHaveLength(1);
  expect(countNotices(b.home)).toBe(0); // the chat took it: no "while you were away" in the terminal
  const list = await runBinary(["schedules", "list"], b.env, b.workspace);
  expect(list.stdout).toContain(`${id}: once`);
  expect(list.stdout).toContain("; last: answered ");
  expect(list.stdout).toContain(": “Stand up, stretch for a minute and drink a glass of water.”");
}, 60_000);
