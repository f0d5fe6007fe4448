// config.toml's `[channels.*]` and `[transcription]`: the chat platforms the daemon serves. A section of the
// one config schema (schema.ts re-exports it; docs/configuration.md describes every key).
import type { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { MAX_TIMER_SECONDS, positiveInt } from "./schema-fields";

/** `[channels.dir]`: the loopback chat channel for scripts and tests (docs/channels.md). */
export const DirChannelConfig = lazySchema((z) => z.strictObject({
  path: z.string().min(1, "must name a directory"),
  owner: z.string().min(1, "must name the owner's sender id"),
  account: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "use 1-64 letters, digits, _ and -").default("default"),
}));

/** `[channels.wechat]`: WeChat over Tencent's iLink bot API; log in with `scv channels login wechat` (docs/channels.md). */
export const WechatChannelConfig = lazySchema((z) => z.strictObject({
  enabled: z.boolean().default(true),
  base_url: z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" }).default("https://ilinkai.weixin.qq.com"),
  cdn_base_url: z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" }).default("https://novac2c.cdn.weixin.qq.com/c2c"),
  account: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "use 1-64 letters, digits, _ and -").default("default"),
  /** Proxy variables in the environment are ignored; name a proxy here if WeChat must go through one. */
  proxy: z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" }).optional(),
  /** Messages SCV sends after each of the owner's before it holds the rest (WeChat allows about 10); the last
   * one is kept for the notice that more is waiting, so at least 2. */
  reply_budget: positiveInt(100).min(2, "must be at least 2 (one message is kept to say that more is waiting)").default(10),
  /** Hours after the owner's last message that replies still get through (WeChat allows 24). */
  reply_window_hours: z.number().positive("must be greater than 0").max(24).default(23),
}));

/** `[channels.feishu]`: the Feishu / Lark bot (docs/channels.md). The secret never lives in config. */
export const FeishuChannelConfig = lazySchema((z) => z.strictObject({
  enabled: z.boolean().default(true),
  /**
   * `feishu` (open.feishu.cn), `lark` (open.larksuite.com), or a base URL (an on-premise gateway, a test
   * server); default: where `scv channels login feishu` registered the app, else feishu.
   */
  domain: z
    .string()
    .refine((d) => d === "feishu" || d === "lark" || /^https?:\/\/[^\s/]+(\/[^\s]*)?$/.test(d), "use feishu, lark, or a base URL such as https://open.example.com")
    .optional(),
  /** The app ID (cli_…); default: the one `scv channels login feishu` stored. */
  app_id: z.string().regex(/^cli_[0-9A-Za-z]{4,64}$/, "an app ID looks like cli_a1b2c3d4e5f60718").optional(),
  /** The environment variable holding the app secret; default: the secret `scv channels login feishu` stored. */
  app_secret_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "name an environment variable").optional(),
  /** The owner's open_id (ou_…): their direct chat gets tools; default: the one login recorded. */
  owner_open_id: z.string().regex(/^ou_[0-9A-Za-z]{4,64}$/, "an open_id looks like ou_…").optional(),
  account: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "use 1-64 letters, digits, _ and -").default("default"),
}));

/** `[channels.telegram]`: a Telegram bot over the Bot API's long polling (docs/channels.md). The token never lives in config. */
export const TelegramChannelConfig = lazySchema((z) => z.strictObject({
  enabled: z.boolean().default(true),
  /** The environment variable holding the bot token @BotFather gave. */
  token_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "name an environment variable").default("TELEGRAM_BOT_TOKEN"),
  /** The owner's numeric Telegram user ID; default: the one `scv channels telegram pair` recorded. */
  owner: z.string().regex(/^[1-9][0-9]{0,19}$/, "a Telegram user ID is a number such as 123456789").optional(),
  /** Users other than the owner who get answers (tool-free); empty: anyone who writes to the bot. */
  allowed_users: z.array(z.string().regex(/^[1-9][0-9]{0,19}$/, "a Telegram user ID is a number such as 123456789")).default([]),
  /** `ask`: a tool call that needs approval in the owner's chat is a card with buttons (allow once, always, deny); `auto`: approved unasked, as on the other channels. */
  approvals: z.enum(["ask", "auto"]).default("ask"),
  /** A reply still streaming after 1.5 s is shown as one message edited as it grows; false: only the finished reply is sent. */
  stream: z.boolean().default(true),
  /** The Bot API server; a self-hosted one (telegram-bot-api) or a test server. */
  base_url: z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" }).default("https://api.telegram.org"),
  /** Proxy variables in the environment are ignored; name a proxy here if Telegram must go through one. */
  proxy: z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" }).optional(),
  account: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "use 1-64 letters, digits, _ and -").default("default"),
}));
export type TelegramChannelConfig = z.infer<typeof TelegramChannelConfig>;

/**
 * `[transcription]`: voice messages turned into text on every channel (docs/channels.md): an OpenAI-compatible
 * `/audio/transcriptions` endpoint of a provider profile, or a local command that reads a file and prints text.
 */
export const TranscriptionConfig = lazySchema((z) => z.strictObject({
  /** A `[providers.<name>]` profile: its base_url (…/v1) and key are used for `<base_url>/audio/transcriptions`. */
  provider: z.string().regex(/^[A-Za-z0-9_-]+$/, "name a [providers.<name>] profile").optional(),
  model: z.string().min(1).max(128).default("whisper-1"),
  /** A local program and its arguments; `{file}` is replaced with the audio file's path. It prints the text. */
  command: z.array(z.string().min(1)).min(1, "name the program and its arguments").optional(),
  /** Audio larger than this is refused with the reason. */
  max_mb: z.number().positive("must be greater than 0").max(1000).default(20),
  timeout_seconds: positiveInt(3600).default(120),
  /** An ISO-639-1 hint such as "en" (the endpoint's `language`); default: detected. */
  language: z.string().regex(/^[a-z]{2,3}$/, "an ISO-639-1 code such as en").optional(),
}));
export type TranscriptionConfig = z.infer<typeof TranscriptionConfig>;

export const ChannelsConfig = lazySchema((z) => z.strictObject({
  /** Where chat logs and kept files live; default $SCV_HOME/archive. */
  archive_dir: z.string().min(1).optional(),
  /** Days a file a chat user sent stays in the media directory (chat_keep keeps it for good). */
  keep_days: positiveInt(36500).default(30),
  /** The working directory of chat sessions; default the user's home directory. */
  workspace: z.string().min(1).optional(),
  /** Attempts per outgoing message before the owner is told it failed. */
  send_max_attempts: positiveInt(100).default(8),
  /** The first retry delay; each further one doubles it (at most 10 minutes). */
  send_retry_seconds: z.number().positive("must be greater than 0").max(600).default(2),
  /** A conversation's session is closed after this long without a message while nothing of it runs; the next message resumes it. */
  session_idle_seconds: positiveInt(MAX_TIMER_SECONDS).default(3600),
  /** The most chat turns running at once over every channel and conversation; further messages wait their turn. */
  max_concurrent_turns: positiveInt(64).default(4),
  /** Messages a sender other than the owner may send per minute; more are not answered (they are told once). */
  sender_messages_per_minute: positiveInt(600).default(5),
  dir: DirChannelConfig.optional(),
  wechat: WechatChannelConfig.optional(),
  feishu: FeishuChannelConfig.optional(),
  telegram: TelegramChannelConfig.optional(),
}));
