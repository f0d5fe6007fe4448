// The trigger maths: when a schedule fires next. `at` fires once, `every` at anchor + k × interval, `cron` on a
// 5-field expression read as wall-clock time in a time zone (Intl, no dependency). Daylight-saving: a wall time
// the clock skips (02:30 on a spring-forward day) fires once when the gap ends (03:00); a wall time the clock
// passes twice (fall-back) fires once, at its first pass.

export class TriggerError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = "TriggerError";
  }
}

export type Trigger =
  | { kind: "at"; at: string }
  | { kind: "every"; every_seconds: number; anchor: string }
  | { kind: "cron"; cron: string; tz: string };

/** The host's time zone (TZ, else the system's). */
export function hostTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Throws TriggerError("tz") for a zone that does not exist. */
export function checkTimeZone(tz: string, field = "tz"): string {
  try {
    return wallFormatter(tz).resolvedOptions().timeZone;
  } catch {
    throw new TriggerError(field, `"${tz}" is not a time zone; use an IANA name such as Europe/Berlin or America/New_York`);
  }
}

function wallFormatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", { timeZone: tz, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric", weekday: "short" });
    formatters.set(tz, f);
  }
  return f;
}

export interface Wall {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  /** 0 = Sunday */
  weekday: number;
}

const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

/** The wall-clock reading of instant `ms` in `tz`. */
export function wallClock(ms: number, tz: string): Wall & { second: number } {
  const parts: Record<string, string> = {};
  for (const p of wallFormatter(tz).formatToParts(new Date(ms))) parts[p.type] = p.value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday: WEEKDAYS.indexOf(parts.weekday!),
  };
}

/** The zone's offset from UTC at instant `ms`, in ms. */
function offsetAt(ms: number, tz: string): number {
  const t = Math.floor(ms / 1000) * 1000;
  const w = wallClock(t, tz);
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - t;
}

/**
 * The instant a wall-clock minute happens in `tz`: its first pass when the clock passes it twice, and the end of
 * the gap when the clock skips it.
 */
export function wallToInstant(year: number, month: number, day: number, hour: number, minute: number, tz: string): number {
  const naive = Date.UTC(year, month - 1, day, hour, minute);
  const before = offsetAt(naive - 14 * 3_600_000, tz);
  const after = offsetAt(naive + 14 * 3_600_000, tz);
  const valid = [naive - before, naive - after].filter((t) => offsetAt(t, tz) === naive - t).sort((a, b) => a - b);
  if (valid.length) return valid[0]!;
  // Skipped: find the transition between the two offsets (minute resolution).
  let lo = naive - before - 14 * 3_600_000;
  let hi = naive - after + 14 * 3_600_000;
  while (hi - lo > 60_000) {
    const mid = Math.floor((lo + hi) / 2 / 60_000) * 60_000;
    if (offsetAt(mid, tz) === before) lo = mid;
    else hi = mid;
  }
  return hi;
}

// ---- cron ----

interface CronField {
  name: string;
  min: number;
  max: number;
  names?: string[];
}

const FIELDS: CronField[] = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day of month", min: 1, max: 31 },
  { name: "month", min: 1, max: 12, names: ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"] },
  { name: "day of week", min: 0, max: 7, names: ["sun", "mon", "tue", "wed", "thu", "fri", "sat"] },
];

export interface Cron {
  minutes: number[];
  hours: number[];
  days: Set<number>;
  months: Set<number>;
  weekdays: Set<number>;
  /** Whether day of month / day of week were restricted (both restricted: either matches, as cron does). */
  daysRestricted: boolean;
  weekdaysRestricted: boolean;
}

function fieldValue(text: string, f: CronField): number {
  const named = f.names?.indexOf(text.toLowerCase()) ?? -1;
  if (named >= 0) return named + (f.name === "month" ? 1 : 0);
  if (!/^\d+$/.test(text)) throw new TriggerError("cron", `${f.name} "${text}" is not a number${f.names ? ` or a name like ${f.names[0]}` : ""}`);
  const n = Number(text);
  if (n < f.min || n > f.max) throw new TriggerError("cron", `${f.name} ${n} is outside ${f.min}-${f.max}`);
  return n;
}

function parseField(text: string, f: CronField): number[] {
  const out = new Set<number>();
  for (const part of text.split(",")) {
    const [range, stepText] = part.split("/") as [string, string | undefined];
    let step = 1;
    if (stepText !== undefined) {
      if (!/^\d+$/.test(stepText) || Number(stepText) < 1) throw new TriggerError("cron", `${f.name} step "${stepText}" must be a whole number of at least 1`);
      step = Number(stepText);
    }
    let lo: number;
    let hi: number;
    if (range === "*") [lo, hi] = [f.min, f.name === "day of week" ? 6 : f.max];
    else if (range.includes("-")) {
      const [a, b] = range.split("-");
      lo = fieldValue(a ?? "", f);
      hi = fieldValue(b ?? "", f);
      if (hi < lo) throw new TriggerError("cron", `${f.name} range "${range}" runs backwards`);
    } else {
      lo = fieldValue(range, f);
      hi = stepText !== undefined ? (f.name === "day of week" ? 6 : f.max) : lo;
    }
    for (let v = lo; v <= hi; v += step) out.add(f.name === "day of week" && v === 7 ? 0 : v);
  }
  return [...out].sort((a, b) => a - b);
}

const MACROS: Record<string, string> = { "@hourly": "0 * * * *", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@weekly": "0 0 * * 0", "@monthly": "0 0 1 * *", "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *" };

/** Parses a 5-field cron expression (minute hour day-of-month month day-of-week); throws TriggerError("cron"). */
export function parseCron(expr: string): Cron {
  const words = (MACROS[expr.trim().toLowerCase()] ?? expr).trim().split(/\s+/).filter(Boolean);
  if (words.length !== 5) {
    throw new TriggerError("cron", `"${expr}" has ${words.length} field(s); give 5: minute hour day-of-month month day-of-week, as in "30 8 * * 1-5"`);
  }
  const [m, h, dom, mon, dow] = words.map((w, i) => parseField(w, FIELDS[i]!));
  return {
    minutes: m!,
    hours: h!,
    days: new Set(dom),
    months: new Set(mon),
    weekdays: new Set(dow),
    daysRestricted: words[2] !== "*" && !words[2]!.startsWith("*/"),
    weekdaysRestricted: words[4] !== "*" && !words[4]!.startsWith("*/"),
  };
}

function dayMatches(c: Cron, year: number, month: number, day: number): boolean {
  if (!c.months.has(month)) return false;
  const weekday = new Date(Date.UTC(year, month - 1, day)).getUTCDay();
  const byDay = c.days.has(day);
  const byWeekday = c.weekdays.has(weekday);
  if (c.daysRestricted && c.weekdaysRestricted) return byDay || byWeekday;
  return byDay && byWeekday;
}

/** Days searched ahead before a cron expression counts as never firing (Feb 29 on a Monday needs years). */
const CRON_SEARCH_DAYS = 366 * 8;

/** The first instant after `afterMs` the expression fires in `tz`, or undefined when it never does. */
export function nextCron(c: Cron, tz: string, afterMs: number): number | undefined {
  const start = wallClock(afterMs, tz);
  for (let i = 0; i < CRON_SEARCH_DAYS; i++) {
    const date = new Date(Date.UTC(start.year, start.month - 1, start.day + i));
    const [y, mo, d] = [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()];
    if (!dayMatches(c, y, mo, d)) continue;
    for (const h of c.hours) {
      if (i === 0 && h < start.hour - 3) continue; // earlier hours of today are past (3 h of slack for DST)
      for (const m of c.minutes) {
        const t = wallToInstant(y, mo, d, h, m, tz);
        if (t > afterMs) return t;
      }
    }
  }
  return undefined;
}

// ---- durations and times ----

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/**
 * `30m`, `2h`, `1d`, `90s`, `1h30m`, and as a person writes them, `20 minutes`, `1 hour and 30 minutes`, `2 days`
 * → seconds; throws TriggerError(field).
 */
export function parseDuration(text: string, field = "every"): number {
  const t = text.trim().toLowerCase();
  // A number and a unit (s, sec, second(s), m, min(s), minute(s), h, hr(s), hour(s), d, day(s)), then a separator.
  const re = /(\d+)\s*(s(?:ec(?:ond)?s?)?|m(?:in(?:ute)?s?)?|h(?:(?:ou)?rs?)?|d(?:ays?)?)(?![a-z])(?:\s*,\s*|\s+and\s+|\s*)/gy;
  let total = 0;
  let matched = 0;
  for (let m; (m = re.exec(t)); ) {
    total += Number(m[1]) * UNIT_SECONDS[m[2]![0]!]!;
    matched = re.lastIndex;
  }
  if (!t || matched !== t.length || total <= 0) {
    throw new TriggerError(field, `"${text}" is not a duration; write a number and a unit, such as 30m, 2h, 1d or 1h30m`);
  }
  return total;
}

/**
 * An ISO 8601 date-time (with offset or Z; without one it is read as wall time in `tz`), `HH:MM`: the next such
 * wall time in `tz`, or `in DURATION` (`in 20 minutes`, `in 5m`): that long from now. Throws TriggerError(field).
 */
export function parseTime(text: string, tz: string, nowMs: number, field = "at"): number {
  const t = text.trim();
  // Relative: "in 20 minutes", "in 5m", "in 1h30m".
  const rel = /^in\s+(.+)$/i.exec(t);
  if (rel) return nowMs + parseDuration(rel[1]!, field) * 1000;
  const hm = /^(\d{1,2}):(\d{2})$/.exec(t);
  if (hm) {
    const [h, m] = [Number(hm[1]), Number(hm[2])];
    if (h > 23 || m > 59) throw new TriggerError(field, `"${text}" is not a time of day; use HH:MM from 00:00 to 23:59`);
    return nextCron({ minutes: [m], hours: [h], days: new Set(range(1, 31)), months: new Set(range(1, 12)), weekdays: new Set(range(0, 6)), daysRestricted: false, weekdaysRestricted: false }, tz, nowMs)!;
  }
  const iso = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i.exec(t);
  if (!iso) throw new TriggerError(field, `"${text}" is not a time; give an ISO 8601 date-time such as 2026-12-24T17:30 (or with an offset, +01:00), HH:MM, or a time from now such as "in 20 minutes"`);
  const [, y, mo, d, h, mi, s, zone] = iso;
  const parts = [y, mo, d, h, mi, s ?? "0"].map(Number) as [number, number, number, number, number, number];
  if (parts[1] < 1 || parts[1] > 12 || parts[2] < 1 || parts[2] > 31 || parts[3] > 23 || parts[4] > 59 || parts[5] > 59) {
    throw new TriggerError(field, `"${text}" is not a valid date-time`);
  }
  if (zone) {
    const ms = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s ?? "00"}${zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone}`);
    if (Number.isNaN(ms)) throw new TriggerError(field, `"${text}" is not a valid date-time`);
    return ms;
  }
  return wallToInstant(parts[0], parts[1], parts[2], parts[3], parts[4], tz) + parts[5] * 1000;
}

function range(lo: number, hi: number): number[] {
  return Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);
}

const parsedCrons = new Map<string, Cron>();

/** The first fire strictly after `afterMs`, or undefined when the trigger never fires again. */
export function nextFire(trigger: Trigger, afterMs: number): number | undefined {
  switch (trigger.kind) {
    case "at": {
      const at = Date.parse(trigger.at);
      return at > afterMs ? at : undefined;
    }
    case "every": {
      const anchor = Date.parse(trigger.anchor);
      const step = trigger.every_seconds * 1000;
      if (afterMs < anchor) return anchor;
      return anchor + (Math.floor((afterMs - anchor) / step) + 1) * step;
    }
    case "cron": {
      let c = parsedCrons.get(trigger.cron);
      if (!c) parsedCrons.set(trigger.cron, (c = parseCron(trigger.cron)));
      return nextCron(c, trigger.tz, afterMs);
    }
  }
}

/** The last fire at or before `atMs` and after `afterMs`, or undefined (for catching up after downtime). */
export function lastFireBetween(trigger: Trigger, afterMs: number, atMs: number): { last: number; missed: number } | undefined {
  let last: number | undefined;
  let missed = 0;
  if (trigger.kind === "every") {
    const anchor = Date.parse(trigger.anchor);
    const step = trigger.every_seconds * 1000;
    if (atMs < anchor) return undefined;
    const k = Math.floor((atMs - anchor) / step);
    last = anchor + k * step;
    if (last <= afterMs) return undefined;
    const first = nextFire(trigger, afterMs)!;
    missed = Math.round((last - first) / step);
    return { last, missed };
  }
  for (let t = nextFire(trigger, afterMs); t !== undefined && t <= atMs; t = nextFire(trigger, t)) {
    if (last !== undefined) missed++;
    last = t;
    if (missed > 10_000) break; // a minutely cron after a long downtime: the count is only reported
  }
  return last === undefined ? undefined : { last, missed };
}
