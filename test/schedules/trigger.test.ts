// The trigger maths with fixed instants (an injected clock): cron fields, names, steps, both DST days of
// America/New_York and Europe/Berlin, `every` anchors, `at`, durations and bad input naming its field.
import { describe, expect, test } from "bun:test";
import { checkTimeZone, lastFireBetween, nextCron, nextFire, parseCron, parseDuration, parseTime, TriggerError, wallClock } from "../../src/schedules/trigger";

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
const local = (ms: number, tz: string) => {
  const w = wallClock(ms, tz);
  return `${w.year}-${String(w.month).padStart(2, "0")}-${String(w.day).padStart(2, "0")} ${String(w.hour).padStart(2, "0")}:${String(w.minute).padStart(2, "0")}`;
};
/** Every fire in [from, to). */
function firesBetween(cron: string, tz: string, from: string, to: string): string[] {
  const out: string[] = [];
  const end = Date.parse(to);
  for (let t = nextFire({ kind: "cron", cron, tz }, Date.parse(from) - 1); t !== undefined && t < end; t = nextFire({ kind: "cron", cron, tz }, t)) out.push(`${local(t, tz)} ${iso(t)}`);
  return out;
}

describe("cron parsing", () => {
  test("lists, ranges, steps and names", () => {
    const c = parseCron("*/15 8-10 1,15 jan-mar MON-fri");
    expect(c.minutes).toEqual([0, 15, 30, 45]);
    expect(c.hours).toEqual([8, 9, 10]);
    expect([...c.days]).toEqual([1, 15]);
    expect([...c.months]).toEqual([1, 2, 3]);
    expect([...c.weekdays]).toEqual([1, 2, 3, 4, 5]);
    expect([...parseCron("0 0 * * 7").weekdays]).toEqual([0]);
    expect(parseCron("@daily").hours).toEqual([0]);
  });

  test("bad expressions name the field and the problem", () => {
    const msg = (e: string) => {
      try {
        parseCron(e);
      } catch (err) {
        expect(err).toBeInstanceOf(TriggerError);
        return (err as Error).message;
      }
      throw new Error(`accepted ${e}`);
    };
    expect(msg("61 * * * *")).toBe("cron: minute 61 is outside 0-59");
    expect(msg("* * * *")).toContain("has 4 field(s); give 5");
    expect(msg("0 25 * * *")).toBe("cron: hour 25 is outside 0-23");
    expect(msg("0 0 * foo *")).toContain('month "foo" is not a number or a name like jan');
    expect(msg("0 0 * * 5-1")).toContain("runs backwards");
    expect(msg("*/0 * * * *")).toContain("step");
  });

  test("day of month and day of week both restricted: either matches", () => {
    // 2026-12-01 is a Tuesday; "1st of month or Friday": Tue 1, Fri 4, Fri 11
    expect(firesBetween("0 9 1 * fri", "UTC", "2026-12-01T00:00:00Z", "2026-12-12T00:00:00Z").map((s) => s.slice(0, 16))).toEqual(["2026-12-01 09:00", "2026-12-04 09:00", "2026-12-11 09:00"]);
  });

  test("weekdays at 08:30 in a zone", () => {
    const t = nextCron(parseCron("30 8 * * 1-5"), "Europe/Berlin", Date.parse("2026-12-04T08:00:00Z")); // Fri 09:00 Berlin
    expect(local(t!, "Europe/Berlin")).toBe("2026-12-07 08:30"); // next Monday
  });
});

describe("daylight saving", () => {
  test("America/New_York spring-forward: a 02:30 daily fire runs once, at 03:00 local", () => {
    expect(firesBetween("30 2 * * *", "America/New_York", "2026-03-07T00:00:00Z", "2026-03-10T00:00:00Z")).toEqual([
      "2026-03-07 02:30 2026-03-07T07:30:00.000Z",
      "2026-03-08 03:00 2026-03-08T07:00:00.000Z",
      "2026-03-09 02:30 2026-03-09T06:30:00.000Z",
    ]);
  });

  test("America/New_York fall-back: 02:30 once, and 01:30 (passed twice) only at its first pass", () => {
    expect(firesBetween("30 2 * * *", "America/New_York", "2026-10-31T12:00:00Z", "2026-11-02T12:00:00Z")).toEqual([
      "2026-11-01 02:30 2026-11-01T07:30:00.000Z",
      "2026-11-02 02:30 2026-11-02T07:30:00.000Z",
    ]);
    expect(firesBetween("30 1 * * *", "America/New_York", "2026-11-01T00:00:00Z", "2026-11-02T00:00:00Z")).toEqual(["2026-11-01 01:30 2026-11-01T05:30:00.000Z"]);
  });

  test("Europe/Berlin both DST days: 02:30 fires once each day; a quarter-hourly cron skips nothing twice", () => {
    expect(firesBetween("30 2 * * *", "Europe/Berlin", "2026-03-28T12:00:00Z", "2026-03-30T12:00:00Z")).toEqual([
      "2026-03-29 03:00 2026-03-29T01:00:00.000Z",
      "2026-03-30 02:30 2026-03-30T00:30:00.000Z",
    ]);
    expect(firesBetween("30 2 * * *", "Europe/Berlin", "2026-10-24T12:00:00Z", "2026-10-26T12:00:00Z")).toEqual([
      "2026-10-25 02:30 2026-10-25T00:30:00.000Z",
      "2026-10-26 02:30 2026-10-26T01:30:00.000Z",
    ]);
    // Spring forward: 02:00-02:45 do not exist; they collapse into one fire at 03:00, then 03:15 carries on.
    expect(firesBetween("*/15 * * * *", "Europe/Berlin", "2026-03-29T00:30:00Z", "2026-03-29T01:20:00Z").map((s) => s.slice(0, 16))).toEqual([
      "2026-03-29 01:30",
      "2026-03-29 01:45",
      "2026-03-29 03:00",
      "2026-03-29 03:15",
    ]);
  });
});

describe("every, at, durations, zones", () => {
  test("every fires at anchor + k × interval", () => {
    const trig = { kind: "every" as const, every_seconds: 1800, anchor: "2026-12-03T10:00:00Z" };
    expect(iso(nextFire(trig, Date.parse("2026-12-03T09:00:00Z")))).toBe("2026-12-03T10:00:00.000Z");
    expect(iso(nextFire(trig, Date.parse("2026-12-03T10:00:00Z")))).toBe("2026-12-03T10:30:00.000Z");
    expect(lastFireBetween(trig, Date.parse("2026-12-03T10:00:00Z"), Date.parse("2026-12-03T12:10:00Z"))).toEqual({ last: Date.parse("2026-12-03T12:00:00Z"), missed: 3 });
  });

  test("at fires once", () => {
    const trig = { kind: "at" as const, at: "2026-12-03T17:30:00.000Z" };
    expect(iso(nextFire(trig, Date.parse("2026-12-03T17:00:00Z")))).toBe(trig.at);
    expect(nextFire(trig, Date.parse(trig.at))).toBeUndefined();
  });

  test("HH:MM is the next such wall time; ISO without offset is wall time in the zone", () => {
    const now = Date.parse("2026-12-03T10:00:00Z"); // 11:00 in Berlin
    expect(local(parseTime("09:00", "Europe/Berlin", now), "Europe/Berlin")).toBe("2026-12-04 09:00");
    expect(local(parseTime("17:30", "Europe/Berlin", now), "Europe/Berlin")).toBe("2026-12-03 17:30");
    expect(iso(parseTime("2026-12-24T17:30", "America/New_York", now))).toBe("2026-12-24T22:30:00.000Z");
    expect(iso(parseTime("2026-12-24T17:30+01:00", "America/New_York", now))).toBe("2026-12-24T16:30:00.000Z");
    expect(() => parseTime("25:00", "UTC", now)).toThrow("at: ");
    expect(() => parseTime("tomorrow", "UTC", now)).toThrow("ISO 8601");
  });

  test("durations", () => {
    expect(parseDuration("30m")).toBe(1800);
    expect(parseDuration("2h")).toBe(7200);
    expect(parseDuration("1d")).toBe(86400);
    expect(parseDuration("1h30m")).toBe(5400);
    // As a person writes them, too.
    expect(parseDuration("5 minutes")).toBe(300);
    expect(parseDuration("1 hour and 30 minutes")).toBe(5400);
    expect(parseDuration("2 hours, 5 mins")).toBe(7500);
    expect(parseDuration("90 seconds")).toBe(90);
    expect(parseDuration("1 day")).toBe(86400);
    expect(() => parseDuration("5 minutesx")).toThrow('every: "5 minutesx" is not a duration');
    expect(() => parseDuration("5 fortnights")).toThrow('every: "5 fortnights" is not a duration');
    expect(() => parseDuration("minutes")).toThrow("every:");
    expect(() => parseDuration("0m")).toThrow("every:");
  });

  test("a time from now: in 20 minutes, in 5m", () => {
    const now = Date.parse("2026-12-03T10:00:00Z");
    expect(iso(parseTime("in 20 minutes", "Europe/Berlin", now))).toBe("2026-12-03T10:20:00.000Z");
    expect(iso(parseTime("in 5m", "Europe/Berlin", now))).toBe("2026-12-03T10:05:00.000Z");
    expect(iso(parseTime("In 1 hour and 30 minutes", "Europe/Berlin", now))).toBe("2026-12-03T11:30:00.000Z");
    expect(() => parseTime("in a while", "Europe/Berlin", now)).toThrow('at: "a while" is not a duration');
    expect(() => parseTime("tomorrow", "Europe/Berlin", now)).toThrow('or a time from now such as "in 20 minutes"');
  });

  test("a zone that does not exist is refused by name", () => {
    expect(checkTimeZone("Europe/Berlin")).toBe("Europe/Berlin");
    expect(() => checkTimeZone("Mars/Olympus")).toThrow('tz: "Mars/Olympus" is not a time zone');
  });
});
