// What the web pages are given: the daemon's config, its hosted sessions (live hub), its channels and schedules.
import type { Config } from "../config/schema";
import type { ChannelHost } from "../channels/core/host";
import type { LiveHub } from "../channels/core/live";
import type { WebAuth } from "./auth";

export interface ScheduleControl {
  reload(id?: string): void;
  runNow(id: string): { ok: true; fire: string } | { ok: false; error: string };
}

export interface WebContext {
  scvHome: string;
  env: NodeJS.ProcessEnv;
  config: Config;
  log(line: string): void;
  live: LiveHub;
  auth: WebAuth;
  channels(): ChannelHost | undefined;
  schedules?: ScheduleControl;
}

/** Hono's per-request values: the client's address (from the server) and the body, read within its cap. */
export type WebEnv = { Bindings: { client?: string }; Variables: { body: string } };
