// Notices a schedule could not deliver to a chat reach the owner at the next interactive session, once.
import { afterEach, expect, test } from "bun:test";
import { addNotice, countNotices } from "../../src/schedules/notices";
import { fakeHome, removeFakeHomes, requireBinary } from "../fake/binary";
import { type FakeModel, startFakeModel } from "../fake/model-server";
import { openTerminal, type Terminal } from "../fake/tmux";
import { needs } from "../fake/needs";

let fake: FakeModel | undefined;
let pane: Terminal | undefined;
afterEach(async () => {
  pane?.close();
  await fake?.close();
  removeFakeHomes();
});

test.skipIf(!needs("tmux"))("the next terminal start shows a schedule's notice once", async () => {
  fake = await startFakeModel();
  const h = fakeHome(fake.url);
  addNotice(h.home, { id: "i-sch-0000abcd-3", schedule: "sch-0000abcd", text: "[SCV schedule sch-0000abcd “the weekly report”: SCV was restarted while it ran, so it was interrupted.]" });
  pane = openTerminal([requireBinary()], { env: h.env, cwd: h.workspace });
  const screen = await pane.waitFor(/session s-[0-9a-f]{8}/, 15_000);
  expect(screen).toContain("while you were away (");
  expect(screen.replace(/\n/g, " ")).toContain("“the weekly report”: SCV was restarted while it ran, so it was interrupted.");
  expect(countNotices(h.home)).toBe(0);
  pane.keys("C-d");
  await pane.exitCode();
  pane.close(); // the first terminal goes before the second opens
  pane = openTerminal([requireBinary()], { env: h.env, cwd: h.workspace });
  expect(await pane.waitFor(/session s-[0-9a-f]{8}/, 15_000)).not.toContain("while you were away");
}, 40_000);
