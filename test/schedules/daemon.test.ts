// Schedules through the real daemon (dist/scv daemon run) with the dir channel and the scripted model: the owner
// makes schedules over chat with the schedule tool, the terminal with `scv schedules add`; fires answer in the
// owner's conversation; SIGKILL before and during a fire; misses while the daemon is down; paused means silent.
import { afterEach, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ChannelsConfig, type Config, SchedulesConfig } from "../../src/config/schema";
import { daemonFetch } from "../../src/daemon/client";
import { createSchedule, type ScheduleRequest } from "../../src/schedules/create";
import { ScheduleStore } from "../../src/schedules/store";
import { fakeModelForFile, runBinary } from "../fake/binary";
import { hang, text, toolCalls } from "../fake/model-server";
import { cleanupBridges, killDaemon, makeBridge, outMessages, sendMessage, startDaemon, waitFor, waitForOut, type Bridge } from "../channels/helpers";

const fake = fakeModelForFile();
afterEach(async () => {
  await cleanupBridges();
  fake.clear();
  fake.requests.length = 0;
});

const LOW_FLOOR = "[schedules]\nmin_every_seconds = 1\ntime_zone = \"Europe/Berlin\"\n";
const inputText = (body: any): string => JSON.stringify(body.input ?? body.messages);
const toolNames = (body: any): string[] => (body.tools ?? []).map((t: any) => t.name ?? t.function?.name);
const unprompted = (b: Bridge) => outMessages(b).filter((m) => m.in_reply_to === undefined);

/** A schedule in the owner's dir conversation, written to the store as the schedule tool would. */
function chatSchedule(b: Bridge, req: Partial<ScheduleRequest>) {
  const config = { channels: ChannelsConfig.parse({}), schedules: SchedulesConfig.parse({ min_every_seconds: 1, time_zone: "Europe/Berlin" }) } as Config;
  return createSchedule(new ScheduleStore(b.home), { prompt: "say the time", ...req }, { config, owner: { kind: "chat", channel: "dir/default", conversation: "owner-1" }, madeBy: "test" }).schedule;
}

const state = (b: Bridge, id: string) => new ScheduleStore(b.home).state(id);

test("an at schedule the owner makes over chat fires once and answers in the same conversation", async () => {
  const b = makeBridge(fake.url, LOW_FLOOR);
  const at = new Date(Date.now() + 6000).toISOString();
  fake.queue(toolCalls([{ name: "schedule", arguments: { action: "create", at, prompt: "remind me to stretch" } }]), text("I will remind you."), text("Time to stretch!"));
  await startDaemon(b);
  const asked = sendMessage(b, { text: "remind me in 3 seconds to stretch" });
  const [ack] = await waitForOut(b, 1);
  expect(ack).toMatchObject({ to: "owner-1", in_reply_to: asked, text: "I will remind you." });
  expect(toolNames(fake.requests[0]!.body)).toContain("schedule");
  // The tool's result names the next fire in the owner's zone, in words; the daemon runs, so no warning.
  const result = inputText(fake.requests[1]!.body);
  expect(result).toMatch(/Created sch-[0-9a-f]{8}: once, \w+, \d+ \w+ 2026 at \d\d:\d\d \(Europe\/Berlin\)\. Next fire: .*\(Europe\/Berlin\), in \d seconds?\./);
  expect(result).not.toContain("Warning");
  const out = await waitForOut(b, 2, 15_000);
  // The reminder's own words lead the model's reply.
  expect(out[1]).toMatchObject({ to: "owner-1" });
  expect(out[1]!.text).toMatch(/^\[SCV schedule sch-[0-9a-f]{8} “remind me to stretch”\]\n\nTime to stretch!$/);
  expect(out[1]).not.toHaveProperty("in_reply_to");
  const firePrompt = inputText(fake.requests[2]!.body);
  expect(firePrompt).toContain("[SCV schedule sch-");
  expect(firePrompt).toContain("remind me to stretch");
  expect(firePrompt).toContain("I will remind you."); // the same conversation's session: it sees the exchange before
  await Bun.sleep(1500);
  expect(outMessages(b).length).toBe(2);
  expect(fake.requests.length).toBe(3);
  const id = /Created (sch-[0-9a-f]{8})/.exec(result)![1]!;
  expect(state(b, id)).toMatchObject({ fires: 1, last: { outcome: "answered" } });
}, 30_000);

test("an every schedule fires on time N times with one reply each", async () => {
  const b = makeBridge(fake.url, LOW_FLOOR);
  const s = chatSchedule(b, { every: "2s", count: 3 });
  const times: number[] = [];
  fake.queue(text("tick 1"), text("tick 2"), text("tick 3"), text("never"));
  await startDaemon(b);
  await waitFor(() => {
    while (times.length < fake.requests.length) times.push(Date.now());
    return unprompted(b).length >= 3;
  }, 15_000, "three fires");
  await Bun.sleep(2500);
  expect(unprompted(b).map((m) => m.text)).toEqual([1, 2, 3].map((n) => `[SCV schedule ${s.id} “say the time”]\n\ntick ${n}`));
  expect(fake.requests.length).toBe(3);
  const gaps = times.slice(1).map((t, i) => t - times[i]!);
  for (const gap of gaps) {
    expect(gap).toBeGreaterThan(1400);
    expect(gap).toBeLessThan(3000);
  }
  expect(state(b, s.id)).toMatchObject({ fires: 3, finished: "all 3 fire(s) done", last: { outcome: "answered" } });
}, 30_000);

test("a terminal-made schedule runs read-only in its own stored session and tells the owner's chat", async () => {
  const b = makeBridge(fake.url, LOW_FLOOR);
  await startDaemon(b);
  const at = new Date(Date.now() + 2500).toISOString();
  const add = await runBinary(["schedules", "add", "--at", at, "summarise the repo"], b.env, b.workspace);
  expect(add.stderr).toBe(""); // the daemon runs: no warning
  const id = /created (sch-[0-9a-f]{8}): once/.exec(add.stdout)![1]!;
  fake.queue(toolCalls([{ name: "bash", arguments: { command: "touch made-by-fire" } }]), text("Summary: all quiet."));
  const [m] = await waitForOut(b, 1, 10_000);
  expect(m!.text).toBe(`[SCV schedule ${id} “summarise the repo”]\n\nSummary: all quiet.`);
  expect(existsSync(join(b.workspace, "made-by-fire"))).toBe(false); // bash is not read-only: denied
  expect(inputText(fake.requests[1]!.body)).toContain("denied");
  expect(JSON.stringify(fake.requests[0]!.body)).not.toContain("Chat channel");
  await waitFor(() => state(b, id).last?.outcome === "answered", 25_000, "the outcome");
  const show = await runBinary(["schedules", "show", id], b.env, b.workspace);
  const sid = state(b, id).session_id!;
  expect(show.stdout).toContain(`session: ${sid}`);
  expect(show.stdout).toContain("Summary: all quiet.");
  const sessions = await runBinary(["sessions", "show", sid], b.env, b.workspace);
  expect(sessions.stdout).toContain("> summarise the repo");
  // The usage ledger counts the fire's model calls as the schedule's.
  const usage = JSON.parse((await runBinary(["usage", "--by", "origin", "--json"], b.env, b.workspace)).stdout);
  expect(usage.rows.map((r: any) => r.key ?? r.origin ?? r.group)).toContain("schedule");
}, 30_000);

test("SIGKILL during a fire: reported as interrupted once, never run again", async () => {
  const b = makeBridge(fake.url, LOW_FLOOR);
  const s = chatSchedule(b, { at: new Date(Date.now() + 1500).toISOString() });
  fake.queue(hang("thinking "));
  await startDaemon(b);
  await waitFor(() => fake.requests.length === 1, 10_000, "the fire's model request");
  await killDaemon(b, "SIGKILL");
  fake.clear();
  fake.queue(text("must not be used"));
  await startDaemon(b);
  const [m] = await waitForOut(b, 1);
  expect(m!.text).toBe(`SCV was restarted while it ran schedule ${s.id}, so that fire was interrupted and has not been run again.`);
  await killDaemon(b, "SIGKILL"); // and once more: still reported once
  await startDaemon(b);
  await Bun.sleep(1500);
  expect(outMessages(b).length).toBe(1);
  expect(fake.requests.length).toBe(1);
  expect(state(b, s.id)).toMatchObject({ fires: 1, last: { outcome: "interrupted" } });
  expect(new ScheduleStore(b.home).fires()).toEqual([]);
}, 30_000);

test("SIGKILL just before a fire's turn (queued behind a running one): it runs once after the restart", async () => {
  const b = makeBridge(fake.url, LOW_FLOOR);
  fake.queue(hang("busy "));
  await startDaemon(b);
  const busy = sendMessage(b, { text: "a long task" });
  await waitFor(() => fake.requests.length === 1, 10_000, "the owner's turn");
  const s = chatSchedule(b, { at: new Date(Date.now() + 1200).toISOString() });
  await daemonFetch(b.home, "/schedules/reload", { method: "POST" });
  await waitFor(() => new ScheduleStore(b.home).fires().some((f) => f.state === "handed"), 10_000, "the fire to be queued");
  await killDaemon(b, "SIGKILL");
  fake.clear();
  fake.queue(text("fired after the restart"), text("must not be used"));
  await startDaemon(b);
  await waitForOut(b, 2);
  await Bun.sleep(1500);
  const out = outMessages(b);
  expect(out.length).toBe(2);
  expect(out.find((m) => m.in_reply_to === busy)!.text).toContain("interrupted");
  expect(unprompted(b).map((m) => m.text)).toEqual([`[SCV schedule ${s.id} “say the time”]\n\nfired after the restart`]);
  expect(fake.requests.length).toBe(2);
  expect(state(b, s.id)).toMatchObject({ fires: 1, last: { outcome: "answered" } });
}, 30_000);

test("a fire missed while the daemon was down is caught up once; with catch_up skip it is reported skipped", async () => {
  const b = makeBridge(fake.url, LOW_FLOOR);
  const due = new Date(Date.now() + 1000).toISOString();
  const once = chatSchedule(b, { at: due, prompt: "water the plants" });
  const skip = chatSchedule(b, { at: due, prompt: "read the news", catch_up: "skip" });
  await Bun.sleep(1500); // the daemon is down when both are due
  fake.queue(text("Caught up: water the plants."), text("must not be used"));
  await startDaemon(b);
  await waitForOut(b, 2);
  await Bun.sleep(1500);
  const texts = unprompted(b).map((m) => m.text);
  expect(texts.length).toBe(2);
  expect(texts).toContain(`[SCV schedule ${once.id} “water the plants”]\n\nCaught up: water the plants.`);
  expect(texts.find((t) => t.includes(skip.id))).toMatch(/^\[SCV schedule sch-[0-9a-f]{8} “read the news”: The fire due .* was skipped: SCV was not running when it was due; not run because its catch_up is skip\.\]$/);
  expect(fake.requests.length).toBe(1);
  expect(inputText(fake.requests[0]!.body)).toContain("late catch-up run");
  expect(state(b, once.id).last).toMatchObject({ outcome: "answered" });
  expect(state(b, skip.id).last).toMatchObject({ outcome: "skipped" });
}, 30_000);

test("a daemon idle with its schedules paused makes no model request", async () => {
  const b = makeBridge(fake.url, LOW_FLOOR);
  const s = chatSchedule(b, { every: "1s" });
  const paused = await runBinary(["schedules", "pause", s.id], b.env, b.workspace);
  expect(paused.stdout).toBe(`paused ${s.id}\n`);
  expect(paused.stderr).toContain("The daemon is not running and not installed"); // said plainly
  fake.queue(text("must not be used"));
  await startDaemon(b);
  await Bun.sleep(4000);
  expect(fake.requests.length).toBe(0);
  expect(outMessages(b)).toEqual([]);
  const status = await runBinary(["status"], b.env, b.workspace);
  expect(status.stdout).toContain("schedules: 0 active, 1 paused");
  // Resumed: it fires again, without catching up what was due while it was paused.
  await runBinary(["schedules", "resume", s.id], b.env, b.workspace);
  await waitForOut(b, 1);
  await Bun.sleep(300);
  expect(inputText(fake.requests[0]!.body)).not.toContain("catch-up");
  expect(inputText(fake.requests[0]!.body)).not.toContain("were missed");
}, 30_000);

test("a fire whose channel is paused holds its reply and tells the owner through another channel and the terminal", async () => {
  const { startFakeIlink } = await import("../fake/ilink-server");
  const { saveLogin } = await import("../../src/channels/wechat/store");
  const ilink = await startFakeIlink({ pollMs: 1500 });
  try {
    const b = makeBridge(fake.url, `${LOW_FLOOR}\n[channels.wechat]\nbase_url = "${ilink.url}"\ncdn_base_url = "${ilink.cdnUrl}"\n`);
    saveLogin(b.home, "default", { bot_token: ilink.token, bot_id: ilink.botId, base_url: ilink.url, owner: ilink.ownerId, saved_at: new Date().toISOString() });
    const wechat = async () => ((await (await daemonFetch(b.home, "/channels")).json()) as { channels: any[] }).channels.find((c) => c.kind === "wechat");
    await startDaemon(b);
    await waitFor(async () => (await wechat())?.state === "connected", 25_000, "WeChat to connect");
    ilink.staleTokens.add(ilink.token);
    ilink.push([{ type: 1, text_item: { text: "hello" } }]); // the next poll finds the token stale
    fake.queue(text("hi"), text("the scheduled answer"));
    await waitFor(async () => (await wechat())?.state === "paused", 10_000, "WeChat to pause");
    const config = { channels: ChannelsConfig.parse({}), schedules: SchedulesConfig.parse({ min_every_seconds: 1, time_zone: "Europe/Berlin" }) } as Config;
    const s = createSchedule(new ScheduleStore(b.home), { prompt: "the weekly report", at: new Date(Date.now() + 1000).toISOString() }, { config, owner: { kind: "chat", channel: "wechat/default", conversation: ilink.ownerId }, madeBy: "test" }).schedule;
    await daemonFetch(b.home, `/schedules/reload?id=${s.id}`, { method: "POST" });
    await waitFor(() => state(b, s.id).fires === 1, 10_000, `the fire; log:\n${b.logText()}`);
    const [notice] = await waitForOut(b, 1, 10_000);
    expect(notice).toMatchObject({ to: "owner-1" });
    expect(notice!.text).toContain(`[SCV schedule ${s.id} “the weekly report” fired, but wechat/default is paused`);
    expect(notice!.text).toContain("Its message is held and goes out once wechat/default works again.");
    const list = await runBinary(["schedules", "list"], b.env, b.workspace);
    expect(list.stdout).toContain(`notice (`);
    expect(list.stdout).toContain("is paused");
    expect((await runBinary(["schedules", "list"], b.env, b.workspace)).stdout).not.toContain("notice ("); // shown once
    // Logged in again: the held answer goes out on WeChat.
    await waitFor(async () => (await wechat())?.outbound_pending + (await wechat())?.outbound_held >= 1, 10_000, "the answer to wait in the outbox");
    ilink.token = "tok-2";
    saveLogin(b.home, "default", { bot_token: "tok-2", bot_id: ilink.botId, base_url: ilink.url, owner: ilink.ownerId, saved_at: new Date().toISOString() });
    const texts = () => ilink.sent.filter((m) => m.item?.type === 1).map((m) => m.item.text_item.text as string);
    await waitFor(() => texts().some((t) => t.endsWith("the scheduled answer")), 15_000, `the held answer; log:\n${b.logText()}`);
  } finally {
    await ilink.close();
  }
}, 60_000);

test("a schedule file below the floor (written outside SCV's checks) is reported and never fires; the others keep running", async () => {
  // The daemon's config keeps the default 300-second floor; the file says every second, with tools.
  const b = makeBridge(fake.url, "[schedules]\ntime_zone = \"Europe/Berlin\"\n");
  const fast = chatSchedule(b, { every: "1s", tools: true });
  const good = chatSchedule(b, { at: new Date(Date.now() + 3000).toISOString() });
  fake.queue(text("on time"), text("fired again"), text("fired again"), text("fired again"));
  await startDaemon(b);
  await waitFor(() => unprompted(b).length >= 1, 15_000, "the good schedule's fire");
  await Bun.sleep(3000);
  expect(unprompted(b)).toHaveLength(1);
  expect(unprompted(b)[0]!.text).toContain("on time");
  expect(fake.requests.length).toBe(1);
  expect(inputText(fake.requests[0]!.body)).toContain(`[SCV schedule ${good.id}`);
  expect(state(b, fast.id).fires).toBe(0);
  expect(b.logText()).toContain(`${fast.id}.json is not used: trigger.every_seconds: every_seconds = 1 is more often than the floor of 5 minutes`);
  const listed = await runBinary(["schedules", "list"], b.env, b.workspace);
  expect(listed.stdout + listed.stderr).toContain(`${fast.id}.json`);
  expect(listed.stdout + listed.stderr).toContain("floor of 5 minutes");
}, 40_000);
