// The runner the daemon hosts: one timer for the nearest fire over all schedules (re-armed at most a minute
// ahead, so a machine that slept is noticed), each fire recorded before its turn starts and its outcome stored
// after. After a crash a fire that never started runs, and one whose turn had started is reported to its owner
// as interrupted: never run twice, never dropped silently. Misses while the daemon was down are caught up once
// within the grace window, else reported as skipped. Nothing here calls a model: a fire's turn is the executors'.
import type { Config } from "../config/schema";
import { ellipsize } from "../text/cut";
import { describeTrigger, inWords, ownerTimeZone, scheduleLimitProblem } from "./create";
import type { Fire, FireOutcome, Schedule, ScheduleState } from "./schema";
import type { InvalidSchedule, ScheduleStore } from "./store";
import { lastFireBetween, nextFire, wallClock } from "./trigger";

export interface FireRequest {
  schedule: Schedule;
  fire: Fire;
  /** The turn's prompt: the schedule's prompt with what the model needs to know about this fire. */
  prompt: string;
}

export interface ScheduleExecutors {
  /** Queues the fire in its chat conversation, at most once per fire ID; the conversation reports back through `settled`. */
  chat(req: FireRequest): { ok: true } | { ok: false; error: string };
  /** Whether a handed chat fire is still queued or running in its conversation. */
  chatPending(fire: Fire): boolean;
  /** Runs a terminal-made fire's turn in the schedule's stored session; `started` is called just before the turn starts. */
  terminal(req: FireRequest & { sessionId?: string }, started: (sessionId: string) => void): Promise<{ outcome: "answered" | "failed"; reply: string; sessionId: string }>;
  /** Tells the schedule's owner something; `id` makes it once however often it is said. */
  tell(schedule: Schedule, text: string, id: string): void;
}

export interface Clock {
  now(): number;
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

export const realClock: Clock = {
  now: () => Date.now(),
  setTimer: (fn, ms) => setTimeout(fn, ms),
  clearTimer: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

export interface RunnerOptions {
  store: ScheduleStore;
  config: Config;
  executors: ScheduleExecutors;
  log(line: string): void;
  clock?: Clock;
  /** The longest the timer sleeps before looking again (a clock that jumped, a machine that slept). */
  maxSleepMs?: number;
}

/** A fire this late counts as missed (the daemon was busy starting, or the machine asleep). */
const LATE_MS = 120_000;

/** When the schedule fires next (undefined: paused, finished or never again); throws TriggerError for a bad trigger. */
export function nextDue(s: Schedule, st: ScheduleState): number | undefined {
  if (s.paused || st.finished) return undefined;
  if (s.count !== undefined && st.fires >= s.count) return undefined;
  const next = nextFire(s.trigger, baseOf(s, st));
  if (next === undefined || (s.until && next > Date.parse(s.until))) return undefined;
  return next;
}

/** The time after which the next fire is looked for: the last one handled, the creation, or the last resume. */
function baseOf(s: Schedule, st: ScheduleState): number {
  const base = st.last_due ? Date.parse(st.last_due) : Date.parse(s.created);
  return s.resumed ? Math.max(base, Date.parse(s.resumed)) : base;
}

export function shortPrompt(s: Schedule): string {
  return ellipsize(s.prompt.replace(/\s+/g, " ").trim(), 60);
}

/** What leads a fire's reply to the owner, so it is clear which reminder it answers: `[SCV schedule sch-… “stretch”]`. */
export function fireHeading(s: Schedule): string {
  return `[SCV schedule ${s.id} “${shortPrompt(s)}”]`;
}

export class ScheduleRunner {
  private readonly clock: Clock;
  /** Each active schedule's next fire: all the runner holds per schedule (the rest is read when it fires). */
  private readonly due = new Map<string, number>();
  /** Schedules with a fire in flight: a fire due meanwhile is skipped, so a slow turn cannot pile up. */
  private readonly inFlight = new Set<string>();
  private readonly running = new Set<Promise<void>>();
  private invalid: InvalidSchedule[] = [];
  private timer: unknown;
  private earliest = Infinity;
  private startedAt = 0;
  private stopped = false;

  constructor(private readonly opts: RunnerOptions) {
    this.clock = opts.clock ?? realClock;
  }

  /** Recovers fires left by a crash, loads the schedules and arms the timer. */
  start(): void {
    this.startedAt = this.clock.now();
    this.recover();
    this.reload();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) this.clock.clearTimer(this.timer);
    this.timer = undefined;
  }

  /** Terminal fires running now (a planned stop waits for them). */
  busy(): number {
    return this.running.size;
  }

  /**
   * Reads the schedules again and re-arms the timer: all of them, or only `id` (one was made, changed or removed).
   * Returns the files that cannot be used, each with its problem.
   */
  reload(id?: string): { invalid: InvalidSchedule[] } {
    if (id !== undefined) return this.reloadOne(id);
    const { schedules, invalid } = this.opts.store.list();
    this.due.clear();
    for (const s of schedules) {
      const bad = this.track(s);
      if (bad) invalid.push(bad);
    }
    for (const bad of invalid) if (!this.invalid.some((i) => i.file === bad.file && i.error === bad.error)) this.opts.log(`schedules: ${bad.file} is not used: ${bad.error}`);
    this.invalid = invalid;
    this.arm();
    return { invalid };
  }

  private reloadOne(id: string): { invalid: InvalidSchedule[] } {
    this.due.delete(id);
    this.invalid = this.invalid.filter((i) => !i.file.endsWith(`/${id}.json`));
    let bad: InvalidSchedule | undefined;
    try {
      const s = this.opts.store.get(id);
      if (s) bad = this.track(s);
    } catch (e) {
      bad = { file: `${this.opts.store.dir}/${id}.json`, error: (e as Error).message };
    }
    if (bad) {
      this.opts.log(`schedules: ${bad.file} is not used: ${bad.error}`);
      this.invalid.push(bad);
    }
    this.arm();
    return { invalid: bad ? [bad] : [] };
  }

  /** Puts the schedule's next fire on the timer; the problem when its trigger cannot be used. */
  private track(s: Schedule): InvalidSchedule | undefined {
    const broken = scheduleLimitProblem(s, this.opts.config);
    if (broken) return { file: `${this.opts.store.dir}/${s.id}.json`, error: broken };
    try {
      const next = nextDue(s, this.opts.store.state(s.id));
      if (next !== undefined) this.due.set(s.id, next);
    } catch (e) {
      return { file: `${this.opts.store.dir}/${s.id}.json`, error: (e as Error).message };
    }
    return undefined;
  }

  /** The next fire of each active schedule. */
  nextFires(): { id: string; at: number }[] {
    return [...this.due].map(([id, at]) => ({ id, at })).sort((a, b) => a.at - b.at);
  }

  /** Fires a schedule now, outside its trigger (`scv schedules run`). */
  runNow(id: string): { ok: true; fire: string } | { ok: false; error: string } {
    let s: Schedule | undefined;
    try {
      s = this.opts.store.get(id);
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
    if (!s) return { ok: false, error: `no schedule ${id}` };
    if (this.inFlight.has(id)) return { ok: false, error: `${id} is firing now; wait for it to finish` };
    const st = this.opts.store.state(id);
    const fire = this.record(s, st, this.clock.now(), {});
    this.execute(s, fire);
    return { ok: true, fire: fire.id };
  }

  /** A chat conversation finished a handed fire (answered, failed, or interrupted by a restart). */
  settled(fireId: string, outcome: FireOutcome, note?: string, reply?: string): void {
    const fire = this.opts.store.fires().find((f) => f.id === fireId);
    if (fire) this.finish(fire, outcome, note, reply);
  }

  /** Tells the owner; a notice that cannot be queued is logged, never the end of a fire. */
  private tell(s: Schedule, text: string, id: string): void {
    try {
      this.opts.executors.tell(s, text, id);
    } catch (e) {
      this.opts.log(`schedules: ${s.id}: could not tell the owner: ${(e as Error).message}`);
    }
  }

  private arm(): void {
    if (this.stopped) return;
    if (this.timer !== undefined) this.clock.clearTimer(this.timer);
    this.earliest = Infinity;
    for (const at of this.due.values()) if (at < this.earliest) this.earliest = at;
    const wait = Math.min(Math.max(this.earliest - this.clock.now(), 0), this.opts.maxSleepMs ?? 60_000);
    this.timer = this.clock.setTimer(() => this.onTimer(), wait);
    (this.timer as { unref?: () => void })?.unref?.();
  }

  private onTimer(): void {
    this.timer = undefined;
    const now = this.clock.now();
    if (this.earliest <= now) {
      for (const [id, at] of [...this.due]) {
        if (at > now) continue;
        try {
          const s = this.opts.store.get(id);
          if (s) this.fireDue(s, now);
          else this.due.delete(id); // removed by hand
        } catch (e) {
          this.opts.log(`schedules: ${id}: ${(e as Error).message}`);
          this.due.delete(id);
        }
      }
    }
    this.arm();
  }

  private refresh(s: Schedule): void {
    const next = nextDue(s, this.opts.store.state(s.id));
    if (next === undefined) this.due.delete(s.id);
    else this.due.set(s.id, next);
  }

  /** The occurrence due now: fired, caught up, or skipped (and said so). */
  private fireDue(s: Schedule, now: number): void {
    const st = this.opts.store.state(s.id);
    const window = lastFireBetween(s.trigger, baseOf(s, st), s.until ? Math.min(now, Date.parse(s.until)) : now);
    if (!window) return this.refresh(s);
    const due = window.last;
    const tz = ownerTimeZone(this.opts.config);
    const missed = due < this.startedAt || now - due > LATE_MS;
    const graceMs = this.opts.config.schedules.grace_hours * 3_600_000;
    if (missed && (s.catch_up === "skip" || now - due > graceMs)) {
      const why = s.catch_up === "skip" ? "its catch_up is skip" : `it is older than the ${this.opts.config.schedules.grace_hours} h catch-up window`;
      this.skip(s, st, due, window.missed + 1, `SCV was not running when it was due; not run because ${why}`);
      return this.refresh(s);
    }
    if (this.inFlight.has(s.id)) {
      this.skip(s, st, due, 1, "the previous fire was still running", false);
      return this.refresh(s);
    }
    if (s.max_turns_per_day !== undefined) {
      const w = wallClock(now, tz);
      const day = `${w.year}-${String(w.month).padStart(2, "0")}-${String(w.day).padStart(2, "0")}`;
      if (st.day === day && (st.day_turns ?? 0) >= s.max_turns_per_day) {
        this.skip(s, st, due, 1, `max_turns_per_day (${s.max_turns_per_day}) reached for ${day}`, (st.day_turns ?? 0) === s.max_turns_per_day);
        if (st.day_turns === s.max_turns_per_day) this.opts.store.saveState({ ...this.opts.store.state(s.id), day_turns: s.max_turns_per_day + 1 });
        return this.refresh(s);
      }
    }
    const fire = this.record(s, st, due, { catchUp: missed, skipped: window.missed });
    this.execute(s, fire);
    this.refresh(s);
  }

  /** Writes the fire record first, then the state: after a crash between the two, recovery mends the state. */
  private record(s: Schedule, st: ScheduleState, due: number, extra: { catchUp?: boolean; skipped?: number }): Fire {
    const now = this.clock.now();
    const n = st.fires + 1;
    const fire: Fire = {
      id: `${s.id}-${n}`,
      schedule: s.id,
      n,
      due: new Date(due).toISOString(),
      state: "due",
      ...(extra.catchUp ? { catch_up: true } : {}),
      ...(extra.skipped ? { skipped: extra.skipped } : {}),
      recorded: new Date(now).toISOString(),
    };
    this.opts.store.saveFire(fire);
    const w = wallClock(now, ownerTimeZone(this.opts.config));
    const day = `${w.year}-${String(w.month).padStart(2, "0")}-${String(w.day).padStart(2, "0")}`;
    const lastDue = st.last_due && Date.parse(st.last_due) > due ? st.last_due : fire.due;
    this.opts.store.saveState({ ...st, fires: n, last_due: lastDue, day, day_turns: st.day === day ? (st.day_turns ?? 0) + 1 : 1 });
    return fire;
  }

  private skip(s: Schedule, st: ScheduleState, due: number, count: number, why: string, tell = true): void {
    const iso = new Date(due).toISOString();
    const note = `${count > 1 ? `${count} fires up to ${iso}` : `the fire due ${iso}`} skipped: ${why}`;
    this.opts.store.saveState({ ...st, last_due: iso, last: { due: iso, at: new Date(this.clock.now()).toISOString(), outcome: "skipped", note } });
    this.opts.log(`schedules: ${s.id}: ${note}`);
    if (!tell) return;
    const when = inWords(due, ownerTimeZone(this.opts.config));
    const what = count > 1 ? `${count} fires (the last due ${when}) were` : `The fire due ${when} was`;
    this.tell(s, `[SCV schedule ${s.id} “${shortPrompt(s)}”: ${what} skipped: ${why}.]`, `k-${s.id}-${due}`);
  }

  private execute(s: Schedule, fire: Fire): void {
    this.inFlight.add(s.id);
    const prompt = firePrompt(s, fire, this.opts.config);
    if (s.owner.kind === "chat") {
      let r: { ok: true } | { ok: false; error: string };
      try {
        r = this.opts.executors.chat({ schedule: s, fire, prompt });
      } catch (e) {
        r = { ok: false, error: (e as Error).message };
      }
      if (!r.ok) {
        this.opts.log(`schedules: ${fire.id}: ${r.error}`);
        this.finish(fire, "failed", r.error);
        return;
      }
      this.opts.store.saveFire({ ...fire, state: "handed" });
      return;
    }
    const st = this.opts.store.state(s.id);
    const task = this.opts.executors
      .terminal({ schedule: s, fire, prompt, ...(st.session_id ? { sessionId: st.session_id } : {}) }, (sessionId) => {
        this.opts.store.saveFire({ ...fire, state: "running" }); // from here a crash reports it instead of running it again
        this.opts.store.saveState({ ...this.opts.store.state(s.id), session_id: sessionId });
      })
      .then(
        (r) => {
          this.tell(s, `${fireHeading(s)}\n\n${r.reply}`, `t-${fire.id}`);
          this.finish(fire, r.outcome, r.outcome === "failed" ? r.reply : undefined, r.reply);
        },
        (e) => {
          this.opts.log(`schedules: ${fire.id} failed: ${(e as Error).message}`);
          this.tell(s, `[SCV schedule ${s.id} “${shortPrompt(s)}” could not run: ${(e as Error).message}]`, `f-${fire.id}`);
          this.finish(fire, "failed", (e as Error).message);
        },
      )
      .finally(() => this.running.delete(task));
    this.running.add(task);
  }

  private finish(fire: Fire, outcome: FireOutcome, note?: string, reply?: string): void {
    const st = this.opts.store.state(fire.schedule);
    let s: Schedule | undefined;
    try {
      s = this.opts.store.get(fire.schedule);
    } catch {} // edited into nonsense meanwhile: the fire still ends
    const done = s?.count !== undefined && st.fires >= s.count ? { finished: `all ${s.count} fire(s) done` } : {};
    const at = new Date(this.clock.now()).toISOString();
    const first = reply ? firstLine(reply) : undefined;
    if (s) this.opts.store.saveState({ ...st, ...done, last: { due: fire.due, at, outcome, ...(note ? { note: ellipsize(note, 500) } : {}), ...(first ? { reply: first } : {}) } });
    this.opts.store.removeFire(fire.id);
    this.inFlight.delete(fire.schedule);
    if (s && this.startedAt) {
      this.refresh(s);
      this.arm();
    }
  }

  /** Fires a crash left: the state catches up with them; not started → run; started → reported as interrupted. */
  private recover(): void {
    for (const fire of this.opts.store.fires()) {
      let s: Schedule | undefined;
      try {
        s = this.opts.store.get(fire.schedule);
      } catch {}
      if (!s) {
        this.opts.store.removeFire(fire.id);
        continue;
      }
      const st = this.opts.store.state(s.id);
      if (st.fires < fire.n || !st.last_due || Date.parse(st.last_due) < Date.parse(fire.due)) {
        this.opts.store.saveState({ ...st, fires: Math.max(st.fires, fire.n), last_due: st.last_due && Date.parse(st.last_due) > Date.parse(fire.due) ? st.last_due : fire.due });
      }
      if (fire.state === "due") {
        this.opts.log(`schedules: ${fire.id} was recorded but never started; running it now`);
        this.execute(s, fire);
      } else if (fire.state === "handed") {
        if (this.opts.executors.chatPending(fire)) this.inFlight.add(s.id);
        else this.finish(fire, "answered", "settled before a restart");
      } else {
        const when = inWords(Date.parse(fire.due), ownerTimeZone(this.opts.config));
        this.tell(s, `[SCV schedule ${s.id} “${shortPrompt(s)}”: SCV was restarted while the fire due ${when} ran, so it was interrupted and has not been run again.]`, `i-${fire.id}`);
        this.finish(fire, "interrupted", "SCV was restarted during the turn");
      }
    }
  }
}

/** A reply's first line with words in it, for `scv schedules list`. */
export function firstLine(reply: string): string | undefined {
  const line = reply.split("\n").map((l) => l.trim()).find((l) => l && !/^\[SCV schedule sch-[0-9a-f]{8} “.*”\]$/.test(l));
  return line ? ellipsize(line, 200) : undefined;
}

/** The turn's prompt: the schedule's own words after what this fire is. */
export function firePrompt(s: Schedule, fire: Fire, config: Config): string {
  const tz = ownerTimeZone(config);
  const lines = [
    `[SCV schedule ${s.id} (${describeTrigger(s.trigger, tz)}) fired; it was due ${inWords(Date.parse(fire.due), tz)}. Nobody is watching this turn live: your reply is delivered to the owner as a message.`,
  ];
  if (fire.catch_up) lines.push("SCV was not running when it was due, so this is a late catch-up run.");
  if (fire.skipped) lines.push(`${fire.skipped} earlier fire(s) were missed while SCV was not running and are skipped.`);
  if (s.owner.kind === "terminal" && !s.tools) lines.push("Only read-only tools are approved in this run.");
  return `${lines.join(" ")}]\n\n${s.prompt}`;
}
