// The iLink bot API's JSON (Tencent's WeChat ClawBot; see docs/channels.md and the protocol notes in
// shared/reference/channels-openclaw.md §1). Responses are loose objects: the platform adds fields freely,
// and SCV reads only what it needs. Every request SCV sends is built from these shapes.
import type { z } from "zod";
import { lazySchema } from "../../lazy-schema";

// The default API and CDN hosts are the defaults of [channels.wechat] in src/config/schema.ts.

/** errcode/ret for a stale or expired bot token: the owner has to log in again. */
export const STALE_TOKEN = -14;

export const MessageType = { USER: 1, BOT: 2 } as const;
export const MessageState = { NEW: 0, GENERATING: 1, FINISH: 2 } as const;
export const ItemType = { TEXT: 1, IMAGE: 2, VOICE: 3, FILE: 4, VIDEO: 5 } as const;
export const UploadMediaType = { IMAGE: 1, VIDEO: 2, FILE: 3 } as const;

const num = lazySchema((z) => z.union([z.number(), z.string()]).transform((v) => Number(v)));

export const CdnMedia = lazySchema((z) => z.looseObject({
  encrypt_query_param: z.string().optional(),
  /** base64 of 16 raw bytes, or of a 32-character hex string. */
  aes_key: z.string().optional(),
  encrypt_type: z.number().optional(),
  full_url: z.string().optional(),
}));
export type CdnMedia = z.infer<typeof CdnMedia>;

const TextItem = lazySchema((z) => z.looseObject({ text: z.string().optional() }));
const ImageItem = lazySchema((z) => z.looseObject({ media: CdnMedia.optional(), aeskey: z.string().optional(), url: z.string().optional(), mid_size: num.optional() }));
const VoiceItem = lazySchema((z) => z.looseObject({ media: CdnMedia.optional(), encode_type: z.number().optional(), playtime: z.number().optional(), text: z.string().optional() }));
const FileItem = lazySchema((z) => z.looseObject({ media: CdnMedia.optional(), file_name: z.string().optional(), md5: z.string().optional(), len: z.string().optional() }));
const VideoItem = lazySchema((z) => z.looseObject({ media: CdnMedia.optional(), video_size: num.optional(), play_length: z.number().optional() }));

export interface MessageItem {
  type?: number;
  msg_id?: string;
  text_item?: z.infer<typeof TextItem>;
  image_item?: z.infer<typeof ImageItem>;
  voice_item?: z.infer<typeof VoiceItem>;
  file_item?: z.infer<typeof FileItem>;
  video_item?: z.infer<typeof VideoItem>;
  ref_msg?: { message_item?: MessageItem; title?: string };
}

export const MessageItem: z.ZodType<MessageItem> = lazySchema((z) => z.looseObject({
  type: z.number().optional(),
  msg_id: z.string().optional(),
  text_item: TextItem.optional(),
  image_item: ImageItem.optional(),
  voice_item: VoiceItem.optional(),
  file_item: FileItem.optional(),
  video_item: VideoItem.optional(),
  ref_msg: z.looseObject({ message_item: z.lazy(() => MessageItem).optional(), title: z.string().optional() }).optional(),
}));

export const WeixinMessage = lazySchema((z) => z.looseObject({
  seq: z.number().optional(),
  message_id: z.union([z.number(), z.string()]).optional(),
  from_user_id: z.string().optional(),
  to_user_id: z.string().optional(),
  client_id: z.string().optional(),
  create_time_ms: z.number().optional(),
  session_id: z.string().optional(),
  group_id: z.string().optional(),
  message_type: z.number().optional(),
  message_state: z.number().optional(),
  item_list: z.array(MessageItem).default([]),
  context_token: z.string().optional(),
}));
export type WeixinMessage = z.infer<typeof WeixinMessage>;

/** Every response carries these; `ret` (or `errcode`) other than 0 is a failure. */
export const BaseResponse = lazySchema((z) => z.looseObject({ ret: z.number().optional(), errcode: z.number().optional(), errmsg: z.string().optional() }));

export const GetUpdatesResponse = lazySchema((z) => BaseResponse.extend({
  msgs: z.array(WeixinMessage).nullish().transform((v) => v ?? []),
  get_updates_buf: z.string().optional(),
  longpolling_timeout_ms: z.number().optional(),
}));

export const QrCodeResponse = lazySchema((z) => BaseResponse.extend({ qrcode: z.string().min(1), qrcode_img_content: z.string().min(1) }));

export const QrStatusResponse = lazySchema((z) => BaseResponse.extend({
  status: z.string().default("wait"),
  bot_token: z.string().optional(),
  ilink_bot_id: z.string().optional(),
  baseurl: z.string().optional(),
  ilink_user_id: z.string().optional(),
  redirect_host: z.string().optional(),
}));

export const GetConfigResponse = lazySchema((z) => BaseResponse.extend({ typing_ticket: z.string().optional() }));

export const UploadUrlResponse = lazySchema((z) => BaseResponse.extend({
  upload_param: z.string().optional(),
  upload_full_url: z.string().optional(),
}));

export const TypingStatus = { TYPING: 1, CANCEL: 2 } as const;

/** The body of `sendmessage`: one item per request. */
export interface OutgoingMessage {
  from_user_id: "";
  to_user_id: string;
  client_id: string;
  message_type: typeof MessageType.BOT;
  message_state: typeof MessageState.FINISH;
  item_list: MessageItem[];
  context_token: string;
}
