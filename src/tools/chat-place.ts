// What the chat_* tools know about the chat their session serves (from session.start `channel`).
import { conversationMediaDir, keptFilesDir } from "../chatlog/paths";
import type { SessionScope } from "../scope";

export interface ChatScope {
  kind: string;
  account: string;
  conversation: string;
  /** This conversation's chat media directory (what its users sent). */
  mediaDir: string;
  /** The chat log directory, for an owner's direct chat. */
  logDir?: string;
  keptDir?: string;
}

export function chatScope(scope: SessionScope): ChatScope | undefined {
  const ch = scope.channel;
  if (!ch?.conversation) return undefined;
  const place = { kind: ch.kind, account: ch.account ?? "default", conversation: ch.conversation };
  return {
    ...place,
    mediaDir: conversationMediaDir(scope.scvHome, place),
    ...(ch.log ? { logDir: ch.log, keptDir: keptFilesDir(ch.log) } : {}),
  };
}

/** The *Chat channel* system-prompt section for a session a chat bridge started. */
export function chatPromptSection(scope: SessionScope, toolNames: string[]): string | undefined {
  const chat = chatScope(scope);
  if (!chat) return undefined;
  const lines = [
    `## Chat channel`,
    `This session answers a chat on ${chat.kind}: every reply you write is sent to the person as a chat message, so write plain, short text that reads well on a phone; they do not see tool calls or their output, only your final answer. Messages they send while you work wait until this turn ends, so keep turns quick.`,
  ];
  if (toolNames.includes("agent")) {
    lines.push("Hand anything likely to take more than about a minute to a background job and answer at once with what you started; its result reaches the person as a separate message when you relay the [SCV background report]. They can send /jobs to list jobs, /stop to stop the running turn and /new to start a fresh conversation.");
  } else lines.push("They can send /stop to stop the running turn and /new to start a fresh conversation.");
  if (toolNames.includes("chat_attach")) lines.push("To send a file, call chat_attach once per file; it goes out after your reply text (at most 8 files a reply).");
  if (toolNames.includes("chat_history")) {
    lines.push("Earlier conversations are in the chat log: chat_history searches and reads it. Files the person sends are shown with their path and expire after a while; chat_keep keeps one for good.");
  }
  return lines.join("\n");
}
