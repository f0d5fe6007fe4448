// The `agent` tool: hands a task to another coding agent (Claude Code, Codex, Grok Build, DeepSeek Harness,
// pi, a nested SCV) and returns its structured result. The tool chooses the agent and checks the call against
// what that agent takes when the call is assessed, before any approval; src/agents does the rest.
import { lazySchema } from "../lazy-schema";
import { EFFORTS } from "../config/schema";
import type { AcpSupport } from "../agents/descriptors";
import { defaultAgent, type OfferedAgent, takesOption } from "../agents/offer";
import { type AgentCallArgs, type CallPlan, planCall } from "../agents/plan";
import { agentLine, delegatingWorkSection } from "../agents/prompt";
import type { AgentRunContext } from "../agents/run";
import { type AgentSessionState, agentSessionState, rememberPlan, takePlan } from "../agents/service";
import { jobsFor } from "../agents/jobs";
import { defineTool, type SessionScope, type Tool, type ToolCallContext, ToolError, type ToolRisk } from "./tool";

/** What the tool accepts: lenient strings, so every refusal can say exactly what was wrong (see planCall). */
export const AgentArgs = lazySchema((z) => z.strictObject({
  agent: z.string().optional(),
  prompt: z.string().min(1, "must not be empty; write a self-contained brief"),
  cwd: z.string().optional(),
  session: z.string().optional(),
  model: z.string().optional(),
  effort: z.string().optional(),
  timeout_seconds: z.number().int("must be a whole number of seconds").positive("must be greater than 0").optional(),
  background: z.boolean().optional(),
}));

const DESCRIPTION =
  "Hand a task to another coding agent and get back its final answer as JSON: agent, status (completed, failed, " +
  "declined, timeout, cancelled), reply, usage, exit_code, stderr_tail, truncated, and when relevant error, hint, " +
  "fallback, note, session and turn. The agent runs as its own program with its own model and context and sees only " +
  "your prompt, so write a self-contained brief. A result's session handle continues that conversation when passed back.";

const PROMPT_SHOWN_CHARS = 2000;

function namesTaking(offered: OfferedAgent[], option: "model" | "effort" | "session"): string[] {
  return offered.filter((o) => takesOption(o, option)).map((o) => o.descriptor.name);
}

type JsonSchema = Record<string, unknown>;
const text = (description: string): JsonSchema => ({ type: "string", description });

/**
 * The JSON Schema the model sees: the enum of offered agents and only the options some of them take. It is
 * written as JSON Schema rather than built with zod and converted, which cost every session start half a
 * millisecond; AgentArgs (lenient, so planCall can say exactly what was wrong) checks the calls.
 */
function shownSchema(scope: SessionScope, offered: OfferedAgent[]): JsonSchema {
  const names = offered.map((o) => o.descriptor.name);
  const preferred = defaultAgent(scope.config, offered);
  const how = preferred
    ? `Which agent runs the call. Omit it to use ${preferred.descriptor.name}, the first agent in the user's [agent] prefer that this session offers; a call that continues a session needs no agent.`
    : "Which agent runs the call. The user prefers none of the agents this session offers ([agent] prefer), so name one; a call that continues a session needs no agent.";
  const { agent_timeout_seconds: dflt, max_timeout_seconds: max } = scope.config.tools;
  const properties: Record<string, JsonSchema> = {
    agent: { type: "string", enum: names, description: [how, ...offered.map(agentLine)].join("\n") },
    prompt: text('The self-contained brief for the agent: goal, relevant paths, constraints, and what the answer should contain. It cannot start with "-".'),
    cwd: text(
      "Directory to run in, inside the workspace: relative to it (such as a project directory) or absolute. Defaults to the workspace root. Running in a project directory lets the agent pick up that project's AGENTS.md or CLAUDE.md and its skills.",
    ),
  };
  const model = namesTaking(offered, "model");
  if (model.length) {
    properties.model = text(
      `Model for the agent, from the family its line names (taken by: ${model.join(", ")}). Set it when the user asks for a model or when the work matches a configured use_for default; omit it to leave the agent's own configured default in place.`,
    );
  }
  const effort = namesTaking(offered, "effort");
  if (effort.length) {
    properties.effort = {
      type: "string",
      enum: [...EFFORTS],
      description: `Reasoning effort (taken by: ${effort.join(", ")}). Set it when the user asks or when the work matches a configured use_for default; omit it to leave the agent's own default in place.`,
    };
  }
  const session = namesTaking(offered, "session");
  if (session.length) {
    properties.session = text(
      `A handle from an earlier agent result in this session, such as ${session[0]}-1, to continue that conversation with the agent's own context (taken by: ${session.join(", ")}). Omit it to start a new conversation. A conversation keeps its agent and cwd.`,
    );
  }
  properties.timeout_seconds = {
    type: "integer",
    minimum: 1,
    maximum: max,
    description: `Seconds before the agent is stopped; default ${dflt}, at most ${max}. Raise it for long work such as builds, releases, or landing a change.`,
  };
  if (scope.config.agent.max_background > 0) {
    properties.background = {
      type: "boolean",
      description: `Run the call as a background job: the tool returns at once with a job handle (such as job-1) while the agent works, and the result comes back later in a [SCV background report] turn, or through agent_wait / agent_status. At most ${scope.config.agent.max_background} jobs run at once.`,
    };
  }
  return { type: "object", properties, required: preferred ? ["prompt"] : ["agent", "prompt"], additionalProperties: false };
}

function plan(state: AgentSessionState, scope: SessionScope, args: AgentCallArgs): CallPlan {
  return planCall(
    { offered: state.offered, conversations: state.conversations, config: scope.config, workspace: scope.workspace, scvHome: scope.scvHome },
    args,
  );
}

/** The approval summary: the agent, the exact launch, bounded prompt, directory, timeout and delegate risk. */
export function approvalSummary(p: CallPlan, workspace: string): string {
  const d = p.offered.descriptor;
  if (d.backend === "nested-scv") return nestedSummary(p, workspace);
  const shownArgs = [...p.argv.slice(1, -1), "<prompt>"];
  const prompt =
    p.prompt.length > PROMPT_SHOWN_CHARS
      ? `${p.prompt.slice(0, PROMPT_SHOWN_CHARS)}… (${p.prompt.length - PROMPT_SHOWN_CHARS} more characters)`
      : p.prompt;
  const acp = p.offered.transport === "acp";
  const launch = !acp
    ? `agent ${d.name}: Launch ${p.offered.executable} with args ${JSON.stringify(shownArgs)}`
    : p.conversation
      ? `agent ${d.name}: Prompt conversation ${p.conversation.handle} on its running ACP server (${p.offered.executable})`
      : `agent ${d.name}: Launch ${p.offered.executable} with args ${JSON.stringify(p.argv.slice(1))} as its Agent Client Protocol server, then send the prompt`;
  const selections = [p.model !== undefined ? `model ${p.model}` : "", p.effort !== undefined ? `effort ${p.effort}` : ""].filter(Boolean);
  const lines = [
    launch,
    acp && selections.length ? `Selects: ${selections.join(", ")} (session/set_config_option)` : "",
    acp ? `Prompt: ${prompt}` : `Prompt (the last argument): ${prompt}`,
    `Directory: ${p.cwd}${p.cwd === workspace ? " (the workspace root)" : ""}`,
    p.conversation
      ? `Conversation: ${p.conversation.handle}, turn ${p.conversation.turns + 1}`
      : p.startsConversation
        ? "Conversation: new"
        : "",
    `Timeout: ${p.timeoutSeconds} seconds`,
    `Risk: delegate. ${d.product} runs on its own: it may read, write, and run commands, use credentials it can reach, and call its own model provider.`,
  ];
  if (p.offered.settings.permissions === "full") {
    const switches = acp && d.acp ? acpFullSwitches(d.acp, d.fullPermissions.env) : [...d.fullPermissions.args, ...envWords(d.fullPermissions.env)];
    lines.push(
      `FULL PERMISSIONS: [agents.${d.name}] permissions = "full" ${switches.length ? `adds ${switches.join(" ")}, so the agent acts without its own approval prompts` : `is set (${d.product} has no approval prompts to turn off)`}.`,
    );
  }
  return lines.filter(Boolean).join("\n");
}

const envWords = (env: Readonly<Record<string, string>>) => Object.entries(env).map(([k, v]) => `${k}=${v}`);

/** What `permissions = "full"` changes on the ACP server: a session mode, server arguments, variables. */
function acpFullSwitches(acp: AcpSupport, cliEnv: Readonly<Record<string, string>>): string[] {
  const extraArgs = acp.args(true).filter((a) => !acp.args(false).includes(a));
  const modes = acp.fullModes.length ? [`session mode ${acp.fullModes.join(" or ")}`] : [];
  return [...modes, ...extraArgs, ...envWords({ ...cliEnv, ...acp.fullEnv })];
}

/** The nested SCV runs no argv per call: the summary says which server the prompt goes to. */
function nestedSummary(p: CallPlan, workspace: string): string {
  const prompt =
    p.prompt.length > PROMPT_SHOWN_CHARS ? `${p.prompt.slice(0, PROMPT_SHOWN_CHARS)}… (${p.prompt.length - PROMPT_SHOWN_CHARS} more characters)` : p.prompt;
  return [
    p.conversation
      ? `agent scv: Send the prompt to the nested SCV of conversation ${p.conversation.handle}, turn ${p.conversation.turns + 1}`
      : `agent scv: Start a nested SCV: ${p.offered.executable} with args ${JSON.stringify(p.argv.slice(1))}${p.model ? `, model ${p.model}` : ""}`,
    `Prompt: ${prompt}`,
    `Directory: ${p.cwd}${p.cwd === workspace ? " (the workspace root)" : ""}`,
    `Timeout: ${p.timeoutSeconds} seconds`,
    "Risk: delegate. The nested SCV runs its own model and tools; each of its side effects asks this session for approval.",
  ].join("\n");
}

function delegationAllowed(scope: SessionScope): boolean {
  return scope.delegationDepth < scope.config.agent.max_delegation_depth;
}

/** Whether this session offers the `agent` tool (and so, with background jobs on, the job tools). */
export function agentToolOffered(scope: SessionScope): boolean {
  return delegationAllowed(scope) && agentSessionState(scope).offered.length > 0;
}

/** Whether this session offers agent_wait, agent_status and agent_cancel: the agent tool, with jobs turned on. */
export function jobToolsOffered(scope: SessionScope): boolean {
  return scope.config.agent.max_background > 0 && agentToolOffered(scope);
}

function checkBackground(scope: SessionScope, args: { background?: boolean }) {
  if (!args.background) return;
  if (scope.config.agent.max_background === 0) throw new ToolError("background jobs are turned off (agent.max_background = 0); call without background");
  jobsFor(scope).checkRoom();
}

/** The *Delegating work* system-prompt section, present exactly when the session offers the `agent` tool. */
export function agentPromptSection(scope: SessionScope): string | undefined {
  if (!delegationAllowed(scope)) return undefined;
  return delegatingWorkSection(agentSessionState(scope).offered, scope.config);
}

export function createAgentTool(scope: SessionScope): Tool | undefined {
  if (!delegationAllowed(scope)) return undefined;
  const state = agentSessionState(scope);
  if (state.offered.length === 0) return undefined;

  /** The agent a call will run on, for its label (refusals surface in risk, before this matters). */
  const chosenName = (args: AgentCallArgs): string => {
    const named = args.agent?.trim();
    if (named) return named;
    const handle = args.session?.trim();
    const conv = handle ? state.conversations.get(handle) : undefined;
    return conv?.agent ?? defaultAgent(scope.config, state.offered)?.descriptor.name ?? "?";
  };

  return defineTool({
    name: "agent",
    description: DESCRIPTION,
    parameters: AgentArgs,
    jsonSchema: shownSchema(scope, state.offered),
    risk: (args, ctx: ToolCallContext) => {
      rememberPlan(state, ctx.callId, plan(state, scope, args));
      checkBackground(scope, args);
      return "delegate";
    },
    summary: (args, ctx) => {
      const p = state.plans.get(ctx.callId) ?? plan(state, scope, args);
      const summary = approvalSummary(p, scope.workspace);
      return args.background ? `${summary}\nRuns as a background job: the turn continues while the agent works.` : summary;
    },
    label: (args) => `agent ${chosenName(args)}: ${args.prompt.trim().split("\n", 1)[0]}`,
    async execute(args, ctx) {
      const p = takePlan(state, ctx.callId) ?? plan(state, scope, args);
      // The runners (process tracking, stream readers, the ACP and nested-SCV clients) load at the first call: a
      // session offers the tool without them, so a nested child reaches its first model request sooner.
      const run = async (runCtx: AgentRunContext) => (await import("../agents/run")).runAgentCall(runCtx, state, p);
      if (args.background) {
        const name = p.offered.descriptor.name;
        // A job has no turn to carry a question: relayed requests get the answer the session gives unasked, and a
        // denial is reported to the client with its job (the handle is known once start returns, before any request).
        let handle: string | undefined;
        const approve = async (r: { tool?: string; risk: ToolRisk; summary: string }) =>
          scope.decideUnattended(r.risk, { tool: r.tool ?? "agent", summary: r.summary, ...(handle ? { job: handle } : {}) });
        const job = jobsFor(scope).start(name, (signal, progress) => run({ scope, signal, progress, outputLimitBytes: ctx.outputLimitBytes, approve }), p.conversation?.handle);
        handle = job.job;
        const output = JSON.stringify({ job: job.job, agent: name, status: "running", background: true });
        return { ok: true, output, event: { jobs: [job.job] }, display: `started in the background as ${job.job}` };
      }
      const result = await run({
        scope,
        signal: ctx.signal,
        progress: (line) => ctx.progress(line),
        outputLimitBytes: ctx.outputLimitBytes,
        approve: ctx.approve,
      });
      return { ok: result.status === "completed" || result.status === "declined", output: JSON.stringify(result), display: result.status };
    },
  });
}
