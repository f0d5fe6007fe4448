// Reading a session file back: the turns, the history the model saw (with compactions applied), the agent
// conversations and the background jobs. A turn with no end record was cut off by the process dying: it is
// `interrupted`, and its history items are left out of the replayed history (they may end mid tool call, which
// no model would accept). A torn last record, the trace of a write cut off by a SIGKILL, is skipped with a warning.
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { readBoundedBytes, KiB, MiB } from "../fs/safe-read";
import type { PlanItem } from "../plan/plan";
import { FORMAT_VERSION, SessionHeader, SessionRecord, type StoredConversation, type StoredJob, type TurnStatus } from "./records";

/** The most a session file may hold; a larger one is refused, never read in part. */
export const MAX_SESSION_FILE_BYTES = 512 * MiB;

export type StoredItem = Record<string, unknown>;

export interface StoredTurn {
  turn_id: string;
  prompt: string;
  origin: { kind: string; [k: string]: unknown };
  status: TurnStatus;
  reply: string;
  usage?: { input_tokens: number; output_tokens: number; cached_input_tokens: number };
  error?: { class: string; message: string };
  started_at: number;
  ended_at?: number;
  /** The history items this turn added, in order. */
  items: StoredItem[];
}

export interface StoredCompaction {
  at: number;
  turn?: string;
  summary: StoredItem[];
  replaced: StoredItem[];
}

export interface LoadedSession {
  header: SessionHeader;
  /** The model and provider profile of the latest start or resume. */
  model: string;
  provider: string;
  turns: StoredTurn[];
  /** The history to continue with. */
  history: StoredItem[];
  compactions: StoredCompaction[];
  /** Conversations still open when the session was last saved, with the CLI's own session IDs. */
  conversations: StoredConversation[];
  /** Finished jobs, and jobs still running when the process died (status `interrupted`). */
  jobs: StoredJob[];
  /** The model's last task list (the plan tool), if it made one. */
  plan?: PlanItem[];
  warnings: string[];
  lastActivity: number;
  /** Bytes up to the end of the last complete record; a torn tail lies beyond. */
  completeBytes: number;
}

export class SessionFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SessionFileError";
  }
}

export function readSessionFile(file: string): Buffer {
  return readBoundedBytes(file, { what: "session file", maxBytes: MAX_SESSION_FILE_BYTES, followSymlink: false });
}

/**
 * The header of a session file, reading only its first bytes (so listing one workspace's sessions does not
 * read every file whole); opened like the safe reader does: non-blocking, no final symlink, regular files only.
 */
export function readSessionHeader(file: string): SessionHeader | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    if (!fstatSync(fd).isFile()) return undefined;
    const buf = Buffer.alloc(64 * KiB);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const text = buf.subarray(0, n).toString("utf8");
    const nl = text.indexOf("\n");
    if (nl === -1) return undefined;
    const header = SessionHeader.safeParse(safeJson(text.slice(0, nl)));
    return header.success ? header.data : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

export function loadSession(file: string): LoadedSession {
  return parseSession(readSessionFile(file), file);
}

export function parseSession(bytes: Buffer, file: string): LoadedSession {
  const text = bytes.toString("utf8");
  const lastNewline = text.lastIndexOf("\n");
  const warnings: string[] = [];
  const tail = text.slice(lastNewline + 1);
  if (tail.length > 0) {
    warnings.push(`${file}: skipped a torn last record (${Buffer.byteLength(tail)} bytes, cut off while it was written)`);
  }
  const lines = lastNewline === -1 ? [] : text.slice(0, lastNewline).split("\n");
  const first = lines.length ? safeJson(lines[0]!) : undefined;
  const header = SessionHeader.safeParse(first);
  if (!header.success) throw new SessionFileError(`${file} is not an SCV session file (its first record is not a session header)`);
  if (header.data.v > FORMAT_VERSION) {
    warnings.push(`${file} was written by a newer SCV (format ${header.data.v}); records this version does not know are skipped`);
  }

  const loaded: LoadedSession = {
    header: header.data,
    model: header.data.model,
    provider: header.data.provider,
    turns: [],
    history: [],
    compactions: [],
    conversations: [],
    jobs: [],
    warnings,
    lastActivity: header.data.at,
    completeBytes: lastNewline + 1 === 0 ? 0 : Buffer.byteLength(text.slice(0, lastNewline + 1)),
  };
  const turns = new Map<string, StoredTurn>();
  const conversations = new Map<string, StoredConversation>();
  const jobs = new Map<string, StoredJob>();
  // The replay keeps, per history item, the turn that added it, so an interrupted turn's items can be dropped.
  const replay: { turn?: string; item: StoredItem }[] = [];

  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line) continue;
    const raw = safeJson(line);
    if (isItemRecord(raw)) {
      // Items are most of a file and opaque here: checked by hand, which keeps loading fast (bench/sessions.ts).
      loaded.lastActivity = Math.max(loaded.lastActivity, raw.at);
      replay.push({ turn: raw.turn, item: raw.item });
      if (raw.turn) turns.get(raw.turn)?.items.push(raw.item);
      continue;
    }
    const parsed = raw === undefined ? undefined : SessionRecord.safeParse(raw);
    if (!parsed?.success) {
      warnings.push(`${file}: skipped record ${i + 1}, which is ${raw === undefined ? "not valid JSON" : "not a record this SCV knows"}`);
      continue;
    }
    const r = parsed.data;
    loaded.lastActivity = Math.max(loaded.lastActivity, r.at);
    switch (r.type) {
      case "resumed":
        loaded.model = r.model;
        loaded.provider = r.provider;
        break;
      case "turn": {
        const turn: StoredTurn = { turn_id: r.turn, prompt: r.prompt, origin: r.origin, status: "interrupted", reply: "", started_at: r.at, items: [] };
        turns.set(r.turn, turn);
        loaded.turns.push(turn);
        break;
      }
      case "item":
        break; // handled above
      case "turn_ended": {
        const turn = turns.get(r.turn);
        if (!turn) break;
        Object.assign(turn, { status: r.status, reply: r.reply, usage: r.usage, ended_at: r.at, ...(r.error ? { error: r.error } : {}) });
        // A resume marks the turns cut off before it; from then on the live history no longer held their items.
        if (r.status === "interrupted") dropTurnItems(replay, new Set([r.turn]));
        break;
      }
      case "compacted": {
        loaded.compactions.push({ at: r.at, turn: r.turn, summary: r.summary, replaced: r.replaced });
        const current = replay.slice(r.start, r.start + r.replaced.length).map((e) => JSON.stringify(e.item));
        if (current.length !== r.replaced.length || current.some((c, k) => c !== JSON.stringify(r.replaced[k]))) {
          warnings.push(`${file}: a compaction record does not match the history before it; kept the history uncompacted`);
          break;
        }
        replay.splice(r.start, r.replaced.length, ...r.summary.map((item) => ({ turn: r.turn, item })));
        break;
      }
      case "conversation": {
        const { type: _t, at: _a, ...conv } = r;
        conversations.set(r.handle, conv);
        break;
      }
      case "conversation_ended":
        conversations.delete(r.handle);
        break;
      case "job_started":
        if (!jobs.has(r.job)) jobs.set(r.job, { job: r.job, agent: r.agent, conversation: r.conversation, status: "interrupted", started_at: r.at });
        break;
      case "plan":
        loaded.plan = r.items;
        break;
      case "job_finished": {
        const { type: _t, at: _a, ...job } = r;
        jobs.set(r.job, job);
        break;
      }
    }
  }
  dropTurnItems(replay, new Set(loaded.turns.filter((t) => t.ended_at === undefined).map((t) => t.turn_id)));
  loaded.history = replay.map((e) => e.item);
  loaded.conversations = [...conversations.values()];
  loaded.jobs = [...jobs.values()];
  return loaded;
}

function dropTurnItems(replay: { turn?: string }[], turns: Set<string>): void {
  if (turns.size === 0) return;
  let kept = 0;
  for (const e of replay) if (!e.turn || !turns.has(e.turn)) replay[kept++] = e;
  replay.length = kept;
}

function isItemRecord(r: any): r is { type: "item"; at: number; turn?: string; item: StoredItem } {
  return (
    r?.type === "item" &&
    typeof r.at === "number" &&
    (r.turn === undefined || typeof r.turn === "string") &&
    typeof r.item === "object" &&
    r.item !== null &&
    !Array.isArray(r.item)
  );
}

function safeJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/** The number in a `<prefix>N` handle (`t12`, `job-3`, `codex-2`), or 0. */
export function handleNumber(handle: string, prefix: string): number {
  if (!handle.startsWith(prefix)) return 0;
  const n = Number(handle.slice(prefix.length));
  return Number.isInteger(n) && n > 0 ? n : 0;
}
