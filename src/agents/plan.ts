// Turning an `agent` call into a plan: which agent runs it, whether it continues a conversation, where it
// runs, and the exact argument vector. Every refusal happens here, when the call's risk is assessed, so a call
// SCV would refuse is never put to the user for approval.
import { randomHex } from "../digest";
import { realpathSync, statSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { type Config, EFFORTS, MODEL_PATTERN } from "../config/schema";
import { ToolError } from "../errors";
import { isInside } from "../fs/workspace-paths";
import type { Conversation, ConversationStore } from "./conversations";
import type { AgentDescriptor } from "./descriptors";
import { agentHome } from "./environment";
import { defaultAgent, type OfferedAgent, takesOption } from "./offer";

/** The tool's arguments after zod; blank strings still count as omitted. */
export interface AgentCallArgs {
  agent?: string;
  prompt: string;
  cwd?: string;
  session?: string;
  model?: string;
  effort?: string;
  timeout_seconds?: number;
}

export interface PlanContext {
  offered: OfferedAgent[];
  conversations: ConversationStore;
  config: Config;
  workspace: string;
  scvHome: string;
}

export interface CallPlan {
  offered: OfferedAgent;
  prompt: string;
  model?: string;
  effort?: string;
  /** The conversation this call continues. */
  conversation?: Conversation;
  /** The call starts a conversation (the agent can continue one). */
  startsConversation: boolean;
  /** For a new conversation of an agent whose session ID SCV picks. */
  newSessionId?: string;
  /** The cwd as requested (blank: none), re-resolved when the call runs. */
  cwdRequest?: string;
  cwd: string;
  timeoutSeconds: number;
  /** Codex's -o file in its private tmp directory. */
  outputFile?: string;
  argv: string[];
}

const blank = (v: string | undefined) => (v === undefined || v.trim() === "" ? undefined : v.trim());
const names = (list: OfferedAgent[]) => list.map((o) => o.descriptor.name).join(", ");
type Option = "model" | "effort" | "session";

export function planCall(ctx: PlanContext, raw: AgentCallArgs): CallPlan {
  const args = {
    agent: blank(raw.agent),
    cwd: blank(raw.cwd),
    session: blank(raw.session),
    model: blank(raw.model),
    effort: blank(raw.effort),
  };
  const prompt = raw.prompt;
  checkPrompt(prompt);
  const offered = chooseAgent(ctx, args.agent, args.session);
  const d = offered.descriptor;
  for (const option of ["model", "effort", "session"] as const) {
    if (args[option] !== undefined && !takesOption(offered, option)) throw new ToolError(notTaken(ctx.offered, d, option));
  }
  const conversation = args.session ? findConversation(ctx, args.session, args.agent) : undefined;
  if (conversation && args.model !== undefined && d.backend === "nested-scv" && offered.transport !== "acp") {
    throw new ToolError(
      `${d.name} takes model only when a conversation starts; omit model to continue ${conversation.handle}, or omit session to start a new conversation with that model`,
    );
  }
  if (args.model !== undefined && !MODEL_PATTERN.test(args.model)) {
    throw new ToolError(
      `model ${JSON.stringify(args.model)} is not valid: a model is 1-128 ASCII letters, digits, or ._:/@[]- and cannot start with - or @`,
    );
  }
  if (args.effort !== undefined && !(EFFORTS as readonly string[]).includes(args.effort)) {
    throw new ToolError(`effort ${JSON.stringify(args.effort)} is not valid; use one of: ${EFFORTS.join(", ")}`);
  }
  const timeoutSeconds = checkTimeout(ctx.config, raw.timeout_seconds);
  const cwd = conversation ? conversationCwd(ctx.workspace, conversation, args.cwd) : resolveAgentCwd(ctx.workspace, args.cwd);
  if (conversation?.busy) {
    throw new ToolError(`session busy: conversation ${conversation.handle} is still running a turn; wait for its result, or omit session to start a new conversation`);
  }
  const acp = offered.transport === "acp";
  const startsConversation = !conversation && (acp || !!d.session);
  const newSessionId = startsConversation && !acp && d.session?.idChosenBy === "scv" ? crypto.randomUUID() : undefined;
  const outputFile = d.usesOutputFile && !acp
    ? join(agentHome(ctx.scvHome, d.name), "tmp", `last-message-${randomHex(6)}.txt`)
    : undefined;
  const plan: CallPlan = {
    offered,
    prompt,
    model: args.model,
    effort: args.effort,
    conversation,
    startsConversation,
    newSessionId,
    cwdRequest: args.cwd,
    cwd,
    timeoutSeconds,
    outputFile,
    argv: [],
  };
  plan.argv = buildArgv(plan);
  return plan;
}

function checkPrompt(prompt: string): void {
  if (prompt.trim() === "") throw new ToolError("the prompt is empty; say what the agent should do, as a self-contained brief");
  if (prompt.includes("\0")) throw new ToolError("the prompt contains a NUL byte, which cannot be passed as an argument; remove it");
  if (prompt.startsWith("-")) {
    throw new ToolError('the prompt cannot start with "-", because the agent would read it as a flag; start it with a word');
  }
}

function chooseAgent(ctx: PlanContext, agent: string | undefined, session: string | undefined): OfferedAgent {
  if (agent !== undefined) {
    const hit = ctx.offered.find((o) => o.descriptor.name === agent);
    if (!hit) throw new ToolError(`agent ${JSON.stringify(agent)} is not offered in this session; choose one of: ${names(ctx.offered)}`);
    // The handle names its agent first: a disagreeing agent is refused as such, even one that takes no session.
    const conv = session !== undefined ? ctx.conversations.get(session) : undefined;
    if (conv && conv.agent !== agent) throw new ToolError(disagreement(conv, agent));
    return hit;
  }
  if (session !== undefined) {
    const conv = ctx.conversations.get(session);
    const hit = conv && ctx.offered.find((o) => o.descriptor.name === conv.agent);
    if (hit) return hit;
    throw new ToolError(unknownSession(session));
  }
  const preferred = defaultAgent(ctx.config, ctx.offered);
  if (!preferred) {
    throw new ToolError(
      `name the agent: the user prefers none of the agents this session offers ([agent] prefer); choose one of: ${names(ctx.offered)}`,
    );
  }
  return preferred;
}

function findConversation(ctx: PlanContext, handle: string, agent: string | undefined): Conversation {
  const conv = ctx.conversations.get(handle);
  if (!conv) throw new ToolError(unknownSession(handle));
  if (agent !== undefined && agent !== conv.agent) throw new ToolError(disagreement(conv, agent));
  return conv;
}

function disagreement(conv: Conversation, agent: string): string {
  return `conversation ${conv.handle} belongs to ${conv.agent}, not ${agent}; omit agent to continue it, or omit session to start a new conversation with ${agent}`;
}

function unknownSession(value: string): string {
  return `session ${JSON.stringify(value)} is not a conversation of this session; pass a handle an earlier agent result returned (such as codex-1), or omit session to start a new conversation`;
}

function notTaken(offered: OfferedAgent[], d: AgentDescriptor, option: Option): string {
  const others = offered.filter((o) => takesOption(o, option));
  if (others.length === 0) return `${d.name} does not take ${option}, and no agent in this session does. Omit ${option}`;
  return `${d.name} does not take ${option}; these agents do: ${names(others)}. Omit ${option}, or call one of them`;
}

function checkTimeout(config: Config, requested: number | undefined): number {
  const max = config.tools.max_timeout_seconds;
  if (requested === undefined) return Math.min(config.tools.agent_timeout_seconds, max);
  if (requested > max) {
    throw new ToolError(`timeout_seconds ${requested} exceeds the limit of ${max} seconds (tools.max_timeout_seconds); pass at most ${max}`);
  }
  return requested;
}

/**
 * The directory a call runs in: the workspace root, or `requested` (relative to the workspace, or absolute)
 * resolved through symlinks, which must be an existing directory under the workspace.
 */
export function resolveAgentCwd(workspace: string, requested: string | undefined): string {
  let root: string;
  try {
    root = realpathSync(workspace);
  } catch (e) {
    throw new ToolError(`the workspace ${JSON.stringify(workspace)} is not accessible: ${(e as NodeJS.ErrnoException).code ?? e}`);
  }
  if (requested === undefined) return root;
  const shown = JSON.stringify(requested);
  if (requested.includes("\0")) throw new ToolError(`cwd ${shown} contains a NUL byte; remove it`);
  let real: string;
  try {
    real = realpathSync(isAbsolute(requested) ? requested : join(root, requested));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") throw new ToolError(`cwd ${shown} does not exist; give an existing directory inside the workspace`);
    throw new ToolError(`cwd ${shown} cannot be resolved: ${code ?? (e as Error).message}`);
  }
  if (!isInside(root, real)) {
    throw new ToolError(`cwd ${shown} is outside the workspace (${root}), following symbolic links; give a directory inside it`);
  }
  if (!statSync(real).isDirectory()) throw new ToolError(`cwd ${shown} is not a directory; give a directory inside the workspace`);
  return real;
}

export function conversationCwd(workspace: string, conv: Conversation, requested: string | undefined): string {
  if (requested === undefined) return conv.cwd;
  const cwd = resolveAgentCwd(workspace, requested);
  if (cwd !== conv.cwd) {
    throw new ToolError(
      `conversation ${conv.handle} runs in ${conv.cwd}, not ${cwd}; continue it without cwd, or omit session to start a new conversation there`,
    );
  }
  return cwd;
}

/**
 * exe, fixed args, full-permission switches, output format, session, model, effort, prompt args, prompt. Over
 * ACP it is the server's command line: the prompt, model and effort travel as ACP messages.
 */
export function buildArgv(plan: CallPlan): string[] {
  const { descriptor: d, executable, settings } = plan.offered;
  if (plan.offered.transport === "acp" && d.acp) return [executable, ...d.acp.args(settings.permissions === "full")];
  const session = d.session;
  const argv = [executable, ...(settings.args ?? d.fixedArgs)];
  // The nested SCV is one server for the whole conversation: the prompt and model go over its protocol.
  if (d.backend === "nested-scv") return argv;
  if (settings.permissions === "full") argv.push(...d.fullPermissions.args);
  argv.push(...d.outputArgs(plan.outputFile));
  let beforePrompt: string[] = [];
  if (session && plan.conversation?.cliSessionId) {
    const resume = session.resumeArgs(plan.conversation.cliSessionId);
    if (session.resumePlacement === "beforePrompt") beforePrompt = resume;
    else argv.push(...resume);
  } else if (session && plan.newSessionId) {
    argv.push(...session.startArgs(plan.newSessionId));
  }
  if (plan.model !== undefined && d.modelArgs) argv.push(...d.modelArgs(plan.model));
  if (plan.effort !== undefined && d.effortArgs) argv.push(...d.effortArgs(plan.effort));
  argv.push(...beforePrompt, ...d.promptArgs, plan.prompt);
  return argv;
}
