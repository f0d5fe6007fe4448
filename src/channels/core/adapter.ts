// The adapter contract: what one chat platform gives the channel-independent core, and what the core gives it.
// An adapter only moves messages; dedupe, queues, the outbox, retries, sessions and the log live in the core.

/** A file that arrived with a message: the adapter fetched it to `path` (or could not, with `error`). */
export interface InboundFile {
  name: string;
  /** A local file the core copies into the conversation's media directory; absent when it could not be fetched. */
  path?: string;
  error?: string;
  /** The folder the file must really lie in (checked on the opened file): a sender-named path's channel folder. */
  within?: string;
  /** A voice message or audio file without the platform's transcript: [transcription] turns it into text. */
  voice?: { seconds?: number };
}

export interface InboundMessage {
  /** The platform's message ID: deduplication keys on it, across restarts. */
  id: string;
  /** The platform's conversation (chat) ID; replies go there. */
  conversation: string;
  /** The platform's sender ID; compared with the adapter's owner. */
  from: string;
  /** A one-to-one chat with the account (only the owner's direct chat gets tools). */
  direct: boolean;
  text: string;
  files: InboundFile[];
  /** Text of the message this one quoted, if the platform says. */
  quote?: string;
  /** A voice message's transcript, if the platform gives one. */
  transcript?: string;
  /** A button the person pressed (its `data`): answers the card it was on, never becomes a prompt. */
  answers?: string;
}

/** A button on a card (an approval, the model's question): `data` comes back in InboundMessage.answers. */
export interface Button {
  label: string;
  /** At most 64 bytes (Telegram's limit for callback data). */
  data: string;
}

/**
 * What a pressed button did: what it chose; `stale`: the card no longer waits (say so on the card); `refused`:
 * the presser may not answer it (the card still waits for the owner: leave it as it is).
 */
export type ButtonOutcome = { chosen: string } | { stale: string } | { refused: string };

export interface OutboundFile {
  /** A private copy inside $SCV_HOME/state/media/outbox. */
  path: string;
  /** The name the recipient sees. */
  name: string;
}

export interface OutboundMessage {
  /** The delivery record's ID: the same on every attempt, so a platform that takes one can drop repeats. */
  idempotencyKey: string;
  conversation: string;
  text: string;
  files: OutboundFile[];
  /** The platform ID of the message this answers; absent on unprompted messages (background reports). */
  inReplyTo?: string;
  /** Rows of buttons under the message (adapters with `buttons`); the text says how to answer without them. */
  buttons?: Button[][];
}

/**
 * What a send achieved. `retry`: it may work later (network, rate limit). `refused`: it never will (the
 * platform rejected it). `held`: keep it in the outbox until `release` (a reply budget used up, a stale
 * token); the conversation's later messages wait behind it.
 */
export type SendResult =
  | { status: "sent" }
  | { status: "retry"; error: string }
  | { status: "refused"; error: string }
  | { status: "held"; reason: string };

export type ChannelState =
  /** `reason`: why it is not connected yet (the last network failure, while the adapter retries). */
  | { state: "connecting"; reason?: string }
  | { state: "connected" }
  /** Reachable but not usable until something changes (a stale token, a platform limit). */
  | { state: "paused"; reason: string }
  | { state: "logged_out"; reason: string }
  | { state: "stopped" };

export interface AdapterContext {
  /**
   * Hands an inbound message to the core. Resolves once it is durably queued (or known as a duplicate); only
   * then may the adapter acknowledge it to the platform (or delete it from its source).
   */
  receive(message: InboundMessage): Promise<ButtonOutcome | void>;
  setState(state: ChannelState): void;
  /** Held messages of this conversation may be sent again (the owner wrote, a token was refreshed). */
  release(conversation?: string): void;
  log(line: string): void;
}

export interface ChannelAdapter {
  /** The platform, as in [channels.<kind>]: "dir", "wechat", "feishu". */
  readonly kind: string;
  /** The account on that platform (one adapter per configured account). */
  readonly account: string;
  /** The owner's platform user ID: their direct chat gets tools and auto-approval. */
  readonly owner: string;
  /** How to set the owner, shown by `scv channels list|status` while `owner` is empty (every chat tool-free). */
  readonly ownerHint?: string;
  /**
   * Set where the owner comes from a stored login, not from config (WeChat): `scv channels list|status` then
   * say whether the account is logged in, and this command to log in, instead of showing the owner's ID.
   */
  readonly loginCommand?: string;
  /** What `scv channels list` shows after the owner, such as where a dir channel's files are. */
  readonly where?: string;
  /**
   * `ask`: the owner's session asks the person for approvals (the web page shows the card) instead of approving
   * unasked as an owner's chat does; default unasked.
   */
  readonly approvals?: "ask";
  /**
   * The platform shows buttons (OutboundMessage.buttons) and reports presses (InboundMessage.answers): the
   * model's questions get their choices as buttons, and with `approvals: "ask"` approvals are cards in the chat.
   */
  readonly buttons?: boolean;
  /** The owner's direct conversation, where failures and interrupted turns are reported. */
  ownerConversation(): string;
  /** Receives until `signal` aborts; resolves then. A thrown error is logged and the core reconnects with backoff. */
  connect(ctx: AdapterContext, signal: AbortSignal): Promise<void>;
  send(message: OutboundMessage): Promise<SendResult>;
  /** Shows or clears "typing…" where the platform has it. */
  typing?(conversation: string, on: boolean): Promise<void>;
  /**
   * The reply so far of the turn answering `inReplyTo`, while it streams (the text of the model's current step;
   * it starts over after a tool call). Best effort and not durable: the finished reply still comes through
   * `send` with the same `inReplyTo`, and the adapter may turn its draft into that reply.
   */
  draft?(d: { conversation: string; inReplyTo: string; text: string }): void;
}
