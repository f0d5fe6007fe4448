// The schedule files' shapes, one zod schema each: the definition (written by whoever makes or changes a
// schedule), the daemon's state of it (written only by the daemon), and a fire in flight.
import { lazySchema } from "../lazy-schema";
import type { z } from "zod";

const isoTime = (z: typeof import("zod").z) => z.string().refine((s) => !Number.isNaN(Date.parse(s)), "must be an ISO 8601 date-time");

export const ScheduleTrigger = lazySchema((z) =>
  z.discriminatedUnion("kind", [
    z.strictObject({ kind: z.literal("at"), at: isoTime(z) }),
    z.strictObject({ kind: z.literal("every"), every_seconds: z.number().int().positive(), anchor: isoTime(z) }),
    z.strictObject({ kind: z.literal("cron"), cron: z.string().min(1), tz: z.string().min(1) }),
  ]),
);

/** Whose conversation a fire is a turn of: a chat conversation, or the terminal (made from the TUI, exec or the CLI). */
export const ScheduleOwner = lazySchema((z) =>
  z.discriminatedUnion("kind", [
    z.strictObject({ kind: z.literal("chat"), channel: z.string().min(1), conversation: z.string().min(1) }),
    z.strictObject({ kind: z.literal("terminal"), cwd: z.string().min(1) }),
  ]),
);

export const Schedule = lazySchema((z) =>
  z.strictObject({
    version: z.literal(1),
    id: z.string().regex(/^sch-[0-9a-f]{8}$/, "an ID looks like sch-1a2b3c4d"),
    prompt: z.string().min(1, "must not be empty"),
    trigger: ScheduleTrigger,
    owner: ScheduleOwner,
    /** Terminal-made: every tool call approved as with --yes; else read-only tools only. Chat: the conversation's approvals. */
    tools: z.boolean(),
    made_by: z.string().min(1),
    created: isoTime(z),
    until: isoTime(z).optional(),
    count: z.number().int().positive().optional(),
    max_turns_per_day: z.number().int().positive().optional(),
    catch_up: z.enum(["once", "skip"]),
    paused: z.boolean(),
    /** When it was last resumed: fires due while it was paused are not caught up. */
    resumed: isoTime(z).optional(),
  }),
);
export type Schedule = z.infer<typeof Schedule>;
export type ScheduleTrigger = z.infer<typeof ScheduleTrigger>;
export type ScheduleOwner = z.infer<typeof ScheduleOwner>;

export const FIRE_OUTCOMES = ["answered", "failed", "interrupted", "skipped", "held"] as const;
export type FireOutcome = (typeof FIRE_OUTCOMES)[number];

export const ScheduleState = lazySchema((z) =>
  z.object({
    id: z.string(),
    /** Fires started (the next fire's number is fires + 1). */
    fires: z.number().int().nonnegative(),
    /** The due time of the last fire handled (run or skipped): the next one is after it. */
    last_due: isoTime(z).optional(),
    /** The last fire: its outcome, why it failed or was skipped (note), and its reply's first line. */
    last: z.object({ due: isoTime(z), at: isoTime(z), outcome: z.enum(FIRE_OUTCOMES), note: z.string().optional(), reply: z.string().optional() }).optional(),
    /** The owner's day (YYYY-MM-DD) max_turns_per_day counts in, and the turns that day. */
    day: z.string().optional(),
    day_turns: z.number().int().nonnegative().optional(),
    finished: z.string().optional(),
    /** Terminal-made: the stored session its fires run in. */
    session_id: z.string().optional(),
  }),
);
export type ScheduleState = z.infer<typeof ScheduleState>;

/**
 * A fire in flight, written before its turn starts and removed once its outcome is in the state. `due`: not yet
 * started (after a crash it runs); `running`: its turn started (after a crash it is reported as interrupted);
 * `handed`: queued in a chat conversation, whose queue now answers for it.
 */
export const Fire = lazySchema((z) =>
  z.object({
    id: z.string(),
    schedule: z.string(),
    n: z.number().int().positive(),
    due: isoTime(z),
    state: z.enum(["due", "running", "handed"]),
    catch_up: z.boolean().optional(),
    /** Earlier occurrences skipped (downtime beyond the grace window, catch_up = skip), told with this fire. */
    skipped: z.number().int().nonnegative().optional(),
    recorded: isoTime(z),
  }),
);
export type Fire = z.infer<typeof Fire>;
