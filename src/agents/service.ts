// The agent state a session owns: the agents it offers (fixed when the session starts), its conversations,
// and the plans assessed calls will run. Created lazily in scope.services.agents; closing the session ends
// every conversation and removes its markers.
import type { SessionScope } from "../scope";
import { ConversationStore } from "./conversations";
import { type OfferedAgent, offeredAgents } from "./offer";
import { withAgentFiles } from "./personas";
import type { CallPlan } from "./plan";

export interface AgentSessionState {
  offered: OfferedAgent[];
  conversations: ConversationStore;
  /** Plans assessed but not yet run, by call ID, so the approved argv is the argv that runs. */
  plans: Map<string, CallPlan>;
}

declare module "../scope" {
  interface SessionServices {
    /** The session's agent state (agentSessionState). */
    agents?: AgentSessionState;
  }
}

const MAX_PENDING_PLANS = 64;

export function agentSessionState(scope: SessionScope): AgentSessionState {
  const existing = scope.services.agents;
  if (existing) return existing;
  const state: AgentSessionState = {
    offered: withAgentFiles(offeredAgents(scope), scope),
    conversations: new ConversationStore({
      scvHome: scope.scvHome,
      sessionId: scope.sessionId,
      maxConversations: scope.config.agent.max_conversations,
      idleSeconds: scope.config.agent.conversation_idle_seconds,
      recorder: scope.journal?.recorder,
      restored: scope.journal?.restored?.conversations,
    }),
    plans: new Map(),
  };
  scope.services.agents = state;
  scope.onClose(() => {
    state.plans.clear();
    state.conversations.closeAll();
  });
  return state;
}

/** Keeps a plan for the run that follows approval; refused or denied calls never collect theirs. */
export function rememberPlan(state: AgentSessionState, callId: string, plan: CallPlan): void {
  state.plans.delete(callId);
  state.plans.set(callId, plan);
  while (state.plans.size > MAX_PENDING_PLANS) state.plans.delete(state.plans.keys().next().value!);
}

export function takePlan(state: AgentSessionState, callId: string): CallPlan | undefined {
  const plan = state.plans.get(callId);
  state.plans.delete(callId);
  return plan;
}
