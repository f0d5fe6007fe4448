// What Conversations says leaves through the outbox, durably, and is written to the conversation's chat log: a
// reply (with its files, at most MAX_FILES_PER_REPLY, the rest named as not sent), and a notice for the owner
// in each channel's direct chat with them.
import type { LoggedFile, LoggedTool } from "../../chatlog/log";
import type { Button, OutboundFile } from "./adapter";
import type { ChannelRuntime, Conversation } from "./conversation";
import type { QueuedInbound } from "./inbound";
import { filesNotSentNotice, MAX_FILES_PER_REPLY, replyId } from "./messages";
import type { Outbox } from "./outbox";
import type { Attachment } from "./sessions";

/** Queues a message in the outbox (and the log). `record` is the message it answers, if any. */
export function reply(outbox: Outbox, conv: Conversation, record: QueuedInbound | undefined, text: string, attachments: Attachment[], author: "scv" | "system" = "scv", buttons: Button[][] = [], tools: LoggedTool[] = []): void {
  const sent = attachments.slice(0, MAX_FILES_PER_REPLY);
  const dropped = attachments.slice(MAX_FILES_PER_REPLY);
  const captions = sent.filter((a) => a.caption).map((a) => `${a.name}: ${a.caption}`);
  const notSent = dropped.length ? [filesNotSentNotice(dropped.map((a) => a.name))] : [];
  for (const a of dropped) outbox.discard(a.path);
  const body = [text, ...captions, ...notSent].filter(Boolean).join("\n\n");
  const files: OutboundFile[] = sent.map((a) => ({ path: a.path, name: a.name }));
  outbox.add({
    ...(record ? { id: replyId(record) } : {}),
    channel: conv.channel.key,
    conversation: conv.id,
    text: body,
    files,
    ...(record && !record.scheduled ? { inReplyTo: record.id } : {}),
    ...(buttons.length ? { buttons } : {}),
  });
  const logged: LoggedFile[] = sent.map((a) => ({ name: a.name, state: "sent" }));
  conv.log.add({ author, text: body, ...(logged.length ? { files: logged } : {}), ...(tools.length ? { tools } : {}) });
}

/** A notice for the owner, in each channel's direct chat with them (a channel without an owner has none). */
export function tellOwner(outbox: Outbox, channels: Iterable<ChannelRuntime>, text: string): void {
  for (const channel of channels) {
    const conversation = channel.adapter.ownerConversation();
    if (!conversation) continue;
    outbox.add({ channel: channel.key, conversation, text });
  }
}
