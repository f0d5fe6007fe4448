// A session's conversations with delegated agents. The model only sees SCV handles (`codex-2`); the CLI's own
// session IDs stay here. One turn runs at a time per conversation, the least recently used idle one is
// forgotten beyond agent.max_conversations, and one left unused for agent.conversation_idle_seconds expires.
// A conversation whose CLI reported its session leaves a marker in $SCV_HOME/state/conversations so
// `scv agents gc` keeps its transcript while this SCV process runs.
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ensurePrivateDir, writePrivateFileAtomic } from "../config/private-file";
import { z } from "zod";
import { readStateJson } from "../process/delegation-records";
import { identityOf, isAlive } from "../process/procfs";
import type { ProcessIdentity } from "../process/types";
import { ToolError } from "../tools/tool";
import type { TokenUsage } from "./formats/stream";

export interface Conversation {
  handle: string;
  agent: string;
  /** The resolved directory it runs in; continuing elsewhere is refused. */
  cwd: string;
  /** The CLI's session ID: chosen by SCV up front, or reported by the CLI. */
  cliSessionId?: string;
  /** The CLI reported its session, so the conversation can be resumed. */
  reported: boolean;
  turns: number;
  busy: boolean;
  lastUsed: number;
  /** Codex's running usage total, to turn its cumulative figures into per-turn ones. */
  usageTotal?: TokenUsage;
  markerPath?: string;
}

export const MarkerFile = z.object({
  cli_session_id: z.string(),
  agent: z.string(),
  handle: z.string(),
  scv_session: z.string(),
  owner: z.object({ pid: z.number(), start_time: z.string() }),
  created_unix: z.number(),
});
export type MarkerFile = z.infer<typeof MarkerFile>;

export function markerDir(scvHome: string): string {
  return join(scvHome, "state", "conversations");
}

function markerName(id: string): string {
  return `${id.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 200)}.json`;
}

export interface ConversationStoreOptions {
  scvHome: string;
  sessionId: string;
  maxConversations: number;
  idleSeconds: number;
  now?: () => number;
}

export class ConversationStore {
  private readonly conversations = new Map<string, Conversation>();
  private readonly counters = new Map<string, number>();
  private readonly now: () => number;
  private readonly owner: ProcessIdentity | undefined = identityOf(process.pid);

  constructor(private readonly opts: ConversationStoreOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** A live conversation of this session, or undefined (expired ones are forgotten first). */
  get(handle: string): Conversation | undefined {
    this.expire();
    return this.conversations.get(handle);
  }

  list(): Conversation[] {
    this.expire();
    return [...this.conversations.values()];
  }

  /** Starts a conversation whose first turn is about to run (already busy). */
  start(agent: string, cwd: string, cliSessionId?: string): Conversation {
    this.expire();
    if (this.conversations.size >= this.opts.maxConversations) {
      const idle = [...this.conversations.values()].filter((c) => !c.busy).sort((a, b) => a.lastUsed - b.lastUsed);
      // When every conversation is mid-turn the limit is briefly exceeded rather than cutting one off.
      for (const c of idle.slice(0, this.conversations.size - this.opts.maxConversations + 1)) this.forget(c);
    }
    const n = (this.counters.get(agent) ?? 0) + 1;
    this.counters.set(agent, n);
    const conv: Conversation = { handle: `${agent}-${n}`, agent, cwd, cliSessionId, reported: false, turns: 1, busy: true, lastUsed: this.now() };
    this.conversations.set(conv.handle, conv);
    return conv;
  }

  /** Claims the next turn of an existing conversation; a running turn makes it `session busy`. */
  beginTurn(conv: Conversation): void {
    if (conv.busy) {
      throw new ToolError(`session busy: conversation ${conv.handle} is still running a turn; wait for its result, or omit session to start a new conversation`);
    }
    conv.busy = true;
    conv.turns++;
    conv.lastUsed = this.now();
  }

  /** The CLI reported its session: remember the ID and leave a marker naming it. */
  reported(conv: Conversation, id: string): void {
    if (conv.reported && conv.cliSessionId === id) return;
    if (conv.markerPath && conv.cliSessionId !== id) removeQuietly(conv.markerPath);
    conv.cliSessionId = id;
    conv.reported = true;
    conv.markerPath = this.writeMarker(conv, id);
  }

  /** Ends a turn. A conversation whose CLI never reported a session cannot be resumed, so it is forgotten. */
  endTurn(conv: Conversation): void {
    conv.busy = false;
    conv.lastUsed = this.now();
    if (!conv.reported) this.forget(conv);
  }

  forget(conv: Conversation): void {
    this.conversations.delete(conv.handle);
    if (conv.markerPath) removeQuietly(conv.markerPath);
    conv.markerPath = undefined;
  }

  /** Ends every conversation: handles end with the SCV session. */
  closeAll(): void {
    for (const c of [...this.conversations.values()]) this.forget(c);
  }

  private expire(): void {
    const cutoff = this.now() - this.opts.idleSeconds * 1000;
    for (const c of [...this.conversations.values()]) if (!c.busy && c.lastUsed < cutoff) this.forget(c);
  }

  private writeMarker(conv: Conversation, id: string): string | undefined {
    if (!this.owner) return undefined;
    const dir = markerDir(this.opts.scvHome);
    const path = join(dir, markerName(id));
    const body: MarkerFile = {
      cli_session_id: id,
      agent: conv.agent,
      handle: conv.handle,
      scv_session: this.opts.sessionId,
      owner: { pid: this.owner.pid, start_time: this.owner.startTime },
      created_unix: Math.floor(this.now() / 1000),
    };
    try {
      ensurePrivateDir(dir);
      writePrivateFileAtomic(path, `${JSON.stringify(body)}\n`);
      return path;
    } catch {
      // A marker only protects transcripts from gc; failing to write one must not fail the call.
      return undefined;
    }
  }
}

function removeQuietly(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // already gone
  }
}

/** Markers on disk with whether the SCV process that wrote them still runs. */
export function readMarkers(scvHome: string): { path: string; marker?: MarkerFile; live: boolean }[] {
  const dir = markerDir(scvHome);
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(".json"));
  } catch {
    return [];
  }
  return names.map((name) => {
    const path = join(dir, name);
    try {
      const marker = MarkerFile.parse(readStateJson(path, "conversation marker"));
      return { path, marker, live: isAlive({ pid: marker.owner.pid, startTime: marker.owner.start_time }) };
    } catch {
      return { path, live: false };
    }
  });
}

/** CLI session IDs that a live SCV process's conversation still names. */
export function liveConversationIds(scvHome: string): Set<string> {
  return new Set(readMarkers(scvHome).flatMap((m) => (m.live && m.marker ? [m.marker.cli_session_id] : [])));
}

/** Removes markers whose owning SCV process has exited (the daemon's reconcile pass calls this). */
export function pruneStaleMarkers(scvHome: string): number {
  let removed = 0;
  for (const m of readMarkers(scvHome)) {
    if (m.live) continue;
    removeQuietly(m.path);
    removed++;
  }
  return removed;
}
