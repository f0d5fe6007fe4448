// `scv sessions list|show|rm`: the stored sessions of this SCV_HOME (src/sessions). Stored text is printed as
// data: control characters (terminal escapes a reply or tool output may carry) are shown, never sent raw.
import { existsSync } from "node:fs";
import { terminalSafe } from "../text/terminal-safe";
import { scrubSecrets } from "../text/scrub";
import { defineCommand } from "./command";
import { confirm } from "./confirm";
import { scvHome } from "../config/load";
import type { LoadedSession, SessionStore, StoredItem } from "../sessions/index";
import type { StoredCall } from "../sessions/load";
import { storedWorkspace } from "../sessions/workspace";
import { formatWhen } from "../text/when";
import { ellipsize } from "../text/cut";

const SHOWN_ARGUMENT_CHARS = 200;

async function store(): Promise<SessionStore> {
  const { openSessionStore } = await import("../sessions/index");
  return openSessionStore({ home: scvHome() });
}

function fail(command: string, message: string, code = 1): void {
  process.stderr.write(`scv sessions ${command}: ${message}\n`);
  process.exitCode = code;
}

/** Visible text for the terminal (src/text/terminal-safe.ts): every control but newline and tab shown as \xNN. */
export const printable = (text: string): string => terminalSafe(text);

/** The one date format (src/text/when.ts): relative while recent, ISO order otherwise. */
const time = (ms: number): string => formatWhen(ms);

function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return ellipsize(line, max);
}

const list = defineCommand({
  meta: { name: "list", description: "List this workspace's sessions, newest first (--all: every workspace's)" },
  args: {
    all: { type: "boolean", description: "list the sessions of every workspace" },
    json: { type: "boolean", description: "print JSON" },
    cwd: { type: "string", description: "workspace directory (default: current directory)" },
  },
  async run({ args }) {
    // A workspace that is gone simply has no sessions.
    const workspace = storedWorkspace(args.cwd ?? process.cwd());
    const { listSessions } = await import("../ledger/index");
    const rows = await listSessions(await store(), args.all ? {} : { workspace });
    if (args.json) {
      const sessions = rows.map((r) => ({ ...r, started_at: new Date(r.started_at).toISOString(), last_activity: new Date(r.last_activity).toISOString() }));
      process.stdout.write(`${JSON.stringify({ sessions }, null, 2)}\n`);
      return;
    }
    if (!rows.length) {
      process.stdout.write(args.all ? "no sessions\n" : `no sessions in ${workspace} (scv sessions list --all shows every workspace's)\n`);
      return;
    }
    const table = [
      ["ID", "STARTED", "LAST ACTIVITY", "TURNS", ...(args.all ? ["WORKSPACE"] : []), "FIRST PROMPT"],
      ...rows.map((r) => [r.id, time(r.started_at), time(r.last_activity), String(r.turns), ...(args.all ? [printable(r.workspace)] : []), printable(oneLine(r.first_prompt, 60))]),
    ];
    const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
    process.stdout.write(`${table.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join("  ")).join("\n")}\n`);
  },
});

/** The transcript as a person reads it: each turn's prompt, the actions taken, and the reply. */
export function renderTranscript(s: LoadedSession): string {
  const out: string[] = [`session ${s.header.id} · ${s.header.workspace} · ${s.provider}/${s.model} · started ${time(s.header.at)}${s.header.tools ? "" : " · no tools"}`];
  for (const w of s.warnings) out.push(`warning: ${w}`);
  for (const t of s.turns) {
    const who = t.origin.kind === "user" ? "user" : `${t.origin.kind} report`;
    out.push("", `── ${t.turn_id} · ${who} · ${time(t.started_at)} · ${t.status}${t.error ? ` (${t.error.class}: ${t.error.message})` : ""}`);
    out.push(...t.prompt.split("\n").map((l) => `> ${l}`));
    // The calls as the person saw them (`· edit src/x.ts (+1 -1 lines)` and its diff); older records only have
    // the model's tool calls with their arguments.
    if (t.calls?.length) for (const c of t.calls) out.push(...describeCall(c));
    else
      for (const item of t.items) {
        const action = describeAction(item);
        if (action) out.push(action);
      }
    if (t.reply) out.push(t.reply);
  }
  for (const c of s.compactions) out.push("", `[${time(c.at)}: ${c.replaced.length} earlier history items were compacted into a summary]`);
  if (s.conversations.length) out.push("", `agent conversations: ${s.conversations.map((c) => `${c.handle} (${c.agent}, ${c.cwd})`).join(", ")}`);
  if (s.jobs.length) out.push(`background jobs: ${s.jobs.map((j) => `${j.job} (${j.agent}) ${j.status}`).join(", ")}`);
  return printable(out.join("\n"));
}

/** A call as it was shown: its label and outcome, then a file change's diff, indented. */
function describeCall(c: StoredCall): string[] {
  const outcome = c.denied ? ` (${c.display ?? "denied"})` : c.display ? ` (${c.display})` : c.ok ? "" : " (failed)";
  return [`· ${c.label}${outcome}`, ...(c.diff ? c.diff.split("\n").map((l) => `    ${l}`) : [])];
}

/** A tool call as one line, `· read {"path":"a.txt"}`; other items are the prompt and reply already shown. */
function describeAction(item: StoredItem): string | undefined {
  const calls = (item as { toolCalls?: { name?: unknown; arguments?: unknown }[] }).toolCalls;
  if (!Array.isArray(calls) || calls.length === 0) return undefined;
  return calls.map((c) => `· ${String(c.name)} ${oneLine(String(c.arguments ?? ""), SHOWN_ARGUMENT_CHARS)}`).join("\n");
}

const show = defineCommand({
  meta: { name: "show", description: "Print a session's transcript" },
  args: {
    id: { type: "positional", required: true, description: "the session ID (see scv sessions list)" },
    json: { type: "boolean", description: "print the loaded session as JSON" },
  },
  async run({ args }) {
    let loaded: LoadedSession;
    try {
      loaded = (await store()).load(args.id);
    } catch (e) {
      fail("show", (e as Error).message);
      return;
    }
    // A session written before every secret was scrubbed may still hold one: masked on the way out too.
    const secrets = await secretsOfConfig();
    const text = args.json ? JSON.stringify(loaded, null, 2) : renderTranscript(loaded);
    process.stdout.write(`${scrubSecrets(text, secrets)}\n`);
  },
});

/** The configured secrets, or none when the configuration cannot be loaded (key formats are masked anyway). */
async function secretsOfConfig(): Promise<string[]> {
  try {
    const [{ loadConfig }, { configuredSecrets }] = await Promise.all([import("../config/load"), import("../config/configured-secrets")]);
    return configuredSecrets(loadConfig({ cwd: process.cwd(), env: process.env }).config, process.env);
  } catch {
    return [];
  }
}

const rm = defineCommand({
  meta: { name: "rm", description: "Delete a stored session" },
  args: { id: { type: "positional", required: true, description: "the session ID (see scv sessions list)" } },
  async run({ args }) {
    try {
      (await store()).remove(args.id);
      const { checkpointStore } = await import("../checkpoints/index");
      checkpointStore(scvHome()).removeSession(args.id); // its checkpoints go with it
      process.stdout.write(`removed ${args.id}\n`);
    } catch (e) {
      fail("rm", (e as Error).message);
    }
  },
});

const rewind = defineCommand({
  meta: { name: "rewind", description: "Rewind a stored session's files and conversation to the end of a turn (shows what will change, then asks)" },
  args: {
    id: { type: "positional", required: true, description: "the session ID (see scv sessions list)" },
    to: { type: "string", description: "the turn to keep, e.g. t2 or 2 (t0: before the first turn); later turns are undone", valueHint: "TURN" },
    "files-only": { type: "boolean", description: "restore the files only; the conversation stays" },
    "conversation-only": { type: "boolean", description: "rewind the conversation only; the files stay" },
    yes: { type: "boolean", alias: "y", description: "apply without asking (files changed outside SCV are still kept unless named with --overwrite)" },
    overwrite: { type: "string", description: "comma-separated files changed outside SCV to restore anyway (* for all)", valueHint: "PATHS" },
  },
  async run({ args }) {
    if (!args.to) return fail("rewind", "say which turn to keep with --to TURN (e.g. --to t2; --to t0 for before the first turn)", 2);
    if (args["files-only"] && args["conversation-only"]) return fail("rewind", "--files-only and --conversation-only exclude each other", 2);
    const to = /^\d+$/.test(args.to) ? `t${args.to}` : args.to;
    if (!/^t\d+$/.test(to)) return fail("rewind", `--to ${args.to}: a turn looks like t2 or 2 (t0: before the first turn)`, 2);
    const files = !args["conversation-only"];
    const conversation = !args["files-only"];
    const [{ storedSessionCheckpoints, planLines, RestoreChangedError, RestoreUnavailableError }, { loadConfig }, { checkRewind }] = await Promise.all([
      import("../checkpoints/index"),
      import("../config/load"),
      import("../sessions/rewind"),
    ]);
    const { isatty } = await import("node:tty");
    try {
      await (await store()).whileClosed(args.id, async (loaded, append) => {
        const dropped = conversation ? checkRewind(loaded, to).dropped : 0;
        const workspace = loaded.header.workspace;
        if (files && !existsSync(workspace)) throw new Error(`the session's workspace ${workspace} no longer exists; restore it first, or rewind with --conversation-only`);
        const config = loadConfig({ cwd: existsSync(workspace) ? workspace : process.cwd(), env: process.env }).config;
        const checkpoints = storedSessionCheckpoints(scvHome(), args.id, workspace, config.checkpoints);
        const overwrite = (args.overwrite ?? "").split(",").map((p) => p.trim()).filter(Boolean);
        // The plan shown is the plan applied: a file changed while the person read it stops the restore, which
        // names it; on a terminal the new plan is shown and asked about again, with --yes the command fails.
        for (;;) {
          let preview: ReturnType<typeof checkpoints.preview> | undefined;
          if (files) {
            try {
              preview = checkpoints.preview({ turn: to });
            } catch (e) {
              if (!(e instanceof RestoreUnavailableError && conversation && e.message.startsWith("no turn after"))) throw e;
              process.stdout.write(`files: ${e.message}\n`);
            }
          }
          if (preview) process.stdout.write(`${printable(planLines(preview).join("\n"))}\n`);
          if (conversation) process.stdout.write(`conversation: ${dropped} turn${dropped === 1 ? "" : "s"} after ${to} leave it (they stay in the session file)\n`);
          if (!args.yes) {
            if (!isatty(0)) throw new Error("not applied: confirm with --yes (no terminal to ask on)");
            if (!(await confirm("Apply? [y/N] "))) throw new Error("not applied");
          }
          if (!preview) break;
          let done: ReturnType<typeof checkpoints.apply>;
          try {
            done = checkpoints.apply(preview, overwrite);
          } catch (e) {
            if (!(e instanceof RestoreChangedError) || args.yes) throw e;
            process.stdout.write(`${printable(e.message)}\n`);
            continue;
          }
          process.stdout.write(`files: ${done.restored.length} restored, ${done.created.length} created, ${done.deleted.length} deleted\n`);
          for (const k of done.kept) process.stdout.write(`kept ${printable(k)}: changed outside SCV since its last checkpoint, or created meanwhile (restore it anyway with --overwrite ${printable(k)})\n`);
          break;
        }
        if (conversation) append({ type: "rewound", turn: to });
      });
    } catch (e) {
      fail("rewind", (e as Error).message);
    }
  },
});

const reindex = defineCommand({
  meta: { name: "reindex", description: "Rebuild the session index from the session files (the usage ledger keeps every entry)" },
  async run() {
    const { ledgerFor } = await import("../ledger/index");
    const ledger = ledgerFor(scvHome());
    try {
      const r = await ledger.reindex();
      for (const p of r.problems) process.stderr.write(`scv sessions reindex: skipped ${p}\n`);
      process.stdout.write(`indexed ${r.read} session file${r.read === 1 ? "" : "s"}\n`);
    } catch (e) {
      fail("reindex", (e as Error).message);
    } finally {
      await ledger.close();
    }
  },
});

export default defineCommand({
  meta: { name: "sessions", description: "Stored sessions: list, show, rm, rewind, reindex (resume with scv exec --resume ID)" },
  subCommands: { list, show, rm, rewind, reindex },
});
