// `scv daemon run|start|stop|restart|status|install`. A delegated SCV refuses all but status.
import { defineCommand } from "./command";
import { scvHome } from "../config/load";

function fail(command: string, message: string, code = 1): void {
  process.stderr.write(`scv daemon ${command}: ${message}\n`);
  process.exitCode = code;
}

/** Prints the refusal and returns true when this SCV runs delegated. */
async function refused(command: string, action: string): Promise<boolean> {
  const { delegatedRefusal } = await import("../daemon/refuse");
  const message = delegatedRefusal(action);
  if (message) fail(command, message, 3);
  return !!message;
}

const stopArgs = {
  force: { type: "boolean", description: "kill running turns and delegations (the tracked way) instead of waiting" },
  timeout: { type: "string", description: "seconds a planned stop waits before it kills what still runs (default 300)" },
} as const;

function timeoutOf(command: string, raw: string | undefined): number | undefined | null {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0 || n > 86_400) {
    fail(command, `--timeout ${JSON.stringify(raw)}: give seconds between 1 and 86400`, 2);
    return null;
  }
  return n;
}

async function stop(command: string, force: boolean, timeoutSeconds: number | undefined): Promise<boolean> {
  const { stopDaemon } = await import("../daemon/control");
  const outcome = await stopDaemon({
    scvHome: scvHome(),
    force,
    timeoutSeconds,
    onWaiting: (n) => process.stderr.write(`waiting for ${n} running turn(s) or delegation(s) to finish (--force kills them)\n`),
  });
  process.stdout.write(outcome.stopped ? `scv daemon stopped (pid ${outcome.pid})\n` : `scv daemon ${command}: ${outcome.reason}\n`);
  return outcome.stopped;
}

/** Prints the configuration problem a daemon would start on (exit 78) and returns true, or false when there is none. */
async function configRefused(command: string): Promise<boolean> {
  const { daemonConfigProblem } = await import("../daemon/preflight");
  const problem = daemonConfigProblem();
  if (problem) fail(command, `configuration error, not starting:\n${problem.message}`, 78);
  return !!problem;
}

async function start(): Promise<void> {
  const { startDaemon } = await import("../daemon/control");
  const outcome = await startDaemon({ scvHome: scvHome() });
  process.stdout.write(outcome.started ? `scv daemon started (pid ${outcome.pid}); log: ${outcome.log}\n` : `scv daemon is already running (pid ${outcome.pid})\n`);
}

async function guarded(command: string, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (e) {
    const name = (e as Error).name;
    if (name !== "DaemonControlError" && name !== "DaemonStartError") throw e;
    fail(command, (e as Error).message);
  }
}

const run = defineCommand({
  meta: { name: "run", description: "Run the daemon in the foreground" },
  async run() {
    if (await refused("run", "run a daemon")) return;
    if (await configRefused("run")) return;
    await guarded("run", async () => {
      const { runDaemon } = await import("../daemon/server");
      const { createChannelService } = await import("../channels/service");
      const { createScheduleService } = await import("../channels/schedule-service");
      const { loadConfig } = await import("../config/load");
      const log = (line: string) => console.log(`${new Date().toISOString()} ${line}`);
      let channels: ReturnType<typeof createChannelService>;
      let schedules: ReturnType<typeof createScheduleService>;
      let web: import("../web/service").WebService | undefined;
      let awayCards: import("../channels/away-cards").AwayCards | undefined;
      try {
        const config = loadConfig({ env: process.env }).config;
        // The web page watches every hosted session through the live hub; without it nothing is kept.
        const live = config.web_ui.enabled ? new (await import("../channels/core/live")).LiveHub() : undefined;
        schedules = createScheduleService({ scvHome: scvHome(), env: process.env, config, log, channels: () => channels?.host(), ...(live ? { live } : {}) });
        // Approval cards of sessions the daemon does not host, offered to the owner (issue 54).
        const cards = new (await import("../channels/away-cards")).AwayCards({ config, env: process.env, log, channels: () => channels?.host(), ...(live ? { live } : {}) });
        awayCards = cards;
        channels = createChannelService({ scvHome: scvHome(), env: process.env, log, config, scheduleSettled: (id, outcome, note, reply) => schedules.settled(id, outcome, note, reply), cardReply: (who, text) => cards.reply(who, text), cardPress: (who, data) => cards.press(who, data), ...(live ? { live } : {}) });
        if (live) {
          const { createWebService } = await import("../web/service");
          web = createWebService({ scvHome: scvHome(), env: process.env, config, log, live, channels: () => channels?.host(), schedules });
        }
      } catch (e) {
        if ((e as Error).name !== "ConfigError") throw e;
        fail("run", `configuration error, not starting:\n${(e as Error).message}`, 78);
        return;
      }
      const daemon = await runDaemon({
        scvHome: scvHome(),
        log,
        busyTurns: () => (channels?.busy() ?? 0) + schedules.busy(),
        extend: (app) => {
          channels?.extend(app);
          schedules.extend(app);
          awayCards?.extend(app);
          web?.extend(app);
        },
        ...(web ? { bind: () => web!.bind() } : {}),
        onStopping: () => {
          schedules.pause();
          channels?.pause();
        },
        beforeExit: async () => {
          web?.stop();
          await schedules.stop();
          await channels?.stop();
        },
      });
      try {
        channels?.start();
      } catch (e) {
        fail("run", `cannot start the chat channels: ${(e as Error).message}`);
        await daemon.shutdown({ force: true });
        process.exit(1);
      }
      schedules.start(); // after the channels, whose recovery settles fires a crash left in their conversations
      await daemon.stopped;
      process.exit(0);
    });
  },
});

const startCmd = defineCommand({
  meta: { name: "start", description: "Start the daemon in the background (log in $SCV_HOME/log/daemon.log)" },
  async run() {
    if (await refused("start", "start a daemon")) return;
    if (await configRefused("start")) return;
    await guarded("start", start);
  },
});

const stopCmd = defineCommand({
  meta: { name: "stop", description: "Stop the daemon after running turns and delegations finish (bounded)" },
  args: stopArgs,
  async run({ args }) {
    if (await refused("stop", "stop a daemon")) return;
    const timeout = timeoutOf("stop", args.timeout);
    if (timeout === null) return;
    await guarded("stop", async () => void (await stop("stop", !!args.force, timeout)));
  },
});

const restart = defineCommand({
  meta: { name: "restart", description: "Stop the daemon (planned, bounded) and start this binary's daemon" },
  args: stopArgs,
  async run({ args }) {
    if (await refused("restart", "restart a daemon")) return;
    const timeout = timeoutOf("restart", args.timeout);
    if (timeout === null) return;
    // Checked before the running daemon is stopped: a restart onto a broken configuration leaves it running.
    if (await configRefused("restart")) return;
    await guarded("restart", async () => {
      await stop("restart", !!args.force, timeout);
      await start();
    });
  },
});

const status = defineCommand({
  meta: { name: "status", description: "Whether the daemon runs (pid, uptime, version); exit 3 when it does not" },
  args: { json: { type: "boolean", description: "print JSON" } },
  async run({ args }) {
    const { collectStatus, formatDuration } = await import("../daemon/status");
    const report = await collectStatus(scvHome());
    const d = report.daemon;
    // As `systemctl status` does: 3 when the daemon is not running, so scripts can test it.
    if (!d.running) process.exitCode = 3;
    if (args.json) {
      process.stdout.write(`${JSON.stringify(report.daemon, null, 2)}\n`);
      return;
    }
    process.stdout.write(
      d.running
        ? `running (pid ${d.pid}, up ${formatDuration(d.uptime_seconds)}, version ${d.version}${d.stopping ? ", stopping" : ""})\n`
        : `not running${d.note ? ` (${d.note})` : ""}\n`,
    );
  },
});

const install = defineCommand({
  meta: { name: "install", description: "Write a systemd user unit that runs `scv daemon run`" },
  args: { print: { type: "boolean", description: "print the unit and where it would go; write nothing (works without systemd)" } },
  async run({ args }) {
    if (await refused("install", "install a daemon")) return;
    const { systemdAvailable, installUnit, unitPath, unitText } = await import("../daemon/systemd");
    if (args.print) {
      const { selfCommand } = await import("../daemon/control");
      const unit = unitText({ command: selfCommand(), scvHome: process.env.SCV_HOME ? scvHome() : undefined });
      process.stdout.write(`# ${unitPath()}${systemdAvailable() ? "" : " (systemd was not found on this host; nothing would run it)"}\n${unit}`);
      return;
    }
    if (!systemdAvailable()) {
      fail(
        "install",
        "systemd was not found on this host (no /run/systemd/system or no systemctl), so there is no user unit to install. " +
          "Start the daemon yourself with `scv daemon start`, for example from your login profile.",
      );
      return;
    }
    const { selfCommand } = await import("../daemon/control");
    const file = installUnit({ command: selfCommand(), scvHome: process.env.SCV_HOME ? scvHome() : undefined });
    process.stdout.write(
      `wrote ${file}\nEnable and start it with:\n  systemctl --user daemon-reload\n  systemctl --user enable --now scv\n` +
        "To keep it running while you are logged out: loginctl enable-linger \"$USER\"\n",
    );
  },
});

export default defineCommand({
  meta: { name: "daemon", description: "The SCV daemon: one per SCV_HOME, on $SCV_HOME/run/scv.sock" },
  subCommands: { run, start: startCmd, stop: stopCmd, restart, status, install },
});
