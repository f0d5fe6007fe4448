// schedule: the owner's reminders and recurring tasks, run by the daemon (src/schedules). Offered only in the
// owner's sessions: the chat owner's direct chat and the terminal (not other chat users, not a delegated SCV).
// Creating, cancelling, pausing and resuming are `process` risk; the reply says when it fires next, in words.
import type { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { createSchedule, describeTrigger, fromNow, inWords, ownerTimeZone } from "../schedules/create";
import { removeSchedule, rowLine, ScheduleNotFound, scheduleRows, setPaused } from "../schedules/manage";
import { shortPrompt } from "../schedules/runner";
import type { Schedule, ScheduleOwner } from "../schedules/schema";
import { ScheduleStore } from "../schedules/store";
import { TriggerError } from "../schedules/trigger";
import { chatScope } from "./chat-place";
import { ToolError } from "../errors";
import type { SessionScope } from "../scope";
import { defineTool, type Tool } from "./tool";

// Kept small: the owner's sessions send this schema with every request (test/tools/tools-binary.test.ts), so
// until, max_turns_per_day and catch_up are `scv schedules add`'s only.
export const ScheduleArgs = lazySchema((z) =>
  z.strictObject({
    action: z.enum(["create", "list", "cancel", "pause", "resume"]),
    id: z.string().optional(),
    prompt: z.string().optional(),
    at: z.string().optional().describe("ISO date-time, HH:MM, or from now: in 20 minutes"),
    every: z.string().optional().describe("30m, 2h, 1d"),
    cron: z.string().optional(),
    tz: z.string().optional(),
    count: z.number().optional(),
    tools: z.boolean().optional(),
  }),
);
type Args = z.infer<typeof ScheduleArgs>;

/** Whose schedules this session makes: the chat owner's conversation, the terminal, or nobody's (not offered). */
function ownerOf(scope: SessionScope): ScheduleOwner | undefined {
  if (!scope.owner) return undefined; // other chat users, delegated sessions
  if (!scope.channel) return { kind: "terminal", cwd: scope.workspace };
  const chat = chatScope(scope);
  return chat ? { kind: "chat", channel: `${chat.kind}/${chat.account}`, conversation: chat.conversation } : undefined;
}

function trigger(a: Args): string {
  return a.at !== undefined ? `at ${a.at}` : a.every !== undefined ? `every ${a.every}` : a.cron !== undefined ? `cron "${a.cron}"` : "(no time given)";
}

export function createScheduleTool(scope: SessionScope): Tool | undefined {
  const owner = ownerOf(scope);
  if (!owner) return undefined;
  const store = new ScheduleStore(scope.scvHome);
  const tz = () => ownerTimeZone(scope.config);
  /** Runs a change to one schedule; a missing ID or schedule is the model's to fix. */
  const change = <T>(id: string | undefined, op: (id: string) => T): T => {
    if (!id) throw new ToolError("give id: the schedule's ID (sch-…), as the list action shows it");
    try {
      return op(id);
    } catch (e) {
      if (e instanceof ScheduleNotFound) throw new ToolError(`no schedule ${id}; the list action shows the IDs`);
      throw e;
    }
  };
  /** Tells the daemon; the words to add when it will not run anything. */
  const tellDaemon = async (id: string) => {
    const { reloadDaemon } = await import("../schedules/daemon-link");
    const answer = await reloadDaemon(scope.scvHome, id, scope.env);
    return answer.running ? "" : `\nWarning: ${answer.advice}`;
  };
  return defineTool({
    name: "schedule",
    description:
      "The owner's reminders and recurring tasks (run by the daemon; each reply reaches the owner): create (prompt; at, every or 5-field cron), list, cancel, pause, resume. tools (terminal only): fires may change things.",
    parameters: ScheduleArgs,
    risk: (a) => (a.action === "list" ? "read_only" : "process"),
    summary: (a) => {
      if (a.action === "create") {
        const tools = owner.kind === "terminal" ? (a.tools ? ", with tools approved unasked" : ", read-only tools") : "";
        return `create a schedule ${trigger(a)}${a.tz ? ` (${a.tz})` : ""}${a.count ? `, ${a.count} time(s)` : ""}${tools}: ${a.prompt ?? ""}`;
      }
      return a.action === "list" ? "list schedules" : `${a.action} schedule ${a.id ?? "(no id)"}`;
    },
    label: (a) => (a.action === "create" ? `schedule ${trigger(a)}` : `schedule ${a.action}${a.id ? ` ${a.id}` : ""}`),
    async execute(a) {
      switch (a.action) {
        case "create": {
          if (a.tools !== undefined && owner.kind === "chat") throw new ToolError("tools: a chat schedule runs with this conversation's approvals; leave tools out");
          let made: { schedule: Schedule; next: number };
          try {
            made = createSchedule(store, { ...a, prompt: a.prompt ?? "" }, { config: scope.config, owner, madeBy: `schedule tool, session ${scope.sessionId}` });
          } catch (e) {
            if (e instanceof TriggerError) throw new ToolError(e.message);
            throw e;
          }
          const s = made.schedule;
          const warning = await tellDaemon(s.id);
          return `Created ${s.id}: ${describeTrigger(s.trigger, tz())}. Next fire: ${inWords(made.next, tz())}, ${fromNow(made.next, Date.now())}.${warning}`;
        }
        case "list": {
          const { rows, invalid } = scheduleRows(store, scope.config);
          const lines = [...rows.map((r) => rowLine(r, scope.config)), ...invalid.map((bad) => `not used: ${bad.file}: ${bad.error}`)];
          return lines.length ? lines.join("\n") : "No schedules.";
        }
        case "cancel": {
          const s = change(a.id, (id) => removeSchedule(store, id));
          return `Cancelled ${s.id} (“${shortPrompt(s)}”).${await tellDaemon(s.id)}`;
        }
        case "pause":
        case "resume": {
          const s = change(a.id, (id) => setPaused(store, id, a.action === "pause"));
          const warning = await tellDaemon(s.id);
          if (a.action === "pause") return `Paused ${s.id}; it will not fire until resumed.${warning}`;
          const row = scheduleRows(store, scope.config).rows.find((r) => r.schedule.id === s.id);
          return `Resumed ${s.id}: ${row?.status ?? "no further fire"}.${warning}`;
        }
      }
    },
  });
}
