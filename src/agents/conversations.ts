// A session's conversations with delegated agents. The model only sees SCV handles (`codex-2`); the CLI's own
// session IDs stay here. One turn runs at a time per conversation, the least recently used idle one is
// forgotten beyond agent.max_conversations, and one left unused for agent.conversation_idle_seconds expires.
// A conversation whose CLI reported its session leaves a marker in $SCV_HOME/state/conversations so
// `scv agents gc` keeps its transcript while this SCV process runs.
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ensurePrivateDir, writePrivateFileAtomic } from "../fs/private-file";
import type { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { readStateJson } from "../process/delegation-records";
import { isAlive, ownIdentity } from "../process/procfs";
import type { ProcessIdentity } from "../process/types";
import type { SessionRecorder, StoredConversation } from "../sessions/index";
import { handleNumber } from "../sessions/load";
import { ToolError } from "../errors";
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
  /** A live server serving the conversation (an ACP agent, a nested SCV): shut down when it is forgotten. */
  live?: { close(): Promise<void> };
  /** Forgets a live conversation left unused for agent.conversation_idle_seconds, so its server ends. */
  idleTimer?: ReturnType<typeof setTimeout>;
}

// Built at its first use (lazySchema), not when a server starts (docs/architecture.md, start-up).
export const MarkerFile = lazySchema((z) => z.object({
  cli_session_id: z.string(),
  agent: z.string(),
  handle: z.string(),
  scv_session: z.string(),
  owner: z.object({ pid: z.number(), start_time: z.string() }),
  created_unix: z.number(),
}));
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
  /** The session's durable record: conversations that can be resumed are written there. */
  recorder?: SessionRecorder;
  /** Conversations a resumed session brings back, with the CLIs' own session IDs. */
  restored?: StoredConversation[];
}

export class ConversationStore {
  private readonly conversations = new Map<string, Conversation>();
  private readonly counters = new Map<string, number>();
  private readonly now: () => number;
  private readonly owner: ProcessIdentity | undefined = ownIdentity();

  constructor(private readonly opts: ConversationStoreOptions) {
    this.now = opts.now ?? Date.now;
    for (const stored of opts.restored ?? []) this.restore(stored);
  }

  /** Brings back a stored conversation under its handle; its next turn resumes the CLI's own session. */
  private restore(stored: StoredConversation): void {
    const conv: Conversation = {
      handle: stored.handle,
      agent: stored.agent,
      cwd: stored.cwd,
      cliSessionId: stored.cli_session_id,
      reported: true,
      turns: stored.turns,
      busy: false,
      lastUsed: stored.last_used,
      ...(stored.usage_total ? { usageTotal: stored.usage_total } : {}),
    };
    const n = handleNumber(conv.handle, `${conv.agent}-`);
    this.counters.set(conv.agent, Math.max(this.counters.get(conv.agent) ?? 0, n));
    this.conversations.set(conv.handle, conv);
    conv.markerPath = this.writeMarker(conv, stored.cli_session_id);
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
    clearTimeout(conv.idleTimer);
  }

  /** The CLI reported its session: remember the ID and leave a marker naming it. */
  reported(conv: Conversation, id: string): void {
    if (conv.reported && conv.cliSessionId === id) return;
    if (conv.markerPath && conv.cliSessionId !== id) removeQuietly(conv.markerPath);
    conv.cliSessionId = id;
    conv.reported = true;
    conv.markerPath = this.writeMarker(conv, id);
    this.record(conv);
  }

  /** Ends a turn. A conversation whose CLI never reported a session cannot be resumed, so it is forgotten. */
  endTurn(conv: Conversation): void {
    conv.busy = false;
    conv.lastUsed = this.now();
    if (!conv.reported) return this.forget(conv);
    this.record(conv);
    if (conv.live && this.conversations.get(conv.handle) === conv) {
      const ms = Math.min(this.opts.idleSeconds * 1000, 2 ** 31 - 1);
      conv.idleTimer = setTimeout(() => this.forget(conv), ms);
      conv.idleTimer.unref?.();
    }
  }

  /** Ends a conversation for good (evicted or expired): a resumed session does not bring it back. */
  forget(conv: Conversation): void {
    this.release(conv);
    if (conv.reported) this.opts.recorder?.append({ type: "conversation_ended", handle: conv.handle });
  }

  /**
   * Ends every conversation in this process: handles end with the SCV session. The session's record keeps
   * them, so resuming the session continues them (a live server, ACP or nested SCV, does not survive; its
   * handle is ended).
   */
  closeAll(): void {
    for (const c of [...this.conversations.values()]) this.release(c);
  }

  private release(conv: Conversation): void {
    clearTimeout(conv.idleTimer);
    this.conversations.delete(conv.handle);
    if (conv.live) void conv.live.close();
    if (conv.markerPath) removeQuietly(conv.markerPath);
    conv.markerPath = undefined;
  }

  private record(conv: Conversation): void {
    if (!conv.cliSessionId) return;
    this.opts.recorder?.append({
      type: "conversation",
      handle: conv.handle,
      agent: conv.agent,
      cwd: conv.cwd,
      cli_session_id: conv.cliSessionId,
      turns: conv.turns,
      last_used: conv.lastUsed,
      ...(conv.usageTotal ? { usage_total: conv.usageTotal } : {}),
    });
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
