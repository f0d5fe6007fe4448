// The daemon's HTTP surface on $SCV_HOME/run/scv.sock: request and response bodies (documented in
// docs/architecture.md). Later issues add sessions and channels.
import type { z } from "zod";
import { lazySchema } from "../lazy-schema";

export const HealthResponse = lazySchema((z) => z.object({
  ok: z.literal(true),
  pid: z.number().int(),
  /** /proc start time of the daemon, so a client can wait for exactly this process to exit. */
  start_time: z.string(),
  version: z.string(),
}));
export type HealthResponse = z.infer<typeof HealthResponse>;

export const DelegationCounts = lazySchema((z) => z.object({
  /** Runs at work, including nested SCVs whose own background jobs still count. */
  running: z.number().int(),
  /** Live agents waiting between turns. */
  idle: z.number().int(),
}));

export const StatusResponse = lazySchema((z) => z.object({
  pid: z.number().int(),
  version: z.string(),
  started_unix: z.number(),
  uptime_seconds: z.number(),
  delegations: DelegationCounts,
  /** Orphans this daemon stopped since it started. */
  orphans_stopped: z.number().int(),
  /** Orphans any SCV process of this home stopped, ever (state/reconcile.json). */
  orphans_stopped_total: z.number().int(),
  /** Orphan records not yet cleaned up. */
  orphans_awaiting: z.number().int(),
  /** Set once a planned stop began; the daemon then waits for this many runs. */
  stopping: z.boolean(),
  waiting_for: z.number().int(),
}));
export type StatusResponse = z.infer<typeof StatusResponse>;

export const ShutdownRequest = lazySchema((z) => z.strictObject({
  /** Kill running turns and delegations (the tracked way) instead of waiting for them. */
  force: z.boolean().default(false),
  /** How long a planned stop waits before it kills what still runs. */
  timeout_seconds: z.number().positive().max(86_400).optional(),
}));
export type ShutdownRequest = z.infer<typeof ShutdownRequest>;

export const ShutdownResponse = lazySchema((z) => z.object({
  stopping: z.literal(true),
  force: z.boolean(),
  waiting_for: z.number().int(),
  timeout_seconds: z.number(),
}));

export const ErrorResponse = lazySchema((z) => z.object({ error: z.string() }));
