// Making a schedule from what a person (CLI) or the model (the schedule tool) asked for: every field checked,
// with an error naming the field, before anything is stored. Shared by both, so both refuse the same things.
import type { Config } from "../config/schema";
import { type Schedule, type ScheduleOwner, type ScheduleTrigger } from "./schema";
import type { ScheduleStore } from "./store";
import { checkTimeZone, hostTimeZone, nextFire, parseCron, parseDuration, parseTime, TriggerError } from "./trigger";

export interface ScheduleRequest {
  prompt: string;
  at?: string;
  every?: string;
  cron?: string;
  tz?: string;
  until?: string;
  count?: number;
  max_turns_per_day?: number;
  catch_up?: "once" | "skip";
  tools?: boolean;
}

/** The owner's time zone: [schedules] time_zone, else the host's. */
export function ownerTimeZone(config: Config): string {
  return config.schedules.time_zone ?? hostTimeZone();
}

/** Builds and checks a schedule (not stored); throws TriggerError naming the field. */
export function buildSchedule(req: ScheduleRequest, ctx: { config: Config; owner: ScheduleOwner; madeBy: string; id: string; now: number }): { schedule: Schedule; next: number } {
  const prompt = req.prompt.trim();
  if (!prompt) throw new TriggerError("prompt", "say what SCV should do when the schedule fires");
  const given = (["at", "every", "cron"] as const).filter((k) => req[k] !== undefined);
  if (given.length !== 1) throw new TriggerError("trigger", given.length ? `give one of at, every or cron, not ${given.join(" and ")}` : "give one of at (a time), every (a duration) or cron (an expression)");
  if (ctx.config.schedules.time_zone) checkTimeZone(ctx.config.schedules.time_zone, "[schedules] time_zone");
  const tz = req.tz !== undefined ? checkTimeZone(req.tz) : ownerTimeZone(ctx.config);
  const created = new Date(ctx.now).toISOString();
  let trigger: ScheduleTrigger;
  if (req.at !== undefined) {
    const at = parseTime(req.at, tz, ctx.now);
    if (at <= ctx.now) throw new TriggerError("at", `${new Date(at).toISOString()} is in the past; give a time still to come`);
    trigger = { kind: "at", at: new Date(at).toISOString() };
  } else if (req.every !== undefined) {
    const seconds = parseDuration(req.every);
    const below = floorProblem(req.every, seconds, ctx.config);
    if (below) throw new TriggerError("every", below);
    trigger = { kind: "every", every_seconds: seconds, anchor: new Date(ctx.now + seconds * 1000).toISOString() };
  } else {
    parseCron(req.cron!);
    trigger = { kind: "cron", cron: req.cron!.trim(), tz };
  }
  let until: string | undefined;
  if (req.until !== undefined) {
    const u = parseTime(req.until, tz, ctx.now, "until");
    if (u <= ctx.now) throw new TriggerError("until", "is in the past");
    until = new Date(u).toISOString();
  }
  for (const key of ["count", "max_turns_per_day"] as const) {
    const v = req[key];
    if (v !== undefined && (!Number.isInteger(v) || v < 1)) throw new TriggerError(key, `${v} must be a whole number of at least 1`);
  }
  const next = nextFire(trigger, ctx.now);
  if (next === undefined || (until && next > Date.parse(until))) throw new TriggerError(req.cron ? "cron" : "until", "the schedule would never fire");
  const schedule: Schedule = {
    version: 1,
    id: ctx.id,
    prompt,
    trigger,
    owner: ctx.owner,
    tools: ctx.owner.kind === "chat" ? true : !!req.tools,
    made_by: ctx.madeBy,
    created,
    ...(until ? { until } : {}),
    ...(req.count !== undefined ? { count: req.count } : {}),
    ...(req.max_turns_per_day !== undefined ? { max_turns_per_day: req.max_turns_per_day } : {}),
    catch_up: req.catch_up ?? "once",
    paused: false,
  };
  return { schedule, next };
}

/** Why an interval is more often than the floor ([schedules] min_every_seconds), or nothing. */
function floorProblem(written: string, seconds: number, config: Config): string | undefined {
  const floor = config.schedules.min_every_seconds;
  if (seconds >= floor) return undefined;
  return `${written} is more often than the floor of ${words(floor)}; a shorter interval needs [schedules] min_every_seconds lowered in the user's config`;
}

/**
 * Why a stored schedule breaks a limit a schedule made through SCV meets, or nothing: a file edited by hand (or
 * written by anything else) is judged when it is loaded as buildSchedule judges a request. The shape is the
 * schema's; this checks the rest: a prompt with text, the interval floor, a readable cron expression and time zone.
 */
export function scheduleLimitProblem(s: Schedule, config: Config): string | undefined {
  if (!s.prompt.trim()) return "prompt: is blank; say what SCV should do when the schedule fires";
  const t = s.trigger;
  try {
    if (t.kind === "every") {
      const below = floorProblem(`every_seconds = ${t.every_seconds}`, t.every_seconds, config);
      if (below) return `trigger.every_seconds: ${below}`;
    } else if (t.kind === "cron") {
      parseCron(t.cron);
      checkTimeZone(t.tz);
    }
  } catch (e) {
    return (e as Error).message;
  }
  if (s.owner.kind === "terminal" && !s.owner.cwd.startsWith("/")) return `owner.cwd: "${s.owner.cwd}" is not an absolute path`;
  return undefined;
}

/** Builds, checks and stores a schedule. */
export function createSchedule(store: ScheduleStore, req: ScheduleRequest, ctx: { config: Config; owner: ScheduleOwner; madeBy: string; now?: number }): { schedule: Schedule; next: number } {
  const made = buildSchedule(req, { ...ctx, id: store.newId(), now: ctx.now ?? Date.now() });
  store.save(made.schedule);
  return made;
}

/** 300 → "5 minutes", 86400 → "1 day". */
function words(seconds: number): string {
  const [n, unit] = seconds % 86_400 === 0 ? [seconds / 86_400, "day"] : seconds % 3600 === 0 ? [seconds / 3600, "hour"] : seconds % 60 === 0 ? [seconds / 60, "minute"] : [seconds, "second"];
  return `${n} ${unit}${n === 1 ? "" : "s"}`;
}

/** How the trigger reads: "every 30 minutes", "at Friday 4 December 2026 at 09:00 (Europe/Berlin)", "cron 30 8 * * 1-5 (Europe/Berlin)". */
export function describeTrigger(t: ScheduleTrigger, tz: string): string {
  if (t.kind === "every") return `every ${words(t.every_seconds).replace(/^1 /, "")}`;
  if (t.kind === "at") return `once, ${inWords(Date.parse(t.at), tz)}`;
  return `cron ${t.cron} (${t.tz})`;
}

/** A time as a person says it in `tz`: "Friday 4 December 2026 at 09:00 (Europe/Berlin)". */
export function inWords(ms: number, tz: string): string {
  const date = new Intl.DateTimeFormat("en-GB", { timeZone: tz, weekday: "long", day: "numeric", month: "long", year: "numeric" }).format(ms);
  const time = new Intl.DateTimeFormat("en-GB", { timeZone: tz, hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(ms);
  return `${date} at ${time} (${tz})`;
}

/** "in 3 hours", "in 12 minutes", "in 2 days". */
export function fromNow(ms: number, now: number): string {
  const s = Math.round((ms - now) / 1000);
  if (s < 0) return "overdue";
  if (s < 90) return `in ${s} second${s === 1 ? "" : "s"}`;
  const m = Math.round(s / 60);
  if (m < 90) return `in ${m} minutes`;
  const h = Math.round(m / 60);
  if (h < 36) return `in ${h} hours`;
  return `in ${Math.round(h / 24)} days`;
}
