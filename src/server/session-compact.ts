// A session's one compaction path: PreCompact hooks, the summary written over the older history, then the
// prompt renewed, the store told (so a resume rebuilds the same history) and the client told.
import type { HistoryItem, ModelClient } from "../provider/types";
import type { SessionScope } from "../scope";
import { type CompactionReason, type CompactResult, compactHistory, type ContextState } from "./compaction";
import type { SessionHooks } from "./session-hooks";
import type { Emit } from "./tool-call";

export interface SessionCompaction {
  scope: SessionScope;
  history: HistoryItem[];
  context: ContextState;
  model: ModelClient;
  modelName: string;
  /** Added to the summariser's instructions (what stays in the prompt anyway: the owner's memory). */
  note?: string;
  /** The task the summary must carry (task-pin.ts). */
  pinned?: string;
  hooks?: SessionHooks;
  emit: Emit;
  /** After a summary: the system prompt made again (its new notices said in the turn). */
  renewPrompt(turnId: string | undefined): void;
}

export interface CompactionAt {
  reason: CompactionReason;
  /** The turn it happens in; none for one between turns (session.compact). */
  turnId: string | undefined;
  turnStart: number;
  fixedTokens: number;
  signal: AbortSignal;
}

/** Replaces older history with a summary and reports it; a failed summary request is said in the turn. */
export async function compactSession(s: SessionCompaction, at: CompactionAt): Promise<CompactResult> {
  const { reason, turnId, signal } = at;
  const sessionId = s.scope.sessionId;
  await s.hooks?.run("PreCompact", { trigger: reason === "request" ? "manual" : "auto", reason, custom_instructions: "" }, { ...(turnId ? { turnId } : {}), signal });
  const result = await compactHistory(
    s.history,
    { model: s.model, modelName: s.modelName, window: s.context.window, turnStart: at.turnStart, fixedTokens: at.fixedTokens, signal, ...(s.note ? { note: s.note } : {}), ...(s.pinned ? { pinned: s.pinned } : {}) },
    reason,
  );
  if (result.usage) s.scope.usage?.model(result.usage);
  if (result.ok) {
    s.context.last = undefined;
    s.renewPrompt(turnId);
    // The summary replaced the oldest items (compactHistory splices at 0): the store records both, so a resume
    // rebuilds the same history.
    s.scope.journal?.recorder.compacted({ summary: [result.summary], replaced: result.replaced, start: 0, ...(turnId ? { turn: turnId } : {}) });
    s.emit("session.compacted", {
      session_id: sessionId,
      ...(turnId ? { turn_id: turnId } : {}),
      reason,
      turns: result.turns,
      items: result.replaced.length,
      tokens_before: result.tokensBefore,
      tokens_after: result.tokensAfter,
    });
  } else if (turnId && result.failure) {
    // Only a failed summary request is news; "nothing older to summarise" is not.
    s.emit("model.notice", { session_id: sessionId, turn_id: turnId, message: `could not compact the history: ${result.message}` });
  }
  return result;
}
