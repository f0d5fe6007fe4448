// A ledger entry: what one model request of SCV's own loop or one delegated call spent, with who asked for it.
// No prompt, no reply: only counts and names.

export type EntryKind = "model" | "agent";

export interface LedgerEntry {
  session: string;
  /** The entry's own ID (also in the session file's usage record), so it is counted once however it arrives. */
  entry: string;
  at: number;
  kind: EntryKind;
  /** terminal, exec, chat, client, background, schedule (see originOf). */
  origin: string;
  /** The chat conversation a chat session serves (`kind:account:conversation`). */
  conversation?: string;
  turn?: string;
  provider?: string;
  agent?: string;
  model?: string;
  transport?: string;
  input: number;
  cached: number;
  output: number;
  reasoning: number;
  /** Part of input written to a prompt cache (Anthropic), and of that the part kept an hour. */
  cacheWrite?: number;
  cacheWrite1h?: number;
}

/** Names the protocol client a session came from by the client name it gave in `initialize`. */
export function clientOrigin(clientName: string | undefined, channel: boolean): string {
  if (channel) return "chat";
  if (clientName === "scv-exec") return "exec";
  if (clientName === "scv-tui") return "terminal";
  if (clientName === "scv-chat-bridge") return "chat";
  if (clientName === "scv-schedules") return "schedule"; // a terminal-made schedule's fire (channels/schedule-service.ts)
  return "client";
}

/** A turn's origin in the ledger: a user's turn counts for its session's client, others (job reports, schedules) by their kind. */
export function turnOrigin(turnKind: string, sessionOrigin: string): string {
  return turnKind === "user" ? sessionOrigin : turnKind;
}

/** One key per chat conversation, for per-conversation limits. */
export function conversationKey(channel: { kind?: unknown; account?: unknown; conversation?: unknown } | undefined): string | undefined {
  if (!channel || typeof channel.kind !== "string") return undefined;
  return `${channel.kind}:${typeof channel.account === "string" ? channel.account : ""}:${typeof channel.conversation === "string" ? channel.conversation : ""}`;
}
