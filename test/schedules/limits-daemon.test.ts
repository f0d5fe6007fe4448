// Schedules over a spending limit, through the real daemon (dist/scv daemon run) with the dir channel: a reminder the
// owner made over chat and one made in the terminal are treated alike (neither calls the model; the owner is told
// why, with the limit's figures); a stranger over a limit is told only that the assistant cannot answer now.
import { afterEach, expect, test } from "bun:test";
import { ChannelsConfig, type Config, SchedulesConfig } from "../../src/config/schema";
import { createSchedule } from "../../src/schedules/create";
import { ScheduleStore } from "../../src/schedules/store";
import { fakeModelForFile, runBinary } from "../fake/binary";
import { text } from "../fake/model-server";
import { cleanupBridges, makeBridge, outMessages, sendMessage, startDaemon, waitFor, waitForOut } from "../channels/helpers";

const fake = fakeModelForFile();
afterEach(async () => {
  await cleanupBridges();
  fake.clear();
  fake.requests.length = 0;
});

const CONFIG = "[schedules]\nmin_every_seconds = 1\ntime_zone = \"Europe/Berlin\"\n[limits]\ndaily_tokens = 100\n";

test("over the daily limit: a chat-made and a terminal-made reminder both end the same way, and the owner is told", async () => {
  const b = makeBridge(fake.url, CONFIG);
  fake.queue(text("spent", { usage: { input_tokens: 90, output_tokens: 30 } }));
  const config = { channels: ChannelsConfig.parse({}), schedules: SchedulesConfig.parse({ min_every_seconds: 1, time_zone: "Europe/Berlin" }) } as Config;
  const at = new Date(Date.now() + 7000).toISOString();
  const chat = createSchedule(new ScheduleStore(b.home), { prompt: "stretch", at }, { config, owner: { kind: "chat", channel: "dir/default", conversation: "owner-1" }, madeBy: "test" }).schedule;
  await startDaemon(b);
  sendMessage(b, { text: "use up the day" });
  await waitForOut(b, 1);
  const add = await runBinary(["schedules", "add", "--at", at, "drink water"], b.env, b.workspace);
  const terminal = /created (sch-[0-9a-f]{8})/.exec(add.stdout)![1]!;
  fake.queue(text("should not run"), text("should not run"));
  const store = new ScheduleStore(b.home);
  await waitFor(() => !!store.state(chat.id).last && !!store.state(terminal).last, 15_000, "both fires to end");
  expect(store.state(chat.id).last).toMatchObject({ outcome: "failed" });
  expect(store.state(terminal).last).toMatchObject({ outcome: "failed" });
  expect(fake.requests).toHaveLength(1); // neither fire reached the model
  // Each reaches the owner led by the reminder's own words, with why it did not run.
  await waitFor(() => outMessages(b).filter((m) => m.text.startsWith("[SCV schedule")).length === 2, 25_000, "both fires' messages");
  const fires = outMessages(b).filter((m) => m.text.startsWith("[SCV schedule"));
  const failed = (id: string, words: string) => new RegExp(`^\\[SCV schedule ${id} “${words}”\\]\n\n\\[SCV: this turn failed: the spending limit limits\\.daily_tokens is reached \\(120 of 100 tokens used today\\)`);
  expect(fires.find((m) => m.text.includes(chat.id))!.text).toMatch(failed(chat.id, "stretch"));
  expect(fires.find((m) => m.text.includes(terminal))!.text).toMatch(failed(terminal, "drink water"));
  for (const m of fires) expect(m.to).toBe("owner-1");
}, 40_000);

test("a stranger over a limit is told only that the assistant cannot answer now; the owner gets the figures", async () => {
  const b = makeBridge(fake.url, CONFIG);
  fake.queue(text("spent", { usage: { input_tokens: 90, output_tokens: 30 } }));
  await startDaemon(b);
  sendMessage(b, { text: "use up the day" });
  await waitForOut(b, 1);
  sendMessage(b, { from: "stranger", text: "hello?" });
  await waitFor(() => outMessages(b).some((m) => m.to === "stranger"), 10_000, "the stranger's answer");
  await waitFor(() => outMessages(b).some((m) => m.to === "owner-1" && m.text.includes("spending limit")), 25_000, "the owner's notice");
  const toStranger = outMessages(b).filter((m) => m.to === "stranger");
  expect(toStranger.map((m) => m.text)).toEqual(["The assistant cannot answer right now. Please try again later."]);
  const told = outMessages(b).find((m) => m.to === "owner-1" && m.text.includes("spending limit"))!;
  expect(told.text).toContain("120 of 100 tokens used today");
  expect(told.text).toContain("config.toml");
  expect(fake.requests).toHaveLength(1);
}, 40_000);
