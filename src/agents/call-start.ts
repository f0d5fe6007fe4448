// What a delegated call does first on every backend (one process per turn, ACP, nested SCV): name the agents
// a fallback can point to, refuse a conversation that has ended, find the directory, and relay progress.
import { ToolError } from "../errors";
import type { ConversationStore } from "./conversations";
import { type CallPlan, conversationCwd, resolveAgentCwd } from "./plan";
import { redactProgress } from "../text/redact";
import { AgentUnavailableError, fallbackSentence } from "./result";
import type { AgentSessionState } from "./service";

export interface CallStart {
  offeredNames: string[];
  /** An unavailable-agent error that names the agent to fall back to. */
  unavailable(what: string): AgentUnavailableError;
}

/** The offered names and the unavailable error; throws when the call continues a conversation that has ended. */
export function startCall(state: AgentSessionState, plan: CallPlan): CallStart {
  const offeredNames = state.offered.map((o) => o.descriptor.name);
  const agent = plan.offered.descriptor.name;
  const unavailable = (what: string) => new AgentUnavailableError([what, fallbackSentence(agent, offeredNames)].filter(Boolean).join(" "));
  checkConversationOpen(state.conversations, plan);
  return { offeredNames, unavailable };
}

function checkConversationOpen(store: ConversationStore, plan: CallPlan): void {
  if (plan.conversation && store.get(plan.conversation.handle) !== plan.conversation) {
    throw new ToolError(`conversation ${plan.conversation.handle} has ended; omit session to start a new conversation`);
  }
}

/** The directory the call runs in: the conversation's own, or the one asked for inside the workspace. */
export function callCwd(workspace: string, plan: CallPlan): string {
  return plan.conversation ? conversationCwd(workspace, plan.conversation, plan.cwdRequest) : resolveAgentCwd(workspace, plan.cwdRequest);
}

/** Progress for the client, with secrets masked and paths shortened; a line left empty is dropped. */
export function relayProgress(ctx: { progress(line: string): void }): (line: string) => void {
  return (line) => {
    const shown = redactProgress(line);
    if (shown) ctx.progress(shown);
  };
}
