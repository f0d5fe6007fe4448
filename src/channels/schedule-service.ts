// Schedules as a daemon service: the runner with its executors. A chat-owned fire is queued in the owner's
// conversation (the channel core answers it through the outbox, exactly once); a terminal-made fire runs in the
// schedule's own stored session, read-only unless it was made with --tools, and its reply also goes to the
// owner's chat when a channel is configured. A channel that cannot send now holds the message in its outbox, and
// the owner is told through another channel and in the notices `scv schedules list` and `scv status` show.
import type { Hono } from "hono";
import type { Config } from "../config/schema";
import type { ChannelHost } from "./core/host";
import { replyText } from "./core/messages";
import { SessionLink } from "./core/sessions";
import { daemonHooks } from "./daemon-hooks";
import type { LiveHub } from "./core/live";
import { openSessionStore } from "../sessions/index";
import { type FireRequest, fireHeading, ScheduleRunner, shortPrompt } from "../schedules/runner";
import type { FireOutcome, Schedule } from "../schedules/schema";
import { addNotice } from "../schedules/notices";
import { ScheduleStore } from "../schedules/store";
import { tellOwner } from "./notify";

export interface ScheduleService {
  busy(): number;
  extend(app: Hono): void;
  start(): void;
  /** A stop began: no new fire starts. */
  pause(): void;
  stop(): Promise<void>;
  /** The channel core finished a fire queued in a conversation. */
  settled(fireId: string, outcome: FireOutcome, note?: string, reply?: string): void;
  /** Reads a changed schedule (or all) again from the store, as `scv schedules pause|resume|rm` asks over the socket. */
  reload(id?: string): void;
  /** Fires a schedule now, outside its trigger. */
  runNow(id: string): { ok: true; fire: string } | { ok: false; error: string };
}

export interface ScheduleServiceOptions {
  scvHome: string;
  env: NodeJS.ProcessEnv;
  config: Config;
  log(line: string): void;
  /** The running chat channels, if any are configured. */
  channels(): ChannelHost | undefined;
  /** Where the web page watches scheduled runs, when it is served. */
  live?: LiveHub;
}

export function createScheduleService(opts: ScheduleServiceOptions): ScheduleService {
  const store = new ScheduleStore(opts.scvHome);
  let link: SessionLink | undefined;
  const sessions = () =>
    (link ??= new SessionLink(
      opts.env,
      { activity() {}, unprompted() {}, limitReached: (message) => tellOwners(`[SCV reached a spending limit in a scheduled run: ${message}]`, `limit-${new Date().toISOString().slice(0, 10)}`), log: opts.log },
      openSessionStore({ home: opts.scvHome, warn: opts.log }),
      "scv-schedules",
      opts.live,
    ));

  /** Tells the owner through every channel that can send now except `except`, and in the terminal notices. */
  const tellOwners = (text: string, id: string, schedule = "", except?: string) => {
    const host = opts.channels();
    for (const ch of host?.ownerChannels() ?? []) {
      if (ch.key === except || !ch.ownerConversation || ch.state.state !== "connected") continue;
      host!.send(ch.key, ch.ownerConversation, text, `${id}-${ch.key.replace(/\//g, "-")}`);
    }
    addNotice(opts.scvHome, { id, schedule, text });
  };
  const tellElsewhere = (s: Schedule, text: string, id: string, except?: string) => tellOwners(text, id, s.id, except);

  /** Warns when a chat fire's channel cannot send now: its reply waits in the outbox meanwhile. */
  const warnIfHeld = (s: Schedule, fireId: string) => {
    if (s.owner.kind !== "chat") return;
    const channel = s.owner.channel;
    const ch = opts.channels()?.ownerChannels().find((c) => c.key === channel);
    if (!ch || ch.state.state === "connected" || ch.state.state === "connecting") return;
    const reason = "reason" in ch.state ? `: ${ch.state.reason}` : "";
    tellElsewhere(s, `[SCV schedule ${s.id} “${shortPrompt(s)}” fired, but ${channel} is ${ch.state.state.replace("_", " ")}${reason}. Its message is held and goes out once ${channel} works again.]`, `h-${fireId}`, channel);
  };

  const hooks = daemonHooks(opts.config, opts.env, opts.log);
  /** The user's ScheduleFired hooks, beside the fire's turn (not waited for). */
  const fired = (req: FireRequest) => {
    const owner = req.schedule.owner;
    hooks.fire("ScheduleFired", { schedule_id: req.schedule.id, fire_id: req.fire.id, prompt: req.schedule.prompt, owner: owner.kind, ...(owner.kind === "terminal" ? { workspace: owner.cwd } : { channel: owner.channel }) }, owner.kind === "terminal" ? owner.cwd : undefined);
  };

  const runner = new ScheduleRunner({
    store,
    config: opts.config,
    log: opts.log,
    executors: {
      chat(req: FireRequest) {
        fired(req);
        const owner = req.schedule.owner;
        if (owner.kind !== "chat") return { ok: false, error: "not a chat schedule" };
        const host = opts.channels();
        const turn = { id: req.fire.id, schedule: req.schedule.id, prompt: req.prompt, label: `[schedule ${req.schedule.id} fired: “${shortPrompt(req.schedule)}”]`, heading: fireHeading(req.schedule) };
        if (!host?.enqueueScheduled(owner.channel, owner.conversation, turn)) {
          return { ok: false, error: `the channel ${owner.channel} is not configured in this daemon` };
        }
        try {
          warnIfHeld(req.schedule, req.fire.id);
        } catch (e) {
          opts.log(`schedules: ${req.fire.id}: could not warn about the held channel: ${(e as Error).message}`);
        }
        return { ok: true };
      },
      chatPending(fire) {
        const s = store.get(fire.schedule);
        return s?.owner.kind === "chat" && !!opts.channels()?.scheduledPending(s.owner.channel, fire.id);
      },
      async terminal(req, started) {
        fired(req);
        const owner = req.schedule.owner;
        if (owner.kind !== "terminal") throw new Error("not a terminal schedule");
        const link = sessions();
        const { session } = await link.start({ cwd: owner.cwd, tools: true, autoApprove: req.schedule.tools, sandboxAutoRun: req.schedule.tools, ...(req.sessionId ? { previous: req.sessionId } : {}) });
        started(session.id);
        try {
          const { end } = await link.runTurn(session.id, req.prompt);
          return { outcome: end.status === "completed" ? "answered" : "failed", reply: replyText(end), sessionId: session.id };
        } finally {
          await link.close(session.id);
        }
      },
      tell(s, text, id) {
        const host = opts.channels();
        if (s.owner.kind === "chat") {
          const ch = host?.ownerChannels().find((c) => c.key === (s.owner as { channel: string }).channel);
          if (host && ch) host.send(ch.key, s.owner.conversation, text, id);
          if (!ch || ch.state.state === "logged_out" || ch.state.state === "paused") tellElsewhere(s, text, id, ch?.key);
          return;
        }
        // Terminal-made: where [notify] reaches the owner; the next terminal session too when no chat took it,
        // and a failure, skip or interruption in any case.
        const ch = tellOwner({ config: opts.config, host, env: opts.env, log: opts.log, ...(opts.live ? { live: opts.live } : {}) }, { id, text });
        if (!id.startsWith("t-") || !ch) addNotice(opts.scvHome, { id, schedule: s.id, text });
      },
    },
  });

  return {
    busy: () => runner.busy(),
    extend(app) {
      app.get("/schedules", (c) => c.json({ next: runner.nextFires().map((f) => ({ id: f.id, at: new Date(f.at).toISOString() })), running: runner.busy() }));
      app.post("/schedules/reload", (c) => {
        const { invalid } = runner.reload(c.req.query("id"));
        return c.json({ next: runner.nextFires().map((f) => ({ id: f.id, at: new Date(f.at).toISOString() })), invalid });
      });
      app.post("/schedules/:id/run", (c) => {
        const r = runner.runNow(c.req.param("id"));
        return r.ok ? c.json({ fire: r.fire }) : c.json({ error: r.error }, 409);
      });
    },
    start: () => runner.start(),
    pause: () => runner.stop(),
    async stop() {
      runner.stop();
      await link?.closeAll();
    },
    settled: (fireId, outcome, note, reply) => runner.settled(fireId, outcome, note, reply),
    reload: (id) => void runner.reload(id),
    runNow: (id) => {
      const r = runner.runNow(id);
      return r.ok ? { ok: true, fire: r.fire } : { ok: false, error: r.error };
    },
  };
}
