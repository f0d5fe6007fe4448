// What each slash command does. commands.ts holds the table help and completion read; this is the dispatch,
// handed the app's session controls.
import type { Style as Theme } from "../terminal/style";
import { KEY_HELP, SLASH_COMMANDS } from "./commands";
import { contextShare, formatTokens } from "./text";
import type { ConversationView } from "./view";

export interface SlashContext {
  view: ConversationView;
  theme: Theme;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The open session as it is now: "" as ID while none is open. */
  session(): { id: string; model: string; tools: readonly string[]; contextWindow?: number };
  /** The session's model changed (session.configure). */
  switched(next: { model: string; contextWindow?: number }): void;
  request<T = any>(method: string, params: unknown): Promise<T>;
  /** /usage: what this session and today spent, as lines. */
  usage(): Promise<string[]>;
  startSession(resume?: string, modelName?: string): Promise<void>;
  closeSession(): Promise<void>;
  openPicker(startFresh: boolean): Promise<void>;
  /** /rewind, /undo, /redo: the flow that shows what will change and asks. */
  rewind(which: "rewind" | "undo" | "redo"): Promise<void>;
  /** How the session asks: `ask`, or `accept-edits` (edit and write inside the workspace run unasked). */
  mode(): "ask" | "accept-edits";
  /** /model without a name: the picker (model-switch.ts). */
  pickModel?(picker: import("./model-picker").ModelPicker): Promise<import("./model-picker").ModelChoice | undefined>;
  setMode(mode: "ask" | "accept-edits"): Promise<void>;
  /** The person's command files as menu rows (src/tui/user-commands.ts), listed by /help after SCV's own. */
  ownCommands?(): import("./commands").SlashCommand[];
  quit(): Promise<void>;
  requestRender(): void;
}

/** Runs a command of SLASH_COMMANDS; a failure is said in the conversation, never thrown. */
export async function runSlashCommand(ctx: SlashContext, name: string, arg: string): Promise<void> {
  const { view, theme } = ctx;
  try {
    switch (name) {
      case "help":
        for (const l of KEY_HELP) view.say(l, theme.dim);
        for (const cmd of [...SLASH_COMMANDS, ...(ctx.ownCommands?.() ?? [])]) view.say(`/${cmd.name}${cmd.args ? ` ${cmd.args}` : ""} — ${cmd.description}`);
        break;
      case "quit":
        return void ctx.quit();
      case "new":
        await ctx.closeSession();
        await ctx.startSession();
        break;
      case "resume":
        if (!arg) await ctx.openPicker(false);
        else {
          await ctx.closeSession();
          await ctx.startSession(arg);
        }
        break;
      case "model":
        await (await import("./model-switch")).modelCommand(ctx, arg);
        break;
      case "mode": {
        const wanted = arg.toLowerCase().replace(/[\s_]+/g, "-");
        if (!wanted) {
          view.say(ctx.mode() === "accept-edits" ? "mode: accept edits (edit and write inside the workspace run unasked) · /mode ask or Shift-Tab to ask again" : "mode: ask (file changes ask first; commands run unasked inside the sandbox, and one that needs more asks) · /mode accept-edits or Shift-Tab to accept edits");
        } else if (wanted === "ask" || wanted === "accept-edits") await ctx.setMode(wanted);
        else view.say("/mode takes ask or accept-edits (Shift-Tab switches between them)", theme.yellow);
        break;
      }
      case "effort":
        await (await import("./model-switch")).effortCommand(ctx, arg);
        break;
      case "rewind":
      case "undo":
      case "redo":
        await ctx.rewind(name);
        break;
      case "compact": {
        view.say("compacting…", theme.dim);
        ctx.requestRender();
        const r = await ctx.request("session.compact", { session_id: ctx.session().id });
        if (!r.compacted) view.say("nothing to compact yet: the conversation is still short", theme.dim);
        break;
      }
      case "goal": {
        if (!arg) {
          view.say("/goal takes the check to run after each turn, e.g. /goal bun test; the work goes on until it passes", theme.yellow);
          break;
        }
        const prompt = `Work on the task until the check \`${arg}\` passes.`;
        await ctx.request("turn.start", { session_id: ctx.session().id, prompt, goal: { check: arg } });
        break;
      }
      case "stop":
        await ctx.request("turn.cancel", { session_id: ctx.session().id });
        break;
      case "jobs":
        if (!view.jobs.size) view.say("no background jobs running");
        for (const [job, state] of view.jobs) view.say(`${job}: ${state}`);
        break;
      case "tools": {
        const { tools } = ctx.session();
        view.say(tools.length ? `tools: ${tools.join(", ")}` : "this session has no tools");
        break;
      }
      case "agents":
        await showAgents(ctx);
        break;
      case "usage":
        for (const line of await ctx.usage()) view.say(line);
        break;
      case "status": {
        const { id, model, contextWindow } = ctx.session();
        view.say(`model ${model} · session ${id} · workspace ${ctx.cwd}`);
        if (view.lastUsage) {
          const used = view.lastUsage.input_tokens;
          const of = contextWindow ? ` of ${formatTokens(contextWindow)} (${contextShare(used, contextWindow)})` : "";
          view.say(`context used by the last request: ${formatTokens(used)} tokens${of}; this session so far ${formatTokens(view.totalTokens)}`);
        }
        const memory = await readOwnMemory(ctx);
        if (memory) view.say(memory.statusLine);
        view.say(await sandboxLine(ctx));
        break;
      }
      case "skills":
        await skillsCommand(ctx, arg);
        break;
      case "init": {
        const { INIT_PROMPT } = await import("./info-commands");
        await ctx.request("turn.start", { session_id: ctx.session().id, prompt: INIT_PROMPT });
        break;
      }
      case "hooks":
      case "mcp":
      case "permissions": {
        const info = await import("./info-commands");
        const lines = name === "hooks" ? info.hooksLines(ctx.cwd, ctx.env) : name === "mcp" ? await info.mcpLines(ctx.cwd, ctx.env) : info.permissionsLines(ctx.cwd, ctx.env);
        for (const line of lines) view.say(line);
        break;
      }
      case "memory": {
        const memory = await readOwnMemory(ctx);
        if (!memory) view.say("memory is turned off (memory.enabled = false)");
        else for (const line of memory.report.split("\n")) view.say(line);
        break;
      }
    }
  } catch (e) {
    view.say(`/${name}: ${(e as Error).message}`, theme.red);
  }
  ctx.requestRender();
}

/** How bash commands run in this workspace (src/sandbox), as /status shows it. */
async function sandboxLine({ cwd, env }: SlashContext): Promise<string> {
  try {
    const { loadConfig, scvHome } = await import("../config/load");
    const { sandboxSettingsIn, sandboxStatusLine } = await import("../sandbox");
    const { config } = loadConfig({ cwd, env });
    return sandboxStatusLine(sandboxSettingsIn(config.sandbox, { workspace: cwd, scvHome: scvHome(env), env }));
  } catch (e) {
    return `sandbox: unknown (${(e as Error).message.split("\n")[0]})`;
  }
}

/** The owner's memory as sessions here use it (the TUI is the owner's), or undefined when it is turned off. */
async function readOwnMemory({ cwd, env }: SlashContext): Promise<{ report: string; statusLine: string } | undefined> {
  const { loadConfig, scvHome } = await import("../config/load");
  const { memoryPlaceOf, memoryReport, memoryStatusLine, readSnapshot } = await import("../memory/index");
  const { storedWorkspace } = await import("../sessions/workspace");
  const workspace = storedWorkspace(cwd);
  const place = memoryPlaceOf({ owner: true, scvHome: scvHome(env), workspace, config: loadConfig({ cwd, env }).config });
  if (!place) return undefined;
  const snapshot = readSnapshot(place);
  return { report: memoryReport(snapshot, workspace), statusLine: memoryStatusLine(snapshot) };
}

/** /skills: the drafts as diffs; `/skills accept NAME` or `/skills reject NAME` decides one. */
async function skillsCommand({ view, env, theme }: SlashContext, arg: string) {
  const { scvHome } = await import("../config/load");
  const { decideDraft, draftsReport } = await import("../tools/skill_manage");
  const [verb, name] = arg.split(/\s+/);
  if (!verb) {
    for (const line of draftsReport(scvHome(env), (v, n) => `/skills ${v} ${n}`).split("\n")) view.say(line, line.startsWith("+") ? theme.green : line.startsWith("-") && !line.startsWith("---") ? theme.red : undefined);
    return;
  }
  if ((verb !== "accept" && verb !== "reject") || !name) throw new Error("usage: /skills, /skills accept NAME or /skills reject NAME");
  view.say(decideDraft(scvHome(env), verb, name));
}

async function showAgents({ view, cwd, env }: SlashContext) {
  const { loadConfig, scvHome } = await import("../config/load");
  const { offeredAgents } = await import("../agents/offer");
  const { withAgentFiles } = await import("../agents/personas");
  const { config } = loadConfig({ cwd, env });
  const offered = withAgentFiles(offeredAgents({ config, env, scvHome: scvHome(env) }), { scvHome: scvHome(env), workspace: cwd });
  if (!offered.length) view.say("no coding agents are offered here (`scv agents status` says why)");
  // Agent files (~/.scv/agents) run on the nested SCV: their line is their description.
  for (const a of offered) view.say(a.persona ? `agent ${a.descriptor.name} · agent file · ${a.persona.description}` : `agent ${a.descriptor.name} · ${a.executable}${a.settings.model ? ` · model ${a.settings.model}` : ""}`);
}
