// A session's usage recorder (SessionScope.usage): each model request of its loop and each delegated call
// becomes a `usage` record in the session file (the source of truth) and a ledger entry (written at once when
// the index is free, else later). It also answers whether a limit stops the next turn or step.
import { randomHex } from "../digest";
import type { Config } from "../config/schema";
import type { SessionRecorder } from "../sessions/index";
import type { UsageRecorder } from "../scope";
import { conversationKey, type LedgerEntry, turnOrigin } from "./entries";
import type { Ledger } from "./ledger";
import { localTime } from "./usage";

export interface RecorderOptions {
  ledger: Ledger;
  sessionId: string;
  /** The session file's writer, when the session is stored. */
  journal?: Pick<SessionRecorder, "append">;
  /** The session's client: terminal, exec, chat, client. */
  origin: string;
  provider: string;
  model: string;
  channel?: { kind: string; account?: string; conversation?: string };
  config: Pick<Config, "prices" | "limits">;
  /** `scv exec --over-budget`: this session goes over the limits. */
  overBudget?: boolean;
  /** Called once per limit and period, the first time any process refuses for it (tell the owner). */
  onLimit?(message: string): void;
  /**
   * Leave the index to the next reader, which catches up from the session file (`scv exec`: opening the index
   * would cost a short run more than its turn), unless this process has it open anyway.
   */
  indexLater?: boolean;
}

export function createUsageRecorder(o: RecorderOptions): UsageRecorder {
  let turn: { id: string; kind: string } | undefined;
  const conversation = conversationKey(o.channel);
  const write = (fields: Omit<LedgerEntry, "session" | "entry" | "at" | "origin" | "turn" | "conversation">) => {
    const entry: LedgerEntry = {
      session: o.sessionId,
      entry: `u-${randomHex(4)}`,
      at: Date.now(),
      origin: turnOrigin(turn?.kind ?? "user", o.origin),
      ...(turn ? { turn: turn.id } : {}),
      ...(conversation ? { conversation } : {}),
      ...fields,
    };
    o.journal?.append({
      type: "usage",
      entry: entry.entry,
      kind: entry.kind,
      ...(entry.turn ? { turn: entry.turn } : {}),
      origin: entry.origin,
      ...(entry.provider ? { provider: entry.provider } : {}),
      ...(entry.agent ? { agent: entry.agent } : {}),
      ...(entry.model ? { model: entry.model } : {}),
      ...(entry.transport ? { transport: entry.transport } : {}),
      input_tokens: entry.input,
      cached_input_tokens: entry.cached,
      output_tokens: entry.output,
      reasoning_tokens: entry.reasoning,
      ...(entry.cacheWrite ? { cache_write_tokens: entry.cacheWrite } : {}),
      ...(entry.cacheWrite1h ? { cache_write_1h_tokens: entry.cacheWrite1h } : {}),
    });
    if (indexNow()) o.ledger.record(entry);
  };
  // Without a session file the ledger is the only record, so it is written at once.
  const indexNow = () => !o.indexLater || !o.journal || o.ledger.isOpen();
  return {
    setTurn(t) {
      turn = t;
    },
    model(u) {
      const writes = { ...(u.cache_write_tokens ? { cacheWrite: u.cache_write_tokens } : {}), ...(u.cache_write_1h_tokens ? { cacheWrite1h: u.cache_write_1h_tokens } : {}) };
      write({ kind: "model", provider: o.provider, model: o.model, input: u.input_tokens, cached: u.cached_input_tokens, output: u.output_tokens, reasoning: u.reasoning_tokens, ...writes });
    },
    delegated(call) {
      const u = call.usage;
      write({
        kind: "agent",
        agent: call.agent,
        ...(call.model ? { model: call.model } : {}),
        transport: call.transport,
        input: u?.input_tokens ?? 0,
        cached: u?.cached_input_tokens ?? 0,
        output: u?.output_tokens ?? 0,
        reasoning: u?.reasoning_tokens ?? 0,
      });
    },
    written() {
      if (o.journal && indexNow()) o.ledger.touched(o.sessionId);
    },
    async refusal() {
      if (o.overBudget) return undefined;
      let reached;
      try {
        reached = await o.ledger.limitReached(o.config);
      } catch {
        return undefined; // an index that cannot be read never stops a turn
      }
      if (!reached) return undefined;
      if (o.onLimit && (await o.ledger.firstNotice(`${reached.key}@${localTime(reached.resetsAt)}`).catch(() => false))) o.onLimit(reached.message);
      return reached.message;
    },
  };
}
