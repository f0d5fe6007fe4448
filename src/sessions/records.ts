// The session file format: one JSON record per line in $SCV_HOME/state/sessions/<id>.jsonl, appended as things
// happen. The first record is the session header. History items are stored as opaque JSON objects, so new item
// kinds (reasoning, compaction summaries) need no change here. `type` is always the first key: listing and
// search pick out the records they need by that prefix without parsing every line.
// The header and record shapes are built at their first use (lazySchema): only reading a session needs them, and a
// new session (a nested SCV child's, say) should not spend start-up building them.
import type { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { PLAN_STATUSES } from "../plan/plan";

export const FORMAT_VERSION = 1;

/** Session IDs are also file names: only this shape is ever turned into a path. */
export const SESSION_ID = /^s-[a-z0-9]{1,64}$/;

/** A history item exactly as the model saw it; its kinds belong to src/provider. */
const Item = lazySchema((z) => z.looseObject({}));
const Usage = lazySchema((z) => z.object({ input_tokens: z.number(), output_tokens: z.number(), cached_input_tokens: z.number() }));
const Origin = lazySchema((z) => z.looseObject({ kind: z.string() }));

export const TURN_STATUSES = ["completed", "failed", "cancelled", "interrupted"] as const;
export type TurnStatus = (typeof TURN_STATUSES)[number];

const at = lazySchema((z) => z.number());

export const SessionHeader = lazySchema((z) => z.looseObject({
  type: z.literal("session"),
  at,
  v: z.number().int(),
  id: z.string().regex(SESSION_ID),
  workspace: z.string(),
  /** The provider profile's name, never its key. */
  provider: z.string(),
  model: z.string(),
  tools: z.boolean(),
  channel: z.looseObject({ kind: z.string() }).optional(),
}));
export type SessionHeader = z.infer<typeof SessionHeader>;

export const StoredConversation = lazySchema((z) => z.object({
  handle: z.string(),
  agent: z.string(),
  cwd: z.string(),
  cli_session_id: z.string(),
  turns: z.number().int(),
  last_used: z.number(),
  usage_total: z.object({ input_tokens: z.number(), output_tokens: z.number() }).optional(),
}));
export type StoredConversation = z.infer<typeof StoredConversation>;

export const StoredJob = lazySchema((z) => z.object({
  job: z.string(),
  agent: z.string(),
  conversation: z.string().optional(),
  status: z.string(),
  started_at: z.number(),
  finished_at: z.number().optional(),
  /** The agent call's structured result, as the model would see it. */
  result: z.looseObject({}).optional(),
}));
export type StoredJob = z.infer<typeof StoredJob>;

/**
 * What one model request of the session's own loop (`kind: "model"`) or one delegated call (`kind: "agent"`)
 * spent, as the provider or the agent reported it: the usage ledger's entries (src/ledger) come from these
 * records. `entry` identifies the record, so an entry the ledger already holds is never counted twice.
 * Never a prompt or a reply.
 */
export const UsageEntry = lazySchema((z) => z.object({
  entry: z.string(),
  kind: z.enum(["model", "agent"]),
  turn: z.string().optional(),
  /** Who asked: terminal, exec, chat, client (another protocol client), background (a job report), schedule. */
  origin: z.string(),
  provider: z.string().optional(),
  agent: z.string().optional(),
  model: z.string().optional(),
  /** How a delegated call ran: `process` (one CLI process per call), `acp`, or `scv` (a nested SCV). */
  transport: z.string().optional(),
  input_tokens: z.number(),
  cached_input_tokens: z.number(),
  output_tokens: z.number(),
  reasoning_tokens: z.number(),
  /** Part of input_tokens written to a prompt cache (Anthropic), and of that the part kept an hour. */
  cache_write_tokens: z.number().optional(),
  cache_write_1h_tokens: z.number().optional(),
}));
export type UsageEntry = z.infer<typeof UsageEntry>;

/** Every record after the header. Unknown types are skipped with a warning (a newer SCV wrote them). */
export const SessionRecord = lazySchema((z) => z.discriminatedUnion("type", [
  z.object({ type: z.literal("resumed"), at, provider: z.string(), model: z.string() }),
  /** A finished tool call as a person read it (`$ cargo test`, `exit 0, 1.2 s`), so a resume can show it in one line. */
  z.object({ type: z.literal("call"), at, turn: z.string(), tool: z.string(), label: z.string(), display: z.string().optional(), ok: z.boolean(), denied: z.boolean().optional(),
    // What a replay shows beyond the label (sessions/call-detail.ts): the tool's kind, the file and its diff, or the output's first lines.
    kind: z.string().optional(), path: z.string().optional(), diff: z.string().optional(), output: z.string().optional() }),
  /** The model, provider profile or reasoning effort switched mid-session (session.configure), from the next turn on. */
  z.object({ type: z.literal("configured"), at, provider: z.string(), model: z.string(), reasoning_effort: z.string().optional() }),
  z.object({ type: z.literal("turn"), at, turn: z.string(), prompt: z.string(), origin: Origin }),
  z.object({ type: z.literal("item"), at, turn: z.string().optional(), item: Item }),
  z.object({
    type: z.literal("turn_ended"),
    at,
    turn: z.string(),
    status: z.enum(TURN_STATUSES),
    reply: z.string(),
    usage: Usage,
    error: z.object({ class: z.string(), message: z.string() }).optional(),
  }),
  /**
   * A compaction: `summary` replaced `replaced.length` history items starting at `start`; the originals are
   * kept so a transcript can show them and the replay can check it still matches.
   */
  z.object({ type: z.literal("compacted"), at, turn: z.string().optional(), start: z.number().int().min(0), summary: z.array(Item), replaced: z.array(Item) }),
  z.object({ type: z.literal("conversation"), at, ...StoredConversation.shape }),
  z.object({ type: z.literal("conversation_ended"), at, handle: z.string() }),
  z.object({ type: z.literal("job_started"), at, job: z.string(), agent: z.string(), conversation: z.string().optional() }),
  z.object({ type: z.literal("job_finished"), at, ...StoredJob.shape }),
  /** The model's task list replaced (the plan tool); the last one is the session's plan. */
  z.object({ type: z.literal("plan"), at, items: z.array(z.object({ text: z.string(), status: z.enum(PLAN_STATUSES) })) }),
  z.object({ type: z.literal("usage"), at, ...UsageEntry.shape }),
  /**
   * The conversation was rewound (/rewind): the turns after `turn` (all of them for `t0`) leave the history the
   * model sees from here on. They stay in the file above this record; nothing is deleted.
   */
  z.object({ type: z.literal("rewound"), at, turn: z.string() }),
  /** A goal began with `turn` (turn.start `goal`): its check and budget. Open until a `goal_ended`, so a resume continues it. */
  z.object({
    type: z.literal("goal"),
    at,
    turn: z.string(),
    check: z.string(),
    budget: z.object({ max_attempts: z.number().int(), max_tokens: z.number().int(), max_seconds: z.number().int(), check_timeout_seconds: z.number().int(), repeat_limit: z.number().int() }),
  }),
  z.object({ type: z.literal("goal_ended"), at, turn: z.string().optional(), status: z.string(), reason: z.string(), attempts: z.number().int() }),
]));
export type SessionRecord = z.infer<typeof SessionRecord>;

type WithoutAt<T> = T extends unknown ? Omit<T, "at"> : never;
/** What a writer appends; the time is added when it is written. */
export type RecordInput = WithoutAt<SessionRecord>;
