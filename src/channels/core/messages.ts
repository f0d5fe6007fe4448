// What the bridge says in a chat: the prompt a queued message becomes, a turn's reply text, and the bridge's own
// notices (interrupted turns, stopped jobs, commands, files left out). Pure text, so the wording lives in one place.
import type { HostedSession } from "../../server/hosted-session";
import { cutUtf8, ellipsize } from "../../text/cut";
import type { InboundMessage } from "./adapter";
import type { QueuedInbound } from "./inbound";
import { ImageError, imageRef } from "../../provider/images";

export interface TurnEnd {
  status: "completed" | "failed" | "cancelled";
  reply: string;
  /** `class` says what failed (`limit`: a spending limit stopped the turn). */
  error?: { message: string; class?: string };
  origin?: { kind: string; jobs?: string[] };
}

export function replyId(record: QueuedInbound): string {
  return `r-${record.seq}`;
}

/**
 * The saved files of a message that go to the model as images: those that are images within the limits, when the
 * session's model takes images. The prompt names every file either way (promptFor); `notes` say why an image is
 * not shown, so the model can tell the person.
 */
export function inboundImages(record: QueuedInbound, session: HostedSession): { images: string[]; notes: string[] } {
  const images: string[] = [];
  const notes: string[] = [];
  for (const f of record.files) {
    if (!f.path) continue;
    let ref;
    try {
      ref = imageRef(f.path);
    } catch (e) {
      if (e instanceof ImageError && !/not a PNG, JPEG, GIF or WebP/.test(e.message)) notes.push(`[image ${f.name} is not shown to you: ${e.message}]`);
      continue;
    }
    if (session.images?.accepted) images.push(ref.path);
    else notes.push(`[image ${f.name} is not shown to you: ${session.images?.reason ?? "this model does not take images"}]`);
  }
  return { images, notes };
}

export function promptFor(record: QueuedInbound, notes: string[] = []): string {
  const parts = [record.text];
  if (record.quote) parts.push(`[quoting: ${record.quote}]`);
  const v = record.voice;
  if (v?.done === "text" && record.transcript) parts.push(`[voice message${seconds(v.seconds)}, transcribed by SCV (it may mishear): ${record.transcript}]`);
  else if (record.transcript) parts.push(`[voice message transcript: ${record.transcript}]`);
  else if (v) {
    const why = v.done === "failed" ? `turning it into text failed: ${v.error ?? "unknown reason"}` : "no [transcription] is configured, so it was not turned into text";
    parts.push(`[a voice message${seconds(v.seconds)} arrived without text: ${why}; the audio file is saved]`);
  }
  for (const f of record.files) {
    parts.push(f.path ? `[file from the user: ${f.path}]` : `[file ${f.name} could not be saved: ${f.reason ?? "unknown reason"}]`);
  }
  parts.push(...notes);
  return parts.filter(Boolean).join("\n") || "(an empty message)";
}

function seconds(s: number | undefined): string {
  return s ? ` (${Math.round(s)} s)` : "";
}

/** What the person is shown of their voice message: what SCV heard, or why it could not tell. */
export function heardNotice(voice: NonNullable<QueuedInbound["voice"]>, transcript: string | undefined): string {
  if (voice.done === "text" && transcript) return `heard: “${ellipsize(transcript, 1000)}”`;
  return `[SCV could not turn your voice message into text: ${voice.error ?? "unknown reason"}. The audio is kept with the message.]`;
}

/** What someone other than the owner is told when a spending limit stops their turn: no figures, no config keys. */
export const CANNOT_ANSWER_NOW = "The assistant cannot answer right now. Please try again later.";

/**
 * A turn's reply as its conversation gets it: someone other than the owner stopped by a spending limit gets only
 * CANNOT_ANSWER_NOW (the owner is told the figures, once per limit and period); a schedule's fire leads with
 * its heading, the reminder's own words.
 */
export function replyFor(end: TurnEnd, owner: boolean, heading?: string): string {
  if (!owner && end.status === "failed" && end.error?.class === "limit") return CANNOT_ANSWER_NOW;
  return heading ? `${heading}\n\n${replyText(end)}` : replyText(end);
}

export function replyText(end: TurnEnd): string {
  if (end.status === "cancelled") return end.reply ? `${end.reply}\n\n[stopped]` : "Stopped. Background jobs keep running; /jobs lists them.";
  if (end.status === "failed") return `${end.reply ? `${end.reply}\n\n` : ""}[SCV: this turn failed: ${end.error?.message ?? "unknown error"}]`;
  return end.reply || "(no answer)";
}

export function interruptedNotice(record: QueuedInbound): string {
  if (record.scheduled) return `SCV was restarted while it ran schedule ${record.scheduled}, so that fire was interrupted and has not been run again.`;
  return `SCV was restarted while it worked on your message “${ellipsize(record.text, 120)}”, so that turn was interrupted and has not been run again. Send it again if you still want it.`;
}

export function stoppedJobsNotice(jobs: { job: string; agent: string }[]): string {
  const names = jobs.map((j) => `${j.job} (${j.agent})`).join(", ");
  const one = jobs.length === 1;
  return `SCV stopped before ${one ? "this background job" : "these background jobs"} finished: ${names}. ${one ? "It was" : "They were"} not completed; ask again if you still need it.`;
}

export function jobsListing(sessions: (HostedSession | undefined)[]): string {
  const lines: string[] = [];
  for (const s of sessions) {
    const jobs = s?.jobs();
    if (!jobs) continue;
    for (const j of jobs.list()) {
      const view = jobs.describe(j, false);
      lines.push(`${view.job}: ${view.agent}, ${view.status}, ${Math.round(view.elapsed_seconds)} s${view.progress ? ` (${view.progress})` : ""}`);
    }
  }
  return lines.length ? `Background jobs:\n${lines.join("\n")}` : "No background jobs in this conversation.";
}

export const ACCESS_CHANGED =
  "This chat's access changed (the account's owner is someone else now, or this chat became or stopped being the owner's), so SCV started a new conversation. The previous one stays in the chat log.";

export function rateLimitNotice(perMinute: number): string {
  return `You are sending messages faster than SCV answers them here (at most ${perMinute} a minute); messages over that are not answered. Wait a minute and send again.`;
}

export const NEW_CONVERSATION = "Started a new conversation. The previous one stays in the chat log.";
export const NOTHING_RUNNING = "Nothing is running in this conversation.";
export const MEMORY_OWNER_ONLY = "/memory is for the owner of this SCV, in their direct chat.";

export function failedMessageNotice(error: string): string {
  return `[SCV could not process this message: ${error}]`;
}

/** The most files one reply carries; the rest are reported as not sent. */
export const MAX_FILES_PER_REPLY = 8;

export function filesNotSentNotice(names: string[]): string {
  return `[not sent, a reply carries at most ${MAX_FILES_PER_REPLY} files: ${names.join(", ")}]`;
}

/** The most of a message's text the core queues; a longer one is cut, saying so to the model. */
export const MAX_INBOUND_TEXT_BYTES = 64 * 1024;
/** The most of a quote or a voice transcript the core queues. */
export const MAX_INBOUND_ASIDE_BYTES = 16 * 1024;

/** A message's text, quote and transcript cut to what the core queues, each cut one saying how long it was. */
export function capInbound(message: InboundMessage): InboundMessage {
  const cap = (text: string | undefined, max: number, what: string) => {
    if (text === undefined) return undefined;
    const bytes = Buffer.byteLength(text);
    if (bytes <= max) return text;
    return `${cutUtf8(text, max)}\n[SCV: ${what} was ${sizeOf(bytes)}; only its first ${sizeOf(max)} are shown]`;
  };
  const quote = cap(message.quote, MAX_INBOUND_ASIDE_BYTES, "the quoted message");
  const transcript = cap(message.transcript, MAX_INBOUND_ASIDE_BYTES, "the transcript");
  return {
    ...message,
    text: cap(message.text, MAX_INBOUND_TEXT_BYTES, "this message")!,
    ...(quote !== undefined ? { quote } : {}),
    ...(transcript !== undefined ? { transcript } : {}),
  };
}

function sizeOf(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MiB` : `${Math.round(bytes / 1024)} KiB`;
}

/** The model's question as the owner reads it in their chat: the choices numbered, and how to answer. */
export function questionText(question: string, choices: readonly string[], timeoutSeconds: number): string {
  const lines = [`SCV asks: ${question}`, ...choices.map((c, i) => `${i + 1}. ${c}`)];
  const how = choices.length ? "Reply with a number or your own answer" : "Reply with your answer";
  lines.push(`(${how}; your next message answers it. After ${Math.round(timeoutSeconds / 60)} minutes SCV goes on without one.)`);
  return lines.join("\n");
}
