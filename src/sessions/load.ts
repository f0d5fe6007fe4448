// Reading a session file back: the turns, the history the model saw (with compactions applied), the agent
// conversations and the background jobs. A turn with no end record was cut off by the process dying: it is
// `interrupted`, and its history items are left out of the replayed history (they may end mid tool call, which
// no model would accept). A torn last record, the trace of a write cut off by a SIGKILL, is skipped with a warning.
// A compaction's summary stands for the turns whose items it replaced (and the turn it was made in): when one of
// those turns leaves the history (a rewind, an interruption), the compaction is undone first (its originals come
// back in its summary's place), so no summary of a turn that left outlives it, wherever the `/compact` was made.
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { KiB } from "../fs/safe-read";
import type { PlanItem } from "../plan/plan";
import type { CallDetail } from "./call-detail";
import { MAX_SESSION_FILE_BYTES, scanSessionLines } from "./lines";
import { FORMAT_VERSION, SessionHeader, SessionRecord, type StoredConversation, type StoredJob, type TurnStatus } from "./records";

export { MAX_SESSION_FILE_BYTES };

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
  /** Its tool calls as they were shown (label, outcome), for a client's replay. */
  calls?: StoredCall[];
}

export interface StoredCall extends CallDetail {
  tool: string;
  label: string;
  display?: string;
  ok: boolean;
  denied?: boolean;
}

export interface StoredCompaction {
  at: number;
  turn?: string;
  summary: StoredItem[];
  replaced: StoredItem[];
}

export interface LoadedSession {
  header: SessionHeader;
  /** The model and provider profile of the latest start, resume or switch (session.configure). */
  model: string;
  provider: string;
  /** The reasoning effort chosen by the latest switch, if any (else the profile's). */
  reasoningEffort?: string;
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
  /** A goal still open when the session was last saved (begun, not ended): its check, budget and first turn. */
  goal?: { turn: string; check: string; budget: { max_attempts: number; max_tokens: number; max_seconds: number; check_timeout_seconds: number; repeat_limit: number } };
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
  const parser = new SessionParser(file);
  const scan = scanSessionLines(file, (line, index) => parser.line(line, index));
  const loaded = parser.finish(scan.completeBytes);
  for (const s of scan.skipped) {
    if (s.index === 0) throw notASession(file);
    loaded.warnings.push(`${file}: skipped record ${s.index + 1} (${s.bytes} bytes), which is ${s.reason}`);
  }
  if (scan.tornBytes > 0) loaded.warnings.unshift(`${file}: skipped a torn last record (${scan.tornBytes} bytes, cut off while it was written)`);
  return loaded;
}

const notASession = (file: string) => new SessionFileError(`${file} is not an SCV session file (its first record is not a session header)`);

/** Builds a LoadedSession from a file's complete lines, in order. */
class SessionParser {
  private loaded: LoadedSession | undefined;
  private readonly turns = new Map<string, StoredTurn>();
  private readonly conversations = new Map<string, StoredConversation>();
  private readonly jobs = new Map<string, StoredJob>();
  // The replay keeps, per history item, the turn that added it, so an interrupted turn's items can be dropped.
  private readonly replay: ReplayEntry[] = [];
  /** The compactions applied to the replay, in order, with the entries each replaced and the turns it stands for. */
  private readonly applied: AppliedCompaction[] = [];

  constructor(private readonly file: string) {}

  line(line: string, index: number): void {
    if (index === 0) return this.header(line);
    if (!this.loaded || !line) return;
    this.record(line, index, this.loaded);
  }

  private header(line: string): void {
    const header = SessionHeader.safeParse(safeJson(line));
    if (!header.success) throw notASession(this.file);
    const warnings: string[] = [];
    if (header.data.v > FORMAT_VERSION) {
      warnings.push(`${this.file} was written by a newer SCV (format ${header.data.v}); records this version does not know are skipped`);
    }
    this.loaded = {
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
      completeBytes: 0,
    };
  }

  finish(completeBytes: number): LoadedSession {
    const loaded = this.loaded;
    if (!loaded) throw notASession(this.file);
    loaded.completeBytes = completeBytes;
    this.dropTurns(new Set(loaded.turns.filter((t) => t.ended_at === undefined).map((t) => t.turn_id)));
    loaded.history = this.replay.map((e) => e.item);
    loaded.conversations = [...this.conversations.values()];
    loaded.jobs = [...this.jobs.values()];
    return loaded;
  }

  private record(line: string, i: number, loaded: LoadedSession): void {
    const { file, turns, conversations, jobs, replay } = this;
    const warnings = loaded.warnings;
    const raw = safeJson(line);
    if (isItemRecord(raw)) {
      // Items are most of a file and opaque here: checked by hand, which keeps loading fast (bench/sessions.ts).
      loaded.lastActivity = Math.max(loaded.lastActivity, raw.at);
      replay.push({ turn: raw.turn, item: raw.item });
      if (raw.turn) turns.get(raw.turn)?.items.push(raw.item);
      return;
    }
    const parsed = raw === undefined ? undefined : SessionRecord.safeParse(raw);
    if (!parsed?.success) {
      warnings.push(`${file}: skipped record ${i + 1}, which is ${raw === undefined ? "not valid JSON" : "not a record this SCV knows"}`);
      return;
    }
    const r = parsed.data;
    loaded.lastActivity = Math.max(loaded.lastActivity, r.at);
    switch (r.type) {
      case "resumed":
        loaded.model = r.model;
        loaded.provider = r.provider;
        break;
      case "call": {
        const turn = turns.get(r.turn);
        if (!turn) break;
        const { type: _type, at: _at, turn: _turn, ...call } = r;
        (turn.calls ??= []).push(call);
        break;
      }
      case "configured":
        loaded.model = r.model;
        loaded.provider = r.provider;
        if (r.reasoning_effort) loaded.reasoningEffort = r.reasoning_effort;
        else delete loaded.reasoningEffort;
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
        if (r.status === "interrupted") this.dropTurns(new Set([r.turn]));
        break;
      }
      case "compacted": {
        const record: StoredCompaction = { at: r.at, turn: r.turn, summary: r.summary, replaced: r.replaced };
        loaded.compactions.push(record);
        const originals = replay.slice(r.start, r.start + r.replaced.length);
        if (originals.length !== r.replaced.length || originals.some((e, k) => JSON.stringify(e.item) !== JSON.stringify(r.replaced[k]))) {
          warnings.push(`${file}: a compaction record does not match the history before it; kept the history uncompacted`);
          break;
        }
        // The turns the summary stands for: those of the items it replaced (an earlier summary's included) and the one it was made in.
        const covers = new Set<string>(originals.flatMap((e) => e.covers ?? (e.turn ? [e.turn] : [])));
        if (r.turn) covers.add(r.turn);
        const summary = r.summary.map((item) => ({ ...(r.turn ? { turn: r.turn } : {}), item, covers: [...covers] }));
        replay.splice(r.start, r.replaced.length, ...summary);
        this.applied.push({ record, summary, originals, covers });
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
      case "goal":
        loaded.goal = { turn: r.turn, check: r.check, budget: r.budget };
        break;
      case "goal_ended":
        delete loaded.goal;
        break;
      case "job_finished": {
        const { type: _t, at: _a, ...job } = r;
        jobs.set(r.job, job);
        break;
      }
      case "usage":
        break; // the usage ledger's (src/ledger); nothing to restore
      case "rewound": {
        // The turns after the named one leave the replayed history and the turn list (a resume shows the rewound conversation).
        const keep = handleNumber(r.turn, "t");
        const gone = loaded.turns.filter((t) => handleNumber(t.turn_id, "t") > keep);
        this.dropTurns(new Set(gone.map((t) => t.turn_id)));
        loaded.turns = loaded.turns.filter((t) => handleNumber(t.turn_id, "t") <= keep);
        for (const t of gone) turns.delete(t.turn_id);
        break;
      }
    }
  }

  /**
   * Takes turns' items out of the replayed history. Every compaction that stands for one of them is undone first,
   * newest first (its summary leaves, the items it replaced come back), so no summary of a dropped turn stays.
   */
  private dropTurns(turns: Set<string>): void {
    if (turns.size === 0) return;
    for (let i = this.applied.length - 1; i >= 0; i--) {
      const c = this.applied[i]!;
      if (![...c.covers].some((t) => turns.has(t))) continue;
      this.applied.splice(i, 1);
      const at = this.replay.indexOf(c.summary[0]!);
      if (at !== -1 && c.summary.every((e, k) => this.replay[at + k] === e)) this.replay.splice(at, c.summary.length, ...c.originals);
      const listed = this.loaded?.compactions.indexOf(c.record) ?? -1;
      if (listed !== -1) this.loaded!.compactions.splice(listed, 1);
    }
    dropTurnItems(this.replay, turns);
  }
}

/** A replayed history item: the turn that added it; a compaction summary's also the turns it stands for. */
interface ReplayEntry {
  turn?: string;
  item: StoredItem;
  covers?: string[];
}

interface AppliedCompaction {
  record: StoredCompaction;
  summary: ReplayEntry[];
  originals: ReplayEntry[];
  covers: Set<string>;
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
