// The delegation engine as the `agent` tool uses it: whether a session offers delegation, the plan an assessed
// call runs, and running it, in this turn or as a background job. The runners (process tracking, stream
// readers, the ACP and nested-SCV clients) load at the first call, so a session that offers the tool without
// calling it never loads them and a nested child reaches its first model request sooner.
import { ToolError } from "../errors";
import { maxDelegationDepth } from "../process/delegations";
import type { SessionScope, ToolRisk } from "../scope";
import type { AgentRunContext } from "./call-context";
import type { AgentCallResult } from "./result";
import { COMMAND_JOB, jobsFor } from "./jobs";
import { defaultAgent } from "./offer";
import { type AgentCallArgs, type CallPlan, planCall } from "./plan";
import { delegatingWorkSection } from "./prompt";
import { type AgentSessionState, agentSessionState } from "./service";

export function delegationAllowed(scope: SessionScope): boolean {
  return scope.delegationDepth < (maxDelegationDepth(scope) ?? scope.config.agent.max_delegation_depth);
}

/** Whether this session offers the `agent` tool (and so, with background jobs on, the job tools). */
export function agentToolOffered(scope: SessionScope): boolean {
  return delegationAllowed(scope) && agentSessionState(scope).offered.length > 0;
}

/**
 * Whether this session offers agent_wait, agent_status and agent_cancel: the agent tool with jobs turned on, or
 * background commands (`bash` with `background: true`) turned on.
 */
export function jobToolsOffered(scope: SessionScope): boolean {
  return (scope.config.agent.max_background > 0 && agentToolOffered(scope)) || scope.config.tools.max_background_commands > 0;
}

/** The *Delegating work* system-prompt section, present exactly when the session offers the `agent` tool. */
export function agentPromptSection(scope: SessionScope): string | undefined {
  if (!delegationAllowed(scope)) return undefined;
  return delegatingWorkSection(agentSessionState(scope).offered, scope.config);
}

/** The plan a call runs; every refusal is thrown here, when the call is assessed. */
export function planFor(state: AgentSessionState, scope: SessionScope, args: AgentCallArgs): CallPlan {
  return planCall(
    { offered: state.offered, conversations: state.conversations, config: scope.config, workspace: scope.workspace, scvHome: scope.scvHome },
    args,
  );
}

/** Refuses a background call when jobs are off or the session runs as many as it may. */
export function checkBackground(scope: SessionScope, args: { background?: boolean }): void {
  if (!args.background) return;
  if (scope.config.agent.max_background === 0) throw new ToolError("background jobs are turned off (agent.max_background = 0); call without background");
  jobsFor(scope).checkRoom();
}

/** Refuses `worktree: true` without background, outside a git repository or with unresolved conflicts (before anything runs). */
export function checkWorktree(scope: SessionScope, args: { background?: boolean; worktree?: boolean }): void {
  if (!args.worktree) return;
  if (!args.background) throw new ToolError("worktree: true runs the agent as a background job in its own worktree; add background: true");
  const { checkWorktreePossible } = require("./worktree") as typeof import("./worktree");
  try {
    checkWorktreePossible(scope.workspace);
  } catch (e) {
    throw new ToolError((e as Error).message);
  }
}

/**
 * Whether a background call that did not say gets a worktree: in a git repository where another agent job of this
 * session is running (two writers in one checkout collide), when one can be made there. An explicit `worktree`
 * stands.
 */
export function worktreeByDefault(scope: SessionScope, args: { background?: boolean; worktree?: boolean }): boolean {
  if (args.worktree !== undefined || !args.background || scope.config.agent.max_background === 0) return args.worktree === true;
  if (!jobsFor(scope).running().some((j) => j.agent !== COMMAND_JOB)) return false;
  const { checkWorktreePossible, looksLikeGitRepository } = require("./worktree") as typeof import("./worktree");
  if (!looksLikeGitRepository(scope.workspace)) return false;
  try {
    checkWorktreePossible(scope.workspace);
    return true;
  } catch {
    return false; // no worktree can be made here: the job works in the checkout, as without one
  }
}

/** The agent a call will run on, for its label (refusals surface in risk, before this matters). */
export function callAgentName(state: AgentSessionState, scope: SessionScope, args: AgentCallArgs): string {
  const named = args.agent?.trim();
  if (named) return named;
  const handle = args.session?.trim();
  const conv = handle ? state.conversations.get(handle) : undefined;
  return conv?.agent ?? defaultAgent(scope.config, state.offered)?.descriptor.name ?? "?";
}

/** The calling turn's side of a run: cancellation, progress, the output limit and its approval gate. */
export type CallTurn = Omit<AgentRunContext, "scope">;

/** How a call ended, as the tool reports it. */
export interface CallOutcome {
  ok: boolean;
  output: string;
  event?: Record<string, unknown>;
  display: string;
  preview?: string;
}

/** A delegated call in the usage ledger: the agent, its model when known, what it reported, and how it ran. */
function recordCall(scope: SessionScope, p: CallPlan, usage: AgentCallResult["usage"]): void {
  const d = p.offered.descriptor;
  const transport = d.backend === "nested-scv" ? "scv" : (p.offered.transport ?? "process");
  const model = p.model ?? p.offered.settings.model;
  scope.usage?.delegated({ agent: d.name, ...(model ? { model } : {}), transport, usage });
}

/** Runs an assessed call in this turn, or starts it as a background job and returns its handle at once. */
export async function runPlannedCall(scope: SessionScope, state: AgentSessionState, p: CallPlan, turn: CallTurn, background: boolean, worktree = false): Promise<CallOutcome> {
  const run = async (runCtx: AgentRunContext) => {
    const result = await (await import("./run")).runAgentCall(runCtx, state, p);
    recordCall(scope, p, result.usage);
    return result;
  };
  if (background) {
    const name = p.offered.descriptor.name;
    // A job has no turn to carry a question: relayed requests get the answer the session gives unasked, and a
    // denial is reported to the client with its job (the handle is known once start returns, before any request).
    let handle: string | undefined;
    const approve = async (r: { tool?: string; risk: ToolRisk; summary: string }) =>
      scope.decideUnattended(r.risk, { tool: r.tool ?? "agent", summary: r.summary, ...(handle ? { job: handle } : {}) });
    const job = jobsFor(scope).start(
      name,
      (signal, progress, j) => {
        const runCtx = { signal, progress, outputLimitBytes: turn.outputLimitBytes, approve };
        return worktree ? inWorktree(scope, j.job, (where) => run({ ...runCtx, scope: where })) : run({ ...runCtx, scope });
      },
      p.conversation?.handle,
    );
    handle = job.job;
    const output = JSON.stringify({ job: job.job, agent: name, status: "running", background: true });
    return { ok: true, output, event: { jobs: [job.job] }, display: `started in the background as ${job.job}` };
  }
  const result = await run({ scope, ...turn });
  // A person reads the agent's reply (or what went wrong), not the JSON the model gets.
  const preview = [result.reply.trim(), result.error ? `error: ${result.error}` : "", result.hint ? `hint: ${result.hint}` : ""].filter(Boolean).join("\n");
  return { ok: result.status === "completed" || result.status === "declined", output: JSON.stringify(result), display: result.status, ...(preview ? { preview } : {}) };
}

/**
 * Runs a background job in a git worktree of its own: the agent's workspace is the worktree; when it ends, what it
 * left uncommitted is committed on its branch and the result's note names the branch, its commits and a diff summary.
 */
async function inWorktree(scope: SessionScope, job: string, run: (scope: SessionScope) => Promise<AgentCallResult>): Promise<AgentCallResult> {
  const { createWorktree, finishWorktree } = await import("./worktree");
  const record = createWorktree({ home: scope.scvHome, workspace: scope.workspace, session: scope.sessionId, job });
  // The workspace may be a folder of the repository: the agent works in the same folder of the worktree.
  const { realpathSync } = await import("node:fs");
  const { join, relative } = await import("node:path");
  const result = await run({ ...scope, workspace: join(record.path, relative(record.repo, realpathSync(scope.workspace))) });
  let said: string;
  try {
    const done = finishWorktree(record);
    said = `worked in the worktree ${done.path} on branch ${done.branch}: ${done.commits.length} commit${done.commits.length === 1 ? "" : "s"}, ${done.diffstat}. Merge it with agent_merge {"job": "${job}"} (or scv agents merge ${job}), or discard it with scv agents discard ${job}.`;
  } catch (e) {
    said = `its worktree ${record.path} (branch ${record.branch}) could not be summed up: ${(e as Error).message}`;
  }
  return { ...result, note: result.note ? `${result.note}\n${said}` : said };
}
