// The durable session store's public surface: open a store, create or resume a session (a recorder appends its
// records), load, list, search, remove and prune. What a live session hands its services is a SessionJournal.
import type { PlanItem } from "../plan/plan";
import type { StoredConversation, StoredJob } from "./records";
import type { SessionStore } from "./store";
import type { SessionRecorder } from "./writer";

export { openSessionStore, SessionStore, SessionStoreError, type NewSession } from "./store";
export type { SessionRecorder } from "./writer";
export type { LoadedSession, StoredTurn, StoredItem } from "./load";
export type { SearchHit, SessionSummary } from "./catalog";
export type { StoredConversation, StoredJob, TurnStatus } from "./records";

/** A stored session's journal as its services see it (SessionScope.journal). */
export interface SessionJournal {
  recorder: SessionRecorder;
  store: SessionStore;
  /** What a resumed session brought back for its services; absent for a new session. */
  restored?: { conversations: StoredConversation[]; jobs: StoredJob[]; plan?: PlanItem[] };
}
