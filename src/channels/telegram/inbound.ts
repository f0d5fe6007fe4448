// A Telegram message as the core reads it: who wrote it where, whether a group message is meant for the bot
// (a mention of it, a reply to it, a command addressed to it), its text without that mention, and the files
// to fetch (the largest photo size, a document, a voice note, an audio file).
import type { FileRef, Message, User } from "./wire";

export interface Bot {
  id: number;
  username: string;
}

export interface FileToFetch {
  fileId: string;
  name: string;
  size?: number;
  kind: "photo" | "document" | "voice" | "audio";
  duration?: number;
}

export interface ReadMessage {
  id: string;
  conversation: string;
  from: string;
  direct: boolean;
  text: string;
  quote?: string;
  files: FileToFetch[];
}

/** The platform ID the core dedupes on and replies to: message IDs are unique per chat only. */
export function messageKey(chatId: number, messageId: number): string {
  return `${chatId}:${messageId}`;
}

/** The Telegram message ID inside a key made by messageKey. */
export function messageIdOf(key: string | undefined): number | undefined {
  const m = /^-?\d+:(\d+)$/.exec(key ?? "");
  return m ? Number(m[1]) : undefined;
}

const GROUPS = new Set(["group", "supergroup"]);

/** Whether a group message is for the bot: it names it, replies to it, or is a command addressed to it. */
export function addressedTo(bot: Bot, m: Message): boolean {
  if (m.reply_to_message?.from?.id === bot.id) return true;
  const text = m.text ?? m.caption ?? "";
  const entities = m.entities ?? m.caption_entities ?? [];
  const handle = `@${bot.username}`.toLowerCase();
  for (const e of entities) {
    const part = text.slice(e.offset, e.offset + e.length); // offsets count UTF-16 code units, as JavaScript does
    if (e.type === "mention" && part.toLowerCase() === handle) return true;
    if (e.type === "text_mention" && e.user?.id === bot.id) return true;
    if (e.type === "bot_command" && part.toLowerCase().endsWith(handle)) return true;
  }
  return false;
}

/** The bot's own handle taken out of a group message, and `/cmd@bot` made `/cmd`. */
function withoutHandle(text: string, bot: Bot): string {
  const handle = new RegExp(`@${bot.username.replace(/[^\w]/g, "")}\\b`, "gi");
  return text.replace(handle, "").replace(/[ \t]{2,}/g, " ").trim();
}

function fileOf(kind: FileToFetch["kind"], f: FileRef, fallback: string): FileToFetch {
  return { fileId: f.file_id, name: f.file_name || fallback, kind, ...(f.file_size ? { size: f.file_size } : {}), ...(f.duration ? { duration: f.duration } : {}) };
}

function extension(mime: string | undefined, fallback: string): string {
  const known: Record<string, string> = { "audio/ogg": "ogg", "audio/mpeg": "mp3", "audio/mp4": "m4a", "audio/x-wav": "wav", "audio/wav": "wav", "audio/webm": "webm" };
  return (mime && known[mime]) || fallback;
}

/**
 * What the core reads of a message, or why it is not taken (`skip`): a bot's message, a chat type SCV does not
 * serve, a group message not meant for the bot.
 */
export function readMessage(bot: Bot, m: Message): ReadMessage | { skip: string } {
  const from: User | undefined = m.from;
  if (!from) return { skip: "a message without a sender" };
  if (from.is_bot) return { skip: "a message from a bot" };
  const direct = m.chat.type === "private";
  if (!direct && !GROUPS.has(m.chat.type)) return { skip: `a message in a ${m.chat.type} chat, which SCV does not serve` };
  if (!direct && !addressedTo(bot, m)) return { skip: "a group message not addressed to the bot" };
  const files: FileToFetch[] = [];
  const largest = m.photo?.length ? [...m.photo].sort((a, b) => a.width * a.height - b.width * b.height).at(-1) : undefined;
  if (largest) files.push({ fileId: largest.file_id, name: `photo-${m.message_id}.jpg`, kind: "photo", ...(largest.file_size ? { size: largest.file_size } : {}) });
  if (m.document) files.push(fileOf("document", m.document, `document-${m.message_id}`));
  if (m.voice) files.push(fileOf("voice", m.voice, `voice-${m.message_id}.${extension(m.voice.mime_type, "ogg")}`));
  if (m.audio) files.push(fileOf("audio", m.audio, `audio-${m.message_id}.${extension(m.audio.mime_type, "mp3")}`));
  const raw = m.text ?? m.caption ?? "";
  const text = direct ? raw : withoutHandle(raw, bot);
  const replied = m.reply_to_message;
  const quote = replied ? (replied.text ?? replied.caption) : undefined;
  return {
    id: messageKey(m.chat.id, m.message_id),
    conversation: String(m.chat.id),
    from: String(from.id),
    direct,
    text,
    ...(quote ? { quote: quote.slice(0, 2000) } : {}),
    files,
  };
}

/** The `/start CODE` of a pairing, in a direct chat: the code, or undefined for any other message. */
export function pairingCode(m: Message): string | undefined {
  if (m.chat.type !== "private") return undefined;
  const match = /^\/start(?:@\w+)?\s+([A-Za-z0-9]{4,32})\s*$/.exec(m.text ?? "");
  return match?.[1];
}
