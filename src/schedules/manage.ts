// What the CLI and the schedule tool both do to stored schedules: list them with their next fire and last
// outcome, pause, resume and remove. One place, so both say the same things.
import type { Config } from "../config/schema";
import { describeTrigger, fromNow, inWords, ownerTimeZone, scheduleLimitProblem } from "./create";
import { nextDue, shortPrompt } from "./runner";
import type { Schedule, ScheduleState } from "./schema";
import type { InvalidSchedule, ScheduleStore } from "./store";

export interface ScheduleRow {
  schedule: Schedule;
  state: ScheduleState;
  /** The next fire (ms), absent when paused, finished or never again. */
  next?: number;
  /** "paused", "finished (…)", "next Friday 4 December 2026 at 09:00 (Europe/Berlin), in 3 hours" */
  status: string;
  /** The last outcome in words, if it fired or skipped already. */
  last?: string;
}

export function scheduleRows(store: ScheduleStore, config: Config, now = Date.now()): { rows: ScheduleRow[]; invalid: InvalidSchedule[] } {
  const tz = ownerTimeZone(config);
  const { schedules, invalid } = store.list();
  const rows: ScheduleRow[] = [];
  for (const s of schedules) {
    const broken = scheduleLimitProblem(s, config);
    if (broken) {
      invalid.push({ file: `${store.dir}/${s.id}.json`, error: broken });
      continue;
    }
    const state = store.state(s.id);
    let next: number | undefined;
    try {
      next = nextDue(s, state);
    } catch (e) {
      invalid.push({ file: `${store.dir}/${s.id}.json`, error: (e as Error).message });
      continue;
    }
    const status = s.paused ? "paused" : state.finished ? `finished (${state.finished})` : next === undefined ? "no further fire" : `next ${inWords(next, tz)}, ${fromNow(next, now)}`;
    const said = state.last?.reply && state.last.outcome === "answered" ? `: “${state.last.reply}”` : "";
    const last = state.last ? `${state.last.outcome} ${state.last.at}${state.last.note ? ` (${state.last.note})` : ""}${said}` : undefined;
    rows.push({ schedule: s, state, ...(next !== undefined ? { next } : {}), status, ...(last ? { last } : {}) });
  }
  return { rows, invalid };
}

/** One line per schedule, as the tool and `scv schedules list` show it. */
export function rowLine(row: ScheduleRow, config: Config): string {
  const s = row.schedule;
  return `${s.id}: ${describeTrigger(s.trigger, ownerTimeZone(config))}, “${shortPrompt(s)}”; ${row.status}${row.last ? `; last: ${row.last}` : ""}`;
}

export class ScheduleNotFound extends Error {
  constructor(id: string) {
    super(`no schedule ${id}; \`scv schedules list\` shows the IDs`);
    this.name = "ScheduleNotFound";
  }
}

export function findSchedule(store: ScheduleStore, id: string): Schedule {
  const s = store.get(id);
  if (!s) throw new ScheduleNotFound(id);
  return s;
}

/** Pauses or resumes; a resumed schedule does not catch up what was due while it was paused. */
export function setPaused(store: ScheduleStore, id: string, paused: boolean): Schedule {
  const s: Schedule = { ...findSchedule(store, id), paused, ...(paused ? {} : { resumed: new Date().toISOString() }) };
  store.save(s);
  return s;
}

export function removeSchedule(store: ScheduleStore, id: string): Schedule {
  const s = findSchedule(store, id);
  store.remove(id);
  return s;
}
