// The chat bridge as a daemon service: built from the user's config at `scv daemon run`, started once the
// daemon owns its socket (so two daemons never read one inbox), serving GET /channels.
import type { Hono } from "hono";
import { loadConfig } from "../config/load";
import type { Config } from "../config/schema";
import { ChannelHost, type HostOptions } from "./core/host";
import { configuredAdapters } from "./registry";

export interface ChannelService {
  /** The running host (after start): schedules queue their fires and notices through it. */
  host(): ChannelHost | undefined;
  busy(): number;
  extend(app: Hono): void;
  pause(): void;
  start(): void;
  stop(): Promise<void>;
}

/** Throws ConfigError on a bad config; returns undefined when no channel is configured. */
export function createChannelService(opts: {
  scvHome: string;
  env: NodeJS.ProcessEnv;
  log(line: string): void;
  /** The daemon's config when it loaded it already (else loaded here). */
  config?: Config;
  scheduleSettled?: HostOptions["scheduleSettled"];
  live?: HostOptions["live"];
  cardReply?: HostOptions["cardReply"];
  cardPress?: HostOptions["cardPress"];
}): ChannelService | undefined {
  const config = opts.config ?? loadConfig({ env: opts.env }).config;
  const adapters = configuredAdapters(config, opts.scvHome, opts.env);
  if (adapters.length === 0) return undefined;
  // Built only in start(), once the daemon owns the socket: the host's stores assume one daemon per SCV_HOME.
  let host: ChannelHost | undefined;
  return {
    host: () => host,
    busy: () => host?.busy() ?? 0,
    extend(app) {
      app.get("/channels", (c) => c.json({ channels: host?.status() ?? [] }));
    },
    pause: () => host?.pause(),
    start() {
      host = new ChannelHost({
        scvHome: opts.scvHome,
        config,
        env: opts.env,
        adapters,
        log: opts.log,
        ...(opts.live ? { live: opts.live } : {}),
        ...(opts.scheduleSettled ? { scheduleSettled: opts.scheduleSettled } : {}),
        ...(opts.cardReply ? { cardReply: opts.cardReply } : {}),
        ...(opts.cardPress ? { cardPress: opts.cardPress } : {}),
      });
      host.start();
    },
    stop: async () => host?.stop(),
  };
}
