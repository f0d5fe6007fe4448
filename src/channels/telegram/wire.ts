// The Telegram Bot API's JSON (https://core.telegram.org/bots/api; the shapes SCV reads are in
// docs/telegram-bot-api.md). Every answer is `{"ok":true,"result":…}` or `{"ok":false,"error_code":N,
// "description":"…","parameters":{"retry_after":S}}`. Objects are loose: Telegram adds fields freely and SCV
// reads only what it needs.
import type { z } from "zod";
import { lazySchema } from "../../lazy-schema";

export const ApiAnswer = lazySchema((z) => z.looseObject({
  ok: z.boolean(),
  result: z.unknown().optional(),
  error_code: z.number().optional(),
  description: z.string().optional(),
  parameters: z.looseObject({ retry_after: z.number().optional(), migrate_to_chat_id: z.number().optional() }).optional(),
}));

export const User = lazySchema((z) => z.looseObject({
  id: z.number(),
  is_bot: z.boolean(),
  first_name: z.string().optional(),
  username: z.string().optional(),
}));
export type User = z.infer<typeof User>;

export const Chat = lazySchema((z) => z.looseObject({
  id: z.number(),
  type: z.string(),
  title: z.string().optional(),
  username: z.string().optional(),
}));

const Entity = lazySchema((z) => z.looseObject({ type: z.string(), offset: z.number(), length: z.number(), user: User.optional() }));
const PhotoSize = lazySchema((z) => z.looseObject({ file_id: z.string(), file_unique_id: z.string(), width: z.number(), height: z.number(), file_size: z.number().optional() }));
const FileRef = lazySchema((z) => z.looseObject({
  file_id: z.string(),
  file_unique_id: z.string(),
  file_name: z.string().optional(),
  mime_type: z.string().optional(),
  file_size: z.number().optional(),
  duration: z.number().optional(),
}));
export type FileRef = z.infer<typeof FileRef>;

/** The message a message replies to: only who wrote it and its text are read (not its own reply). */
const RepliedTo = lazySchema((z) => z.looseObject({ message_id: z.number(), from: User.optional(), text: z.string().optional(), caption: z.string().optional() }));

export const Message = lazySchema((z) => z.looseObject({
  message_id: z.number(),
  from: User.optional(),
  chat: Chat,
  date: z.number(),
  text: z.string().optional(),
  caption: z.string().optional(),
  entities: z.array(Entity).optional(),
  caption_entities: z.array(Entity).optional(),
  photo: z.array(PhotoSize).optional(),
  document: FileRef.optional(),
  voice: FileRef.optional(),
  audio: FileRef.optional(),
  reply_to_message: RepliedTo.optional(),
}));
export type Message = z.infer<typeof Message>;

export const CallbackQuery = lazySchema((z) => z.looseObject({
  id: z.string(),
  from: User,
  message: Message.optional(),
  data: z.string().optional(),
}));
export type CallbackQuery = z.infer<typeof CallbackQuery>;

/** One update; `update_id` is read first on its own, so a malformed rest never loses the offset. */
export const Update = lazySchema((z) => z.looseObject({
  update_id: z.number(),
  message: Message.optional(),
  callback_query: CallbackQuery.optional(),
}));
export type Update = z.infer<typeof Update>;

export const UpdateId = lazySchema((z) => z.looseObject({ update_id: z.number() }));

export const File = lazySchema((z) => z.looseObject({ file_id: z.string(), file_size: z.number().optional(), file_path: z.string().optional() }));

export const SentMessage = lazySchema((z) => z.looseObject({ message_id: z.number() }));

/** getUpdates' result: each update is read on its own (UpdateId, then Update), so one bad update skips only itself. */
export const UpdateList = lazySchema((z) => z.array(z.unknown()));

/** A result SCV does not read (`true` from sendChatAction, answerCallbackQuery). */
export const Ignored = lazySchema((z) => z.unknown());
