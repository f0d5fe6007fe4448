// One `agent` call on the nested-SCV backend: the first call of a conversation starts `scv server --stdio` and
// opens its session, every call runs one turn on it, and the turn's outcome becomes the usual agent result.
// A cancelled or timed-out turn that settles within 2 s keeps the conversation; otherwise, and when the child
// exits, the conversation ends.
import { ToolError } from "../../errors";
import { agentEnvironment, preparePrivateHome } from "../environment";
import { isExecutableFile } from "../offer";
import type { CallPlan } from "../plan";
import { type AgentCallResult, type AgentStatus, buildResult, fallbackSentence, type RunOutcome } from "../result";
import { callCwd, relayProgress, startCall } from "../call-start";
import type { AgentRunContext } from "../call-context";
import type { AgentSessionState } from "../service";
import { NestedServer, type TurnOutcome } from "./server";
import { descriptorFor } from "../descriptors";
import { personaParams } from "../personas";

export async function runNestedCall(ctx: AgentRunContext, state: AgentSessionState, plan: CallPlan): Promise<AgentCallResult> {
  const { descriptor: d, executable, settings } = plan.offered;
  const { offeredNames, unavailable } = startCall(state, plan);
  let conv = plan.conversation;
  // A server that exited during a turn ended its conversation then; one that exited between turns ends it here.
  if (conv && (conv.live as NestedServer | undefined)?.exited) {
    state.conversations.forget(conv);
    throw unavailable(`conversation ${conv.handle} has ended: its server exited; omit session to start a new conversation.`);
  }
  const cwd = callCwd(ctx.scope.workspace, plan);

  // The call's deadline covers starting the nested SCV too, so a child that never answers initialize ends.
  const timeout = AbortSignal.timeout(plan.timeoutSeconds * 1000);
  const signal = AbortSignal.any([ctx.signal, timeout]);
  let server: NestedServer;
  if (conv) {
    server = conv.live as NestedServer;
    state.conversations.beginTurn(conv);
  } else {
    if (!isExecutableFile(executable)) throw unavailable(`scv cannot run: its executable ${executable} is missing or not executable.`);
    // An agent file runs in the nested SCV's own home: its descriptor is the scv one under the file's name.
    const home = plan.offered.persona ? (descriptorFor("scv") ?? d) : d;
    const environment = agentEnvironment(home, { scvHome: ctx.scope.scvHome, env: ctx.scope.env, full: settings.permissions === "full" });
    preparePrivateHome(environment);
    conv = state.conversations.start(d.name, cwd);
    try {
      server = await NestedServer.start(
        {
          scope: ctx.scope,
          conversation: conv.handle,
          argv: plan.argv,
          cwd,
          env: environment.env,
          depth: ctx.scope.delegationDepth + 1,
          model: plan.model ?? plan.offered.persona?.model,
          ...(plan.offered.persona ? { persona: personaParams(plan.offered.persona), readOnly: plan.offered.persona.sandbox === "read-only" } : {}),
        },
        signal,
      );
    } catch (e) {
      state.conversations.endTurn(conv); // never reported, so forgotten
      if (ctx.signal.aborted) throw new ToolError("cancelled");
      if (timeout.aborted) throw new ToolError(`the nested SCV did not open its session within ${plan.timeoutSeconds} seconds (timeout_seconds)`);
      throw unavailable(`the nested SCV could not start (${executable}): ${(e as Error).message}.`);
    }
    conv.live = server;
    conv.reported = true;
  }

  let outcome: TurnOutcome;
  try {
    outcome = await server.turn(
      plan.prompt,
      {
        progress: relayProgress(ctx),
        approve: ctx.approve,
      },
      signal,
    );
  } finally {
    state.conversations.endTurn(conv);
  }

  const timedOut = timeout.aborted && !ctx.signal.aborted;
  const base = { agent: d.name, reply: "", replyTruncated: false, exitCode: null, stderr: "", timeoutSeconds: plan.timeoutSeconds };
  let o: RunOutcome;
  if (outcome.kind === "ended") {
    const e = outcome.ended;
    const status: AgentStatus = e.status;
    o = { ...base, status, reply: e.reply, usage: tokens(e.usage), error: e.error ? `${e.error.class}: ${e.error.message}` : undefined };
  } else if (outcome.kind === "stopped") {
    o = { ...base, status: timedOut ? "timeout" : "cancelled", reply: outcome.ended?.reply ?? "", usage: outcome.ended ? tokens(outcome.ended.usage) : undefined };
    if (!outcome.settled) {
      state.conversations.forget(conv); // a turn that would not stop leaves nothing to continue
      await server.close();
    }
  } else if (outcome.kind === "error") {
    o = { ...base, status: "failed", error: `the nested SCV refused the turn: ${outcome.message}` };
  } else {
    state.conversations.forget(conv);
    o = {
      ...base,
      status: "failed",
      exitCode: outcome.exitCode,
      stderr: outcome.stderr,
      error: `the nested SCV's server exited during the turn${outcome.signal ? ` (${outcome.signal})` : outcome.exitCode !== null ? ` (exit ${outcome.exitCode})` : ""}`,
      crashSignal: outcome.signal ?? undefined,
    };
  }
  const kept = state.conversations.get(conv.handle) === conv;
  const result = buildResult(
    { ...o, session: kept ? conv.handle : undefined, turn: kept ? conv.turns : undefined },
    { offered: offeredNames, outputLimitBytes: ctx.outputLimitBytes },
  );
  // Its live conversation's process is gone: SCV found the agent unavailable, so the fallback applies.
  if (outcome.kind === "exited" && !result.fallback) {
    const fallback = fallbackSentence(d.name, offeredNames);
    if (fallback) result.fallback = fallback;
  }
  return result;
}

function tokens(u: { input_tokens: number; output_tokens: number }) {
  return { input_tokens: u.input_tokens, output_tokens: u.output_tokens };
}
