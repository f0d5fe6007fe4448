// The runner with an injected clock and recording executors (no daemon, no model): timing, pause, crash recovery,
// catch-up and skips, max_turns_per_day, a bad file beside good ones, and the store's private files.
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ChannelsConfig, type Config, SchedulesConfig } from "../../src/config/schema";
import { createSchedule } from "../../src/schedules/create";
import { type Clock, type FireRequest, ScheduleRunner } from "../../src/schedules/runner";
import type { ScheduleRequest } from "../../src/schedules/create";
import { ScheduleStore } from "../../src/schedules/store";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

class FakeClock implements Clock {
  timers = new Map<number, { at: number; fn: () => void }>();
  private n = 0;
  constructor(public t: number) {}
  now = () => this.t;
  setTimer = (fn: () => void, ms: number) => {
    this.timers.set(++this.n, { at: this.t + ms, fn });
    return this.n;
  };
  clearTimer = (h: unknown) => void this.timers.delete(h as number);
  /** Moves time on, running each timer when its time comes. */
  async advance(ms: number) {
    const end = this.t + ms;
    for (;;) {
      const next = [...this.timers].sort((a, b) => a[1].at - b[1].at)[0];
      if (!next || next[1].at > end) break;
      this.timers.delete(next[0]);
      this.t = Math.max(this.t, next[1].at);
      next[1].fn();
      await Bun.sleep(0); // let terminal turns settle
    }
    this.t = end;
  }
}

const T0 = Date.parse("2026-12-03T10:00:00Z");

function setup(schedules: Partial<Config["schedules"]> = {}) {
  const home = mkdtempSync(join(tmpdir(), "scv-sched-"));
  dirs.push(home);
  const config = { channels: ChannelsConfig.parse({}), schedules: SchedulesConfig.parse({ time_zone: "UTC", ...schedules }) } as Config;
  const store = new ScheduleStore(home);
  const calls: FireRequest[] = [];
  const told: { text: string; id: string }[] = [];
  const chat: FireRequest[] = [];
  let hang = false;
  const executors = {
    chat: (req: FireRequest) => (chat.push(req), { ok: true as const }),
    chatPending: () => false,
    terminal: async (req: FireRequest, started: (id: string) => void) => {
      calls.push(req);
      started("sess-1");
      if (hang) await new Promise(() => {});
      return { outcome: "answered" as const, reply: `done ${req.fire.id}`, sessionId: "sess-1" };
    },
    tell: (_s: unknown, text: string, id: string) => void (told.some((t) => t.id === id) || told.push({ text, id })),
  };
  const make = (req: Partial<ScheduleRequest>, now = T0) => createSchedule(store, { prompt: "check the build", ...req }, { config, owner: { kind: "terminal", cwd: home }, madeBy: "test", now }).schedule;
  const runner = (clock: FakeClock) => new ScheduleRunner({ store, config, executors, clock, log: () => {} });
  return { home, store, config, calls, told, chat, make, runner, setHang: (h: boolean) => (hang = h) };
}

test("an every schedule fires on time, once per interval, with one timer", async () => {
  const t = setup();
  const s = t.make({ every: "5m" });
  const clock = new FakeClock(T0);
  t.runner(clock).start();
  expect(clock.timers.size).toBe(1);
  await clock.advance(16 * 60_000);
  expect(t.calls.map((c) => [c.fire.id, c.fire.due])).toEqual([
    [`${s.id}-1`, "2026-12-03T10:05:00.000Z"],
    [`${s.id}-2`, "2026-12-03T10:10:00.000Z"],
    [`${s.id}-3`, "2026-12-03T10:15:00.000Z"],
  ]);
  expect(t.told.map((x) => x.text)).toEqual([1, 2, 3].map((n) => `[SCV schedule ${s.id} “check the build”]\n\ndone ${s.id}-${n}`));
  expect(t.store.state(s.id)).toMatchObject({ fires: 3, last: { outcome: "answered" }, session_id: "sess-1" });
  expect(t.store.fires()).toEqual([]);
  expect(clock.timers.size).toBe(1);
  // Private files in a private directory.
  expect(statSync(t.store.dir).mode & 0o777).toBe(0o700);
  expect(statSync(join(t.store.dir, `${s.id}.json`)).mode & 0o777).toBe(0o600);
});

test("an every schedule under the floor is refused unless config lowers it", () => {
  expect(() => setup().make({ every: "1m" })).toThrow("every: 1m is more often than the floor of 5 minutes");
  expect(setup({ min_every_seconds: 60 }).make({ every: "1m" }).trigger).toMatchObject({ kind: "every", every_seconds: 60 });
});

test("10 minutes idle with every schedule paused: no fire at all, and at most one wake a minute", async () => {
  const t = setup({ min_every_seconds: 60 });
  for (const every of ["1m", "2m", "5m"]) t.store.save({ ...t.make({ every }), paused: true });
  const clock = new FakeClock(T0);
  let wakes = 0;
  const setTimer = clock.setTimer;
  clock.setTimer = (fn, ms) => setTimer(() => (wakes++, fn()), ms);
  t.runner(clock).start();
  await clock.advance(10 * 60_000);
  expect(t.calls.length + t.chat.length + t.told.length).toBe(0);
  expect(wakes).toBeLessThanOrEqual(10);
});

test("an at schedule fires once; count and until end a schedule", async () => {
  const t = setup({ min_every_seconds: 60 });
  const at = t.make({ at: "10:30" });
  const counted = t.make({ every: "1m", count: 2 });
  const until = t.make({ every: "1m", until: "2026-12-03T10:03:30Z" });
  const clock = new FakeClock(T0);
  t.runner(clock).start();
  await clock.advance(3600_000);
  const by = (id: string) => t.calls.filter((c) => c.schedule.id === id).length;
  expect([by(at.id), by(counted.id), by(until.id)]).toEqual([1, 2, 3]);
  expect(t.store.state(counted.id).finished).toBe("all 2 fire(s) done");
});

test("crash before the turn started: the fire runs once after the restart; crash during it: reported, not re-run", async () => {
  const t = setup();
  const s = t.make({ every: "5m" });
  const clock = new FakeClock(T0);
  // The first daemon records a fire and dies before the turn starts (what a SIGKILL leaves).
  t.store.saveFire({ id: `${s.id}-1`, schedule: s.id, n: 1, due: "2026-12-03T10:05:00.000Z", state: "due", recorded: "2026-12-03T10:05:00.001Z" });
  clock.t = Date.parse("2026-12-03T10:06:00Z");
  const r1 = t.runner(clock);
  r1.start();
  await Bun.sleep(0);
  expect(t.calls.map((c) => c.fire.id)).toEqual([`${s.id}-1`]);
  expect(t.store.state(s.id)).toMatchObject({ fires: 1, last_due: "2026-12-03T10:05:00.000Z" });
  r1.stop();
  // The second daemon dies during fire 2's turn.
  t.setHang(true);
  const clock2 = new FakeClock(Date.parse("2026-12-03T10:09:59Z"));
  t.runner(clock2).start();
  await clock2.advance(2000);
  expect(t.calls.map((c) => c.fire.id)).toEqual([`${s.id}-1`, `${s.id}-2`]);
  expect(t.store.fires().map((f) => [f.id, f.state])).toEqual([[`${s.id}-2`, "running"]]);
  t.setHang(false);
  const clock3 = new FakeClock(Date.parse("2026-12-03T10:11:00Z"));
  t.runner(clock3).start();
  t.runner(new FakeClock(clock3.t)).start(); // a second start finds nothing more to report
  await Bun.sleep(0);
  expect(t.calls.length).toBe(2);
  expect(t.told.filter((x) => x.id === `i-${s.id}-2`).length).toBe(1);
  expect(t.told.find((x) => x.id === `i-${s.id}-2`)!.text).toContain("interrupted and has not been run again");
  expect(t.store.state(s.id).last).toMatchObject({ outcome: "interrupted" });
  expect(t.store.fires()).toEqual([]);
});

test("downtime: a miss within the grace window is caught up once; older misses are reported as skipped", async () => {
  const t = setup();
  const hourly = t.make({ cron: "0 * * * *" }); // due 11:00, 12:00, 13:00
  const skipper = t.make({ cron: "30 10 * * *", catch_up: "skip" });
  const old = t.make({ at: "2026-12-03T11:00:00Z" });
  // The daemon was down from 10:00 until 13:20 of the next day for `old`, and until 13:20 today for the rest.
  const clock = new FakeClock(Date.parse("2026-12-03T13:20:00Z"));
  t.runner(clock).start();
  await clock.advance(1000);
  const fired = t.calls.map((c) => [c.schedule.id, c.fire.due, !!c.fire.catch_up, c.fire.skipped ?? 0]);
  expect(fired).toContainEqual([hourly.id, "2026-12-03T13:00:00.000Z", true, 2]);
  expect(fired).toContainEqual([old.id, "2026-12-03T11:00:00.000Z", true, 0]);
  expect(t.calls.find((c) => c.schedule.id === hourly.id)!.prompt).toContain("late catch-up run");
  expect(t.calls.some((c) => c.schedule.id === skipper.id)).toBe(false);
  expect(t.told.find((x) => x.text.includes(skipper.id))!.text).toContain("skipped: SCV was not running when it was due; not run because its catch_up is skip");
  // Beyond the 6 h window: skipped, and said so.
  const t2 = setup();
  const late = t2.make({ at: "2026-12-03T11:00:00Z" });
  const clock2 = new FakeClock(Date.parse("2026-12-03T18:00:00Z"));
  t2.runner(clock2).start();
  await clock2.advance(1000);
  expect(t2.calls.length).toBe(0);
  expect(t2.told[0]!.text).toContain("older than the 6 h catch-up window");
  expect(t2.store.state(late.id).last).toMatchObject({ outcome: "skipped" });
});

test("max_turns_per_day skips further fires that day, telling the owner once", async () => {
  const t = setup({ min_every_seconds: 60 });
  const s = t.make({ every: "1m", max_turns_per_day: 2 });
  const clock = new FakeClock(T0);
  t.runner(clock).start();
  await clock.advance(10 * 60_000);
  expect(t.calls.length).toBe(2);
  expect(t.told.filter((x) => x.text.includes("max_turns_per_day")).length).toBe(1);
  expect(t.store.state(s.id).last).toMatchObject({ outcome: "skipped" });
});

test("a schedule file edited into nonsense is reported by field; the others keep running", async () => {
  const t = setup();
  const good = t.make({ every: "5m" });
  const bad = t.make({ every: "5m" });
  writeFileSync(join(t.store.dir, `${bad.id}.json`), JSON.stringify({ ...bad, trigger: { kind: "cron", cron: "99 * * * *", tz: "UTC" } }));
  const worse = t.make({ every: "5m" });
  writeFileSync(join(t.store.dir, `${worse.id}.json`), JSON.stringify({ ...worse, catch_up: "sometimes" }));
  const clock = new FakeClock(T0);
  const runner = t.runner(clock);
  runner.start();
  const { invalid } = runner.reload();
  expect(invalid.map((i) => i.error).sort()).toEqual(['catch_up: Invalid option: expected one of "once"|"skip"', "cron: minute 99 is outside 0-59"]);
  await clock.advance(5 * 60_000);
  expect(t.calls.map((c) => c.schedule.id)).toEqual([good.id]);
});

test("bad requests name their field", () => {
  const t = setup();
  expect(() => t.make({ at: "2026-12-03T09:00:00Z" })).toThrow("at: 2026-12-03T09:00:00.000Z is in the past");
  expect(() => t.make({ cron: "0 9 * *" })).toThrow("cron: ");
  expect(() => t.make({ cron: "0 9 * * *", tz: "Nowhere/City" })).toThrow('tz: "Nowhere/City" is not a time zone');
  expect(() => t.make({ every: "5m", at: "10:00" })).toThrow("trigger: give one of at, every or cron, not at and every");
  expect(() => t.make({ prompt: "  ", every: "5m" })).toThrow("prompt: ");
});
