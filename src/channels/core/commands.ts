// The chat slash commands: one table that dispatch reads (and help could), so a new command is one entry here.
// A command gets a small context from the conversation it was sent in, never the core's internals.
import { expandCommand, loadCommandFiles } from "../../command-files/index";
import type { Config } from "../../config/schema";
import type { HostedSession } from "../../server/hosted-session";
import { storedWorkspace } from "../../sessions/workspace";
import { planText } from "../../plan/plan";
import { jobsListing, MEMORY_OWNER_ONLY, NEW_CONVERSATION, NOTHING_RUNNING } from "./messages";
import type { RewindAnswer } from "./sessions";
import { usageReport } from "./usage";

/** What a command may see and do in the conversation it was sent in. */
export interface ChatCommandContext {
  /** The sender is the owner, in their direct chat. */
  owner: boolean;
  scvHome: string;
  config: Config;
  /** Where the conversation's sessions run. */
  workspace: string;
  /** The words after the command's name (`/skills accept deploy`: "accept deploy"), for a command that takes them. */
  arg: string;
  /** Answers the command (`system`: logged as SCV's own notice rather than the model's). */
  reply(text: string, author?: "scv" | "system"): void;
  /** The conversation's session and those ended by /new whose jobs still run. */
  sessions(): (HostedSession | undefined)[];
  /** Cancels the conversation's running turn; false when none runs. */
  cancelTurn(): Promise<boolean>;
  /** The conversation's session for this sender's access (a stored one is resumed), if it has one. */
  currentSession(): Promise<HostedSession | undefined>;
  /** Ends the episode: the next message starts a new session (background jobs of the old one keep running). */
  startOver(): void;
  /** session.rewind on the conversation's session (the owner's /undo). */
  rewind(sessionId: string, params: { undo?: boolean; apply?: boolean; plan_id?: string }): Promise<RewindAnswer>;
}

export interface ChatCommand {
  /** Typed as `/name`, alone in the message (any case). */
  name: string;
  description: string;
  /**
   * `now`: answered as it arrives, beside a running turn (it never enters the queue). `in_order`: queued like a
   * message, so it acts after the messages sent before it.
   */
  when: "now" | "in_order";
  /** Only the owner's command: from anyone else the text goes to the model as an ordinary message. */
  ownerOnly?: boolean;
  /** Takes words after its name; other commands must be alone in the message. */
  takesArg?: boolean;
  run(ctx: ChatCommandContext): void | Promise<void>;
}

export const CHAT_COMMANDS: readonly ChatCommand[] = [
  {
    name: "new",
    description: "end this conversation's session; the next message starts a fresh one",
    when: "in_order",
    run: (c) => {
      c.reply(NEW_CONVERSATION, "system");
      c.startOver();
    },
  },
  {
    name: "stop",
    description: "stop the running turn (background jobs keep running)",
    when: "now",
    // A cancelled turn's own reply says it stopped.
    run: async (c) => void ((await c.cancelTurn()) || c.reply(NOTHING_RUNNING)),
  },
  { name: "jobs", description: "background jobs of this conversation", when: "now", run: (c) => c.reply(jobsListing(c.sessions())) },
  { name: "plan", description: "the model's task list", when: "now", run: async (c) => c.reply(planText((await c.currentSession())?.plan())) },
  { name: "memory", description: "what SCV remembers (owner only)", when: "now", run: memory },
  {
    name: "undo",
    description: "put back the files the last turn changed (owner only): shows what will change, then asks",
    when: "in_order",
    ownerOnly: true,
    run: undo,
  },
  {
    name: "usage",
    description: "today's and this month's tokens and cost",
    when: "now",
    ownerOnly: true,
    run: (c) =>
      usageReport(c.scvHome, c.config).then(
        (text) => c.reply(text, "system"),
        (e) => c.reply(`The usage ledger cannot be read: ${(e as Error).message}`, "system"),
      ),
  },
  {
    name: "skills",
    description: "the skills SCV drafted, as diffs; /skills accept NAME or /skills reject NAME decides one (owner only)",
    when: "now",
    ownerOnly: true,
    takesArg: true,
    run: skills,
  },
];

/** The words after a command's name in a message. */
export function commandArg(text: string): string {
  return text.trim().replace(/^\/\S+\s*/, "");
}

/** The command a message is, for this sender; undefined for an ordinary message. */
export function chatCommand(text: string, owner: boolean): ChatCommand | undefined {
  const typed = text.trim().toLowerCase();
  if (!typed.startsWith("/")) return undefined;
  const command = CHAT_COMMANDS.find((c) => `/${c.name}` === typed || (c.takesArg && typed.startsWith(`/${c.name} `)));
  return command && (!command.ownerOnly || owner) ? command : undefined;
}

/**
 * The owner's `/name args` of one of their command files (src/command-files) as the prompt it stands for, or
 * undefined for any other message. Only the owner's: anyone else's `/name` goes to the model as typed.
 */
export function ownCommandPrompt(text: string, scvHome: string, workspace: string): string | undefined {
  const m = /^\/([\w.:-]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!m) return undefined;
  const c = loadCommandFiles({ scvHome, workspace, builtins: CHAT_COMMANDS.map((x) => x.name) }).items.find((x) => x.name === m[1]!.toLowerCase());
  return c ? expandCommand(c.body, m[2] ?? "") : undefined;
}

/** The owner's memory files as chat sessions in their direct chat use them; nobody else sees them. */
async function memory(c: ChatCommandContext): Promise<void> {
  if (!c.owner) return c.reply(MEMORY_OWNER_ONLY, "system");
  const { memoryPlaceOf, memoryReport, readSnapshot } = await import("../../memory/index");
  const workspace = storedWorkspace(c.workspace);
  const place = memoryPlaceOf({ owner: true, scvHome: c.scvHome, workspace, config: c.config });
  c.reply(place ? memoryReport(readSnapshot(place), workspace) : "Memory is turned off (memory.enabled = false).", "system");
}

/** The owner's skill drafts, and accepting or rejecting one; the same words as `scv skills drafts`. */
async function skills(c: ChatCommandContext): Promise<void> {
  const { decideDraft, draftsReport } = await import("../../tools/skill_manage");
  const { SkillDraftError } = await import("../../skills/index");
  const [verb, name] = c.arg.split(/\s+/).filter(Boolean);
  if (!verb) return c.reply(draftsReport(c.scvHome, (v, n) => `/skills ${v} ${n}`), "system");
  if ((verb !== "accept" && verb !== "reject") || !name) return c.reply("Use /skills, /skills accept NAME or /skills reject NAME.", "system");
  try {
    c.reply(decideDraft(c.scvHome, verb, name), "system");
  } catch (e) {
    if (!(e instanceof SkillDraftError)) throw e;
    c.reply(e.message, "system");
  }
}

/** A shown /undo waiting for its confirmation (the same /undo again), by session: it stands for UNDO_CONFIRM_MS. */
const pendingUndo = new Map<string, { at: number; plan: string; planId?: string }>();
const UNDO_CONFIRM_MS = 5 * 60_000;
const SHOWN_FILES = 20;

/** The owner's /undo: the first shows what would change; the same /undo again within 5 minutes restores it. */
async function undo(c: ChatCommandContext): Promise<void> {
  const session = await c.currentSession();
  if (!session) return c.reply("Nothing to undo: this conversation has no session yet.", "system");
  let plan: RewindAnswer;
  try {
    plan = await c.rewind(session.id, { undo: true });
  } catch (e) {
    pendingUndo.delete(session.id);
    return c.reply(`Cannot undo: ${(e as Error).message}`, "system");
  }
  const key = JSON.stringify(plan.changes);
  const pending = pendingUndo.get(session.id);
  if (pending && pending.plan === key && Date.now() - pending.at < UNDO_CONFIRM_MS) {
    pendingUndo.delete(session.id);
    try {
      // The plan the owner saw is the plan applied: a file changed since is refused by the server, named again.
      const done = await c.rewind(session.id, { undo: true, apply: true, ...(pending.planId ? { plan_id: pending.planId } : {}) });
      const kept = done.kept?.length ? ` Kept, because they changed outside SCV since its checkpoint: ${done.kept.join(", ")}.` : "";
      return c.reply(`Undone: ${done.restored?.length ?? 0} restored, ${done.created?.length ?? 0} created, ${done.deleted?.length ?? 0} deleted.${kept}`, "system");
    } catch (e) {
      return c.reply(`Undo failed, nothing was changed: ${(e as Error).message}`, "system");
    }
  }
  pendingUndo.set(session.id, { at: Date.now(), plan: key, ...(plan.plan_id ? { planId: plan.plan_id } : {}) });
  const lines = [`/undo would restore ${plan.describes ?? "the files before the last turn"}:`];
  for (const ch of plan.changes.slice(0, SHOWN_FILES)) {
    lines.push(`${ch.action} ${ch.path}${ch.changed_outside ? " (changed outside SCV since: kept)" : ""}`);
    if (ch.diff) lines.push(...ch.diff.split("\n").slice(0, 8).map((l) => `  ${l}`));
  }
  if (plan.changes.length > SHOWN_FILES) lines.push(`… and ${plan.changes.length - SHOWN_FILES} more files`);
  if (!plan.changes.length) lines.push("nothing: the files already match");
  lines.push("Send /undo again within 5 minutes to do it. Files outside the workspace are not covered.");
  c.reply(lines.join("\n"), "system");
}
