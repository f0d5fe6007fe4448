// `scv schedules list|show|add|rm|pause|resume|run`: the schedules the daemon runs (src/schedules). Changes are
// written to the store and the daemon is told; when no daemon will run them, that is said plainly.
import { defineCommand } from "./command";
import { scvHome } from "../config/load";
import type { Config } from "../config/schema";
import { printable } from "./sessions";

function fail(command: string, message: string, code = 1): void {
  process.stderr.write(`scv schedules ${command}: ${message}\n`);
  process.exitCode = code;
}

async function context() {
  const [{ loadConfig }, { ScheduleStore }] = await Promise.all([import("../config/load"), import("../schedules/store")]);
  const config: Config = loadConfig({ env: process.env }).config;
  return { config, store: new ScheduleStore(scvHome()) };
}

/** Tells the daemon; prints what will not happen when none runs. Returns the answer for --json. */
async function tellDaemon(id: string, quiet: boolean) {
  const { reloadDaemon } = await import("../schedules/daemon-link");
  const answer = await reloadDaemon(scvHome(), id);
  if (!answer.running && !quiet) process.stderr.write(`warning: ${answer.advice}\n`);
  return answer.running ? { running: true } : { running: false, advice: answer.advice };
}

/** Runs `body`; a missing schedule, a bad config or bad input is one line on stderr. */
async function guarded(command: string, body: () => Promise<void>, usage = false): Promise<void> {
  try {
    await body();
  } catch (e) {
    const name = (e as Error).name;
    if (name === "TriggerError") return fail(command, (e as Error).message, usage ? 2 : 1);
    if (name === "ScheduleNotFound" || name === "ConfigError") return fail(command, (e as Error).message);
    throw e;
  }
}

const json = { type: "boolean", description: "print JSON" } as const;
const idArg = { type: "positional", required: true, description: "the schedule ID (see scv schedules list)" } as const;

const list = defineCommand({
  meta: { name: "list", description: "List the schedules with their next fire and last outcome, and notices not yet shown" },
  args: { json },
  async run({ args }) {
    await guarded("list", async () => {
      const { config, store } = await context();
      const { scheduleRows, rowLine } = await import("../schedules/manage");
      const { takeNotices } = await import("../schedules/notices");
      const { rows, invalid } = scheduleRows(store, config);
      const notices = takeNotices(scvHome());
      if (args.json) {
        const out = rows.map((r) => ({ ...r.schedule, next: r.next !== undefined ? new Date(r.next).toISOString() : null, status: r.status, last: r.state.last ?? null, fires: r.state.fires }));
        process.stdout.write(`${JSON.stringify({ schedules: out, invalid, notices }, null, 2)}\n`);
        return;
      }
      for (const n of notices) process.stdout.write(`notice (${n.at}): ${printable(n.text)}\n`);
      if (notices.length) process.stdout.write("\n");
      for (const r of rows) process.stdout.write(`${printable(rowLine(r, config))}\n`);
      for (const bad of invalid) process.stdout.write(`not used: ${bad.file}: ${bad.error}\n`);
      if (!rows.length && !invalid.length) process.stdout.write("no schedules (scv schedules add makes one)\n");
    });
  },
});

const show = defineCommand({
  meta: { name: "show", description: "A schedule's definition, state and, for a terminal-made one, its stored session" },
  args: { id: idArg, json },
  async run({ args }) {
    await guarded("show", async () => {
      const { config, store } = await context();
      const { findSchedule, scheduleRows } = await import("../schedules/manage");
      const { describeTrigger, ownerTimeZone } = await import("../schedules/create");
      const s = findSchedule(store, args.id);
      const row = scheduleRows(store, config).rows.find((r) => r.schedule.id === s.id);
      const fires = store.fires().filter((f) => f.schedule === s.id);
      const st = store.state(s.id);
      let transcript: string | undefined;
      if (st.session_id) {
        const { openSessionStore } = await import("../sessions/index");
        const { renderTranscript } = await import("./sessions");
        try {
          transcript = renderTranscript(openSessionStore({ home: scvHome() }).load(st.session_id));
        } catch (e) {
          transcript = `(session ${st.session_id} cannot be read: ${(e as Error).message})`;
        }
      }
      if (args.json) {
        process.stdout.write(`${JSON.stringify({ schedule: s, state: st, next: row?.next !== undefined ? new Date(row.next).toISOString() : null, fires_in_flight: fires }, null, 2)}\n`);
        return;
      }
      const owner = s.owner.kind === "chat" ? `chat ${s.owner.channel} conversation ${s.owner.conversation}` : `terminal, in ${s.owner.cwd}${s.tools ? ", tools approved unasked" : ", read-only tools"}`;
      const lines = [
        `${s.id}: ${describeTrigger(s.trigger, ownerTimeZone(config))}`,
        `prompt: ${s.prompt}`,
        `owner: ${owner}; made by ${s.made_by} at ${s.created}`,
        `catch_up: ${s.catch_up}${s.count ? `; count: ${s.count}` : ""}${s.until ? `; until: ${s.until}` : ""}${s.max_turns_per_day ? `; max_turns_per_day: ${s.max_turns_per_day}` : ""}`,
        `status: ${row?.status ?? "not used (scv schedules list says why)"}; fires so far: ${st.fires}`,
        ...(row?.last ? [`last: ${row.last}`] : []),
        ...fires.map((f) => `in flight: ${f.id} due ${f.due} (${f.state})`),
        ...(st.session_id ? [`session: ${st.session_id} (scv sessions show ${st.session_id})`] : []),
      ];
      process.stdout.write(`${printable(lines.join("\n"))}\n${transcript ? `\n${transcript}\n` : ""}`);
    });
  },
});

const add = defineCommand({
  meta: { name: "add", description: "Add a schedule: (--in DURATION | --at TIME | --every DURATION | --cron EXPR) [--tz ZONE] [--tools] PROMPT" },
  args: {
    prompt: { type: "positional", required: true, description: "what SCV does at each fire (quote it)" },
    in: { type: "string", description: "once, this long from now: 5m, 2h, 1h30m, \"20 minutes\"", valueHint: "DURATION" },
    at: { type: "string", description: "once: an ISO 8601 date-time, HH:MM for the next such time, or \"in 20 minutes\"", valueHint: "TIME" },
    every: { type: "string", description: "recurring: a duration such as 30m, 2h, 1d", valueHint: "DURATION" },
    cron: { type: "string", description: 'recurring: a 5-field cron expression, such as "0 8 * * 1-5"', valueHint: "EXPR" },
    tz: { type: "string", description: "the time zone for --at and --cron (default the host's or [schedules] time_zone)", valueHint: "ZONE" },
    tools: { type: "boolean", description: "let fires use every tool, approved as with --yes (default: read-only tools)" },
    count: { type: "string", description: "stop after this many fires", valueHint: "N" },
    until: { type: "string", description: "no fires after this date-time", valueHint: "TIME" },
    "max-per-day": { type: "string", description: "at most this many fires a day", valueHint: "N" },
    "catch-up": { type: "string", description: "a fire missed while the daemon was down: once (default, within the grace window) or skip", valueHint: "once|skip" },
    json,
  },
  async run({ args }) {
    await guarded(
      "add",
      async () => {
        const { TriggerError } = await import("../schedules/trigger");
        const int = (field: string, raw: string | undefined) => {
          if (raw === undefined) return undefined;
          if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new TriggerError(field, `${JSON.stringify(raw)} must be a whole number of at least 1`);
          return Number(raw);
        };
        if (args.in !== undefined && args.at !== undefined) throw new TriggerError("--in", "give --in or --at, not both");
        const catchUp = args["catch-up"];
        if (catchUp !== undefined && catchUp !== "once" && catchUp !== "skip") throw new TriggerError("--catch-up", `${JSON.stringify(catchUp)}: give once or skip`);
        const { config, store } = await context();
        const { createSchedule, describeTrigger, fromNow, inWords, ownerTimeZone } = await import("../schedules/create");
        const { schedule, next } = createSchedule(
          store,
          {
            prompt: args.prompt,
            ...(args.at !== undefined ? { at: args.at } : {}),
            // --in 5m is --at "in 5m": one way of reading a time from now.
            ...(args.in !== undefined ? { at: `in ${args.in}` } : {}),
            ...(args.every !== undefined ? { every: args.every } : {}),
            ...(args.cron !== undefined ? { cron: args.cron } : {}),
            ...(args.tz !== undefined ? { tz: args.tz } : {}),
            ...(args.until !== undefined ? { until: args.until } : {}),
            ...(args.count !== undefined ? { count: int("--count", args.count) } : {}),
            ...(args["max-per-day"] !== undefined ? { max_turns_per_day: int("--max-per-day", args["max-per-day"]) } : {}),
            ...(catchUp ? { catch_up: catchUp } : {}),
            tools: !!args.tools,
          },
          { config, owner: { kind: "terminal", cwd: process.cwd() }, madeBy: "scv schedules add" },
        );
        const daemon = await tellDaemon(schedule.id, !!args.json);
        if (args.json) {
          process.stdout.write(`${JSON.stringify({ schedule, next: new Date(next).toISOString(), daemon }, null, 2)}\n`);
          return;
        }
        const tz = ownerTimeZone(config);
        process.stdout.write(`created ${schedule.id}: ${describeTrigger(schedule.trigger, tz)}; next fire ${inWords(next, tz)}, ${fromNow(next, Date.now())}\n`);
      },
      true,
    );
  },
});

function changer(name: "rm" | "pause" | "resume", description: string) {
  return defineCommand({
    meta: { name, description },
    args: { id: idArg, json },
    async run({ args }) {
      await guarded(name, async () => {
        const { config, store } = await context();
        const { removeSchedule, scheduleRows, setPaused } = await import("../schedules/manage");
        const s = name === "rm" ? removeSchedule(store, args.id) : setPaused(store, args.id, name === "pause");
        const daemon = await tellDaemon(s.id, !!args.json);
        const row = name === "resume" ? scheduleRows(store, config).rows.find((r) => r.schedule.id === s.id) : undefined;
        if (args.json) {
          process.stdout.write(`${JSON.stringify({ id: s.id, action: name, ...(row?.next !== undefined ? { next: new Date(row.next).toISOString() } : {}), daemon }, null, 2)}\n`);
          return;
        }
        const done = name === "rm" ? "removed" : name === "pause" ? "paused" : "resumed";
        process.stdout.write(`${done} ${s.id}${row ? `; ${row.status}` : ""}\n`);
      });
    },
  });
}

const run = defineCommand({
  meta: { name: "run", description: "Fire a schedule now, outside its trigger (the daemon runs it)" },
  args: { id: idArg, json },
  async run({ args }) {
    await guarded("run", async () => {
      const { store } = await context();
      const { findSchedule } = await import("../schedules/manage");
      findSchedule(store, args.id);
      const { runOnDaemon } = await import("../schedules/daemon-link");
      const r = await runOnDaemon(scvHome(), args.id);
      if (!r.ok) return fail("run", r.error);
      process.stdout.write(args.json ? `${JSON.stringify(r)}\n` : `fired ${args.id} (${r.fire}); scv schedules show ${args.id} has the outcome\n`);
    });
  },
});

export default defineCommand({
  meta: { name: "schedules", description: "Schedules the daemon runs: list, show, add, rm, pause, resume, run" },
  subCommands: { list, show, add, rm: changer("rm", "Remove a schedule"), pause: changer("pause", "Pause a schedule"), resume: changer("resume", "Resume a paused schedule (what was due meanwhile is not caught up)"), run },
});
