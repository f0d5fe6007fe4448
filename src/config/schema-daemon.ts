// config.toml's `[web_ui]`, `[schedules]` and `[notify]`: what the daemon hosts. A section of the one config
// schema (schema.ts re-exports it; docs/configuration.md describes every key).
import type { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { MAX_TIMER_SECONDS, positiveInt } from "./schema-fields";

/** The loopback address and port `scv web` serves on unless [web_ui] listen says otherwise. */
export const DEFAULT_WEB_UI_LISTEN = "127.0.0.1:7390";

/** `[web_ui]`: the daemon's own web page (docs/web.md). Not `[web]`, which configures the fetch and search tools. */
export const WebUiConfig = lazySchema((z) => z.strictObject({
  enabled: z.boolean({ error: "must be true or false" }).default(false),
  /** host:port; anything but a loopback address is the user's explicit choice (warned about by doctor and the log). */
  listen: z.string().regex(/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, "must be host:port, such as 127.0.0.1:7390 or [::1]:7390").default(DEFAULT_WEB_UI_LISTEN),
  /** The web chat approves as the chat owner's does (unasked) instead of asking in the page. */
  auto_approve: z.boolean({ error: "must be true or false" }).default(false),
  /** Host names (without port) the page answers to besides the listen address: a reverse proxy's or a LAN name. */
  allowed_hosts: z.array(z.string().regex(/^[A-Za-z0-9.-]{1,253}$/, "must be a host name such as scv.example.lan")).default([]),
}));

/** `[schedules]`: what the daemon's schedules may do (docs/configuration.md). */
export const SchedulesConfig = lazySchema((z) => z.strictObject({
  /** The shortest `every` interval a schedule may have: a runaway `every 1m` is refused below it. */
  min_every_seconds: positiveInt(MAX_TIMER_SECONDS).default(300),
  /** A fire missed while the daemon was down is caught up (catch_up = "once") only this long after it was due. */
  grace_hours: z.number().positive("must be greater than 0").max(24 * 365).default(6),
  /** The time zone cron schedules and times of day use by default, and replies speak in; default the host's. */
  time_zone: z.string().min(1).optional(),
}));

/** `[notify]`: where the owner is reached when a session has something for them (docs/configuration.md, "Notify"). */
export const NOTIFY_TARGET = /^(web|desktop|(dir|wechat|feishu|telegram)(\/[A-Za-z0-9_-]{1,64})?(:[^\s]{1,256})?)$/;
export const QUIET_HOURS = /^([01]\d|2[0-3]):[0-5]\d-([01]\d|2[0-3]):[0-5]\d$/;
export const NotifyConfig = lazySchema((z) => z.strictObject({
  /**
   * Where, in order of preference: `web`, `desktop`, or a channel (`telegram`, `dir/<account>`, optionally
   * `:<the owner's conversation>`). Default: the owner's conversation on every configured channel, then the web page.
   */
  to: z.array(z.string().regex(NOTIFY_TARGET, "each entry is web, desktop, or a channel such as telegram, dir/default or telegram:<owner id>")).max(16).optional(),
  /** "22:00-07:00" in the owner's time zone: chat messages wait until they end; none by default. */
  quiet_hours: z.string().regex(QUIET_HOURS, 'must be "HH:MM-HH:MM", such as "22:00-07:00"').optional(),
  /** A card nobody answered on its own screen this long is offered to the owner there. */
  after_seconds: positiveInt(86400).default(60),
  /** A turn longer than this that ended while the person was away is announced. */
  long_turn_seconds: positiveInt(86400).default(120),
}));
export type NotifyConfig = z.infer<typeof NotifyConfig>;
export type NotifyTarget = { kind: "web" } | { kind: "desktop" } | { kind: "chat"; type: string; account?: string; conversation?: string };
/** One `[notify] to` entry (already checked against NOTIFY_TARGET). */
export function parseNotifyTarget(entry: string): NotifyTarget {
  if (entry === "web" || entry === "desktop") return { kind: entry };
  const m = /^([a-z]+)(?:\/([A-Za-z0-9_-]+))?(?::(.+))?$/.exec(entry)!;
  return { kind: "chat", type: m[1]!, ...(m[2] ? { account: m[2] } : {}), ...(m[3] ? { conversation: m[3] } : {}) };
}
