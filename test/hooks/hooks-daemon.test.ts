// SCV's own hook events through the real daemon (dist/scv daemon run) with the dir channel and the scripted model:
// ScheduleFired when a schedule fires, ChatUndeliverable when the outbox gives up on a reply.
import { afterEach, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ChannelsConfig, type Config, SchedulesConfig } from "../../src/config/schema";
import { createSchedule } from "../../src/schedules/create";
import { ScheduleStore } from "../../src/schedules/store";
import { fakeModelForFile } from "../fake/binary";
import { text } from "../fake/model-server";
import { cleanupBridges, makeBridge, sendMessage, startDaemon, waitFor, waitForOut } from "../channels/helpers";

const fake = fakeModelForFile();
afterEach(async () => {
  await cleanupBridges();
  fake.clear();
});

const lines = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l)) : []);

test("ScheduleFired fires with the schedule's input; ChatUndeliverable fires once the outbox gives up on a reply", async () => {
  const b = makeBridge(fake.url, "");
  const fired = join(b.root, "fired.jsonl");
  const lost = join(b.root, "lost.jsonl");
  writeFileSync(
    join(b.home, "config.toml"),
    `${readFileSync(join(b.home, "config.toml"), "utf8")}
[schedules]
min_every_seconds = 1
[[hooks.ScheduleFired]]
command = "cat >> ${fired}; echo >> ${fired}"
[[hooks.ChatUndeliverable]]
command = "cat >> ${lost}; echo >> ${lost}"
`,
  );
  const config = { channels: ChannelsConfig.parse({}), schedules: SchedulesConfig.parse({ min_every_seconds: 1 }) } as Config;
  const schedule = createSchedule(new ScheduleStore(b.home), { prompt: "say the time", at: new Date(Date.now() + 2500).toISOString() }, { config, owner: { kind: "chat", channel: "dir/default", conversation: "owner-1" }, madeBy: "test" }).schedule;
  fake.queue(text("lost reply"), text("the time is now"));
  await startDaemon(b);
  // Replies cannot be written: out/ is a file, so every attempt fails until the outbox gives up (4 attempts).
  rmSync(join(b.chat, "out"), { recursive: true, force: true });
  writeFileSync(join(b.chat, "out"), "not a directory");
  sendMessage(b, { text: "hi" });
  await waitFor(() => lines(fired).length >= 1, 15_000, "the ScheduleFired hook");
  expect(lines(fired)[0]).toMatchObject({ hook_event_name: "ScheduleFired", schedule_id: schedule.id, prompt: "say the time", owner: "chat", channel: "dir/default" });
  await waitFor(() => lines(lost).length >= 2, 20_000, "two ChatUndeliverable hooks");
  const got = lines(lost);
  expect(got.map((g) => g.text).sort()).toEqual([`[SCV schedule ${schedule.id} “say the time”]\n\nthe time is now`, "lost reply"]);
  expect(got[0]).toMatchObject({ hook_event_name: "ChatUndeliverable", channel: "dir/default", conversation: "owner-1", attempts: 4 });
  expect(got[0].error).toContain("cannot write");
}, 45_000);

test("BudgetReached fires when a stranger's conversation limit refuses a message (and the limit still holds)", async () => {
  const b = makeBridge(fake.url, "");
  const budget = join(b.root, "budget.jsonl");
  writeFileSync(
    join(b.home, "config.toml"),
    `${readFileSync(join(b.home, "config.toml"), "utf8")}
[limits]
conversation_daily_tokens = 100
[[hooks.BudgetReached]]
command = "cat >> ${budget}; echo >> ${budget}"
`,
  );
  fake.queue(text("hello stranger", { usage: { input_tokens: 80, output_tokens: 30 } }), text("never sent"));
  const before = fake.requests.length;
  await startDaemon(b);
  sendMessage(b, { from: "stranger", text: "hi" });
  await waitForOut(b, 1);
  expect(lines(budget)).toEqual([]);
  sendMessage(b, { from: "stranger", text: "more please" });
  await waitFor(() => lines(budget).length >= 1, 15_000, "the BudgetReached hook");
  expect(lines(budget)[0]).toMatchObject({ hook_event_name: "BudgetReached", channel: "dir/default", conversation: "stranger" });
  expect(lines(budget)[0].message).toContain("limits.conversation_daily_tokens is reached");
  expect(fake.requests.length - before).toBe(1);
}, 30_000);
