// One chat conversation as Conversations (conversations.ts) and its sibling modules hold it: its shape, where its
// log, media and durable state live, the session its state names after a restart, and where chat sessions run.
// The options and the channel a conversation belongs to are typed here too, so every sibling reads one shape.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ChatLog } from "../../chatlog/log";
import { conversationDirName, conversationLogDir, conversationMediaDir } from "../../chatlog/paths";
import type { Config } from "../../config/schema";
import { ensurePrivateDir, writePrivateFileAtomic } from "../../fs/private-file";
import { readBoundedTextIfExists } from "../../fs/safe-read";
import type { HostedSession } from "../../server/hosted-session";
import { defaultChatWorkspace } from "../../user-home";
import type { Access } from "./access";
import type { ButtonOutcome, ChannelAdapter } from "./adapter";
import type { InboundStore, QueuedInbound } from "./inbound";
import type { LiveHub } from "./live";
import type { Outbox } from "./outbox";

export interface ChannelRuntime {
  /** `<kind>/<account>` */
  key: string;
  adapter: ChannelAdapter;
  inbound: InboundStore;
}

export interface Conversation {
  channel: ChannelRuntime;
  /** The platform's conversation ID (replies go there). */
  id: string;
  /** A direct chat; a group conversation with the same ID is another conversation. */
  direct: boolean;
  /** The access the current session (if any) was opened for. */
  access?: Access;
  log: ChatLog;
  mediaDir: string;
  stateFile: string;
  session?: HostedSession;
  /** Sessions ended by /new whose background jobs still run; closed once those are reported. */
  retired: HostedSession[];
  /** The queued message whose turn runs now, and its reply so far (streamed to adapters that show drafts). */
  running?: { record: QueuedInbound; sessionId: string; draft?: string };
  pumping: boolean;
  /** When a message last came in or a turn last ended (ms): an idle session is closed after session_idle_seconds. */
  lastActive: number;
  /** An idle session being closed: the next message waits for it, then resumes the session. */
  closing?: Promise<void>;
  /** The model's open question (clarify) to the owner: their next message answers it. */
  question?: { sessionId: string; clarifyId: string; choices: string[] };
  /** Approval cards waiting for a button, by card token (adapters with buttons and approvals "ask"). */
  cards: Map<string, { sessionId: string; answer(a: { approved: boolean; always?: boolean }): Promise<void> }>;
}

export interface ConversationOptions {
  scvHome: string;
  config: Config;
  env: NodeJS.ProcessEnv;
  outbox: Outbox;
  log(line: string): void;
  /** Where a watcher (the web page) sees the sessions' turns and answers approvals, when one is served. */
  live?: LiveHub;
  /** A short reply answering an approval card of another session (`y 3f2`): what to say back, else undefined. */
  cardReply?(who: { channel: string; from: string; owner: boolean }, text: string): string | undefined;
  /** A button pressed on such a card (data `w:<id>:y|a|n`). */
  cardPress?(who: { channel: string; from: string; owner: boolean }, data: string): ButtonOutcome | undefined;
  /** A schedule's fire queued here ended: answered (its reply is in the outbox), failed, or interrupted by a restart. */
  scheduleSettled?(fireId: string, outcome: "answered" | "failed" | "interrupted", note?: string, reply?: string): void;
  /** A conversation's own limit refused a message (the user's BudgetReached hooks). */
  budgetReached?(input: { message: string; channel: string; conversation: string }): void;
}

/** A schedule's fire as a turn of the owner's conversation (src/schedules). */
export interface ScheduledTurn {
  /** The fire's ID: the turn is queued at most once per ID, also across restarts. */
  id: string;
  schedule: string;
  prompt: string;
  /** What the chat log records in place of the prompt. */
  label: string;
  /** Put before the reply, so the owner reads which reminder it answers: `[SCV schedule sch-… “stretch”]`. */
  heading: string;
}

/** A conversation seen for the first time in this process: its log, media and state file found or made. */
export function newConversation(channel: ChannelRuntime, id: string, direct: boolean, opts: Pick<ConversationOptions, "config" | "scvHome">): Conversation {
  // A group's log, media and state live apart from a direct chat with the same ID.
  const place = { kind: channel.adapter.kind, account: channel.adapter.account, conversation: direct ? id : `group\u0000${id}` };
  const stateDir = join(channel.inbound.dir, "conversations");
  ensurePrivateDir(stateDir);
  return {
    channel,
    id,
    direct,
    log: new ChatLog(conversationLogDir(opts.config, opts.scvHome, place)),
    mediaDir: conversationMediaDir(opts.scvHome, place),
    stateFile: join(stateDir, `${conversationDirName(place.conversation)}.json`),
    retired: [],
    cards: new Map(),
    pumping: false,
    lastActive: Date.now(),
  };
}

/** The session a conversation had before a restart, and the access it was opened for, from its durable state. */
export function storedSession(conv: Conversation): { id: string; access: Access } | undefined {
  try {
    const raw = readBoundedTextIfExists(conv.stateFile, { what: "conversation state", maxBytes: 64 * 1024, followSymlink: false });
    const state = raw ? (JSON.parse(raw) as { session_id?: string; owner?: boolean; owner_key?: string }) : undefined;
    if (!state?.session_id) return undefined;
    return { id: state.session_id, access: { owner: state.owner === true, ownerKey: state.owner_key ?? "" } };
  } catch {
    return undefined;
  }
}

/** Records the session the conversation now has, so a restart resumes it (storedSession). */
export function saveSession(conv: Conversation, sessionId: string, access: Access): void {
  writePrivateFileAtomic(conv.stateFile, JSON.stringify({ conversation: conv.id, session_id: sessionId, owner: access.owner, owner_key: access.ownerKey, started: new Date().toISOString() }));
}

/** Records that the conversation's episode ended (/new): the next session starts fresh, also after a restart. */
export function saveRetired(conv: Conversation, sessionId: string): void {
  writePrivateFileAtomic(conv.stateFile, JSON.stringify({ conversation: conv.id, retired: sessionId }));
}

/** Where chat sessions run: `[channels] workspace`, else a private folder of SCV's own. */
export function chatWorkspace(opts: Pick<ConversationOptions, "config" | "env">): string {
  const set = opts.config.channels.workspace;
  if (set) return set;
  const own = defaultChatWorkspace(opts.env);
  mkdirSync(own, { recursive: true, mode: 0o700 });
  return own;
}
