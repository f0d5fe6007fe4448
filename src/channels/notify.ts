// Where the owner is reached ([notify], docs/configuration.md "Notify"): the owner's conversation on the
// configured channels in the order the owner lists (the first that can send now takes a notice; the outbox then
// delivers it exactly once, across restarts), the web page (a live notice, and the browser's own notification
// when the page allowed it), and the desktop's notifier (`notify-send`) where one exists. Quiet hours hold the
// chat message until they end. Nothing here ever goes to a conversation other than the owner's.
import { type Config, NotifyConfig, parseNotifyTarget } from "../config/schema";
import { ownerTimeZone } from "../schedules/create";
import { nextCron, parseCron, wallClock } from "../schedules/trigger";
import type { Button } from "./core/adapter";
import type { ChannelHost, OwnerChannel } from "./core/host";
import type { LiveHub } from "./core/live";

export function notifySettings(config: Config): NotifyConfig {
  return config.notify ?? NotifyConfig.parse({});
}

const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** When the quiet hours now running end (ms), or undefined outside them (or with none set). */
export function quietUntil(config: Config, now = Date.now()): number | undefined {
  const quiet = notifySettings(config).quiet_hours;
  if (!quiet) return undefined;
  const [from, to] = quiet.split("-") as [string, string];
  const tz = ownerTimeZone(config);
  const w = wallClock(now, tz);
  const m = w.hour * 60 + w.minute;
  const start = minutes(from);
  const end = minutes(to);
  const inside = start === end ? false : start < end ? m >= start && m < end : m >= start || m < end;
  if (!inside) return undefined;
  return nextCron(parseCron(`${end % 60} ${Math.floor(end / 60)} * * *`), tz, now);
}

export interface Places {
  /** The owner's conversations, in the owner's order. */
  chats: OwnerChannel[];
  web: boolean;
  desktop: boolean;
}

/** The places `[notify] to` names (default: every configured channel's owner conversation, then the web page). */
export function ownerPlaces(config: Config, host: ChannelHost | undefined): Places {
  const owned = (host?.ownerChannels() ?? []).filter((c) => c.ownerConversation);
  const to = notifySettings(config).to;
  if (!to) return { chats: owned, web: true, desktop: false };
  const chats: OwnerChannel[] = [];
  let web = false;
  let desktop = false;
  for (const entry of to) {
    const t = parseNotifyTarget(entry);
    if (t.kind === "web") web = true;
    else if (t.kind === "desktop") desktop = true;
    else {
      const ch = owned.find((c) => c.key.startsWith(`${t.type}/`) && (t.account === undefined || c.key === `${t.type}/${t.account}`));
      // A conversation that is not the owner's is never used (the config check refuses the ones it can know).
      if (ch && (t.conversation === undefined || t.conversation === ch.ownerConversation) && !chats.includes(ch)) chats.push(ch);
    }
  }
  return { chats, web, desktop };
}

export interface OwnerNotice {
  /** Makes the notice once, however often it is said (also across a restart). */
  id: string;
  text: string;
  /** Buttons, on a channel that has them (an approval card's). */
  buttons?: Button[][];
}

export interface TellDeps {
  config: Config;
  host: ChannelHost | undefined;
  live?: LiveHub;
  env: NodeJS.ProcessEnv;
  log(line: string): void;
}

/**
 * Tells the owner: the first of their chats that can send now (else the first, whose outbox holds it), the web
 * page and the desktop as configured. Returns the channel the chat message was queued on, if any.
 */
export function tellOwner(deps: TellDeps, notice: OwnerNotice): string | undefined {
  const places = ownerPlaces(deps.config, deps.host);
  const ch = places.chats.find((c) => c.state.state === "connected") ?? places.chats[0];
  if (ch && deps.host) deps.host.send(ch.key, ch.ownerConversation, notice.text, notice.id, quietUntil(deps.config), notice.buttons);
  if (places.web) deps.live?.notice(notice.id, notice.text);
  if (places.desktop && !quietUntil(deps.config)) desktopNotify(deps.env, notice.text, deps.log);
  return ch?.key;
}

/** `notify-send` on a Linux desktop (a display and the program present); nothing elsewhere, never an error. */
function desktopNotify(env: NodeJS.ProcessEnv, text: string, log: (line: string) => void): void {
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return;
  const program = Bun.which("notify-send", { PATH: env.PATH ?? "" });
  if (!program) return;
  try {
    const [title, ...rest] = text.split("\n\n");
    const p = Bun.spawn([program, "--app-name=SCV", "--", (title ?? "SCV").slice(0, 200), rest.join("\n\n").slice(0, 1000)], { env, stdin: "ignore", stdout: "ignore", stderr: "ignore" });
    p.unref();
  } catch (e) {
    log(`notify: notify-send failed: ${(e as Error).message}`);
  }
}
