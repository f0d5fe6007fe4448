// The `agent` tool: hands a task to another coding agent (Claude Code, Codex, Grok Build, DeepSeek Harness,
// pi, a nested SCV) and returns its structured result. A thin tool over the delegation engine (src/agents): the
// engine plans the call when it is assessed (every refusal before any approval), renders what is approved, and
// runs it.
import { lazySchema } from "../lazy-schema";
import { approvalSummary } from "../agents/approval-summary";
import { agentCallSchema } from "../agents/call-schema";
import { looksLikeGitRepository } from "../agents/worktree";
import { callAgentName, checkBackground, checkWorktree, delegationAllowed, planFor, runPlannedCall, worktreeByDefault } from "../agents/engine";
import { agentSessionState, rememberPlan, takePlan } from "../agents/service";
import type { SessionScope } from "../scope";
import { defineTool, type Tool, type ToolCallContext } from "./tool";

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
  worktree: z.boolean().optional(),
}));

const DESCRIPTION =
  "Hand a task to a coding agent (it sees only your prompt). Returns JSON: status, reply, usage, and a session " +
  "handle to continue the conversation.";

export function createAgentTool(scope: SessionScope): Tool | undefined {
  if (!delegationAllowed(scope)) return undefined;
  const state = agentSessionState(scope);
  if (state.offered.length === 0) return undefined;
  /** Whether each assessed call runs in a worktree (asked or by default), so its approval and its run agree. */
  const inWorktree = new Map<string, boolean>();
  return defineTool({
    name: "agent",
    kind: "other",
    description: DESCRIPTION,
    parameters: AgentArgs,
    jsonSchema: agentCallSchema(scope.config, state.offered, looksLikeGitRepository(scope.workspace)),
    risk: (args, ctx: ToolCallContext) => {
      rememberPlan(state, ctx.callId, planFor(state, scope, args));
      checkBackground(scope, args);
      checkWorktree(scope, args);
      inWorktree.set(ctx.callId, worktreeByDefault(scope, args));
      return "delegate";
    },
    summary: (args, ctx) => {
      const p = state.plans.get(ctx.callId) ?? planFor(state, scope, args);
      const summary = approvalSummary(p, scope.workspace);
      const own = inWorktree.get(ctx.callId) ?? args.worktree === true;
      const why = own && args.worktree === undefined ? " (by default: another agent job is working in this repository)" : "";
      const where = own ? `\nRuns in a git worktree of its own${why}, on a new branch from HEAD outside your files; merge it afterwards (agent_merge, scv agents merge JOB) or discard it.` : "";
      return args.background ? `${summary}\nRuns as a background job: the turn continues while the agent works.${where}` : summary;
    },
    label: (args) => `agent ${callAgentName(state, scope, args)}: ${args.prompt.trim().split("\n", 1)[0]}`,
    async execute(args, ctx) {
      const p = takePlan(state, ctx.callId) ?? planFor(state, scope, args);
      const turn = { signal: ctx.signal, progress: (line: string) => ctx.progress(line), outputLimitBytes: ctx.outputLimitBytes, approve: ctx.approve };
      const own = inWorktree.get(ctx.callId) ?? args.worktree === true;
      inWorktree.delete(ctx.callId);
      return runPlannedCall(scope, state, p, turn, args.background === true, own);
    },
  });
}
