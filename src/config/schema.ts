// The one schema for config.toml (user: $SCV_HOME/config.toml; project: <workspace>/.scv/config.toml).
// docs/configuration.md describes every key here; keep them together.
import type { z } from "zod";
import { lazySchema, zod } from "../lazy-schema";
import { REASONING_EFFORTS, REASONING_SUMMARIES } from "./reasoning";
import { networkSetting } from "./sandbox-network";

const positiveInt = (max?: number) => {
  let s = zod().number().int("must be a whole number").positive("must be greater than 0");
  if (max !== undefined) s = s.max(max, `must be at most ${max}`);
  return s;
};

export const AGENT_NAMES = ["claude", "codex", "grok", "dsh", "pi", "scv"] as const;
export const EFFORTS = ["low", "medium", "high", "xhigh", "max"] as const;
/** SCV's own model's reasoning controls (Responses `reasoning`, Chat `reasoning_effort`). */
export { REASONING_EFFORTS, REASONING_SUMMARIES };
export const MODEL_PATTERN = /^(?![-@])[A-Za-z0-9._:/@\[\]-]{1,128}$/;

export const PROVIDER_KINDS = ["openai", "anthropic"] as const;
/** What a profile of each kind gets when it leaves these keys out (applied after parsing, by `withKindDefaults`). */
export const KIND_DEFAULTS = {
  openai: { wire_api: "responses", model: "gpt-5.5", base_url: "https://api.openai.com/v1", api_key_env: "OPENAI_API_KEY" },
  anthropic: { wire_api: "messages", model: "claude-sonnet-4-5", base_url: "https://api.anthropic.com", api_key_env: "ANTHROPIC_API_KEY" },
} as const;

export const ProviderProfile = lazySchema((z) => z.strictObject({
  kind: z.enum(PROVIDER_KINDS, { error: `must be one of: ${PROVIDER_KINDS.join(", ")}` }).default("openai"),
  // "messages" is the Anthropic Messages API, the only one of kind = "anthropic" (set by the kind when left out).
  wire_api: z.enum(["responses", "chat", "messages"]).optional(),
  model: z.string().min(1, "must not be empty").optional(),
  base_url: z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" }).optional(),
  api_key_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name").optional(),
  api_key: z.string().min(1).optional(),
  // Until the answer starts (response headers); a streaming answer is then limited only by silence.
  timeout_seconds: positiveInt(86400).default(600),
  stream_idle_timeout_seconds: z.number().positive("must be greater than 0").max(86400, "must be at most 86400").default(300),
  reasoning_effort: z.enum(REASONING_EFFORTS, { error: `must be one of: ${REASONING_EFFORTS.join(", ")}` }).optional(),
  reasoning_summary: z.enum(REASONING_SUMMARIES, { error: `must be one of: ${REASONING_SUMMARIES.join(", ")}` }).optional(),
  // Tokens; unset means the known size of the model's family (src/provider/models.ts), else 128000.
  context_window: z.number().int("must be a whole number").min(1024, "must be at least 1024").max(100_000_000).optional(),
  compact_at: z.number().gt(0, "must be greater than 0").max(1, "must be at most 1").default(0.8),
  // Whether the model takes images; unset means what SCV knows of the model's family (src/provider/models.ts).
  images: z.boolean({ error: "must be true or false" }).optional(),
  headers: z.record(z.string(), z.string()).default({}),
  // Proxy variables in the environment are ignored; a profile that needs a proxy names it here.
  proxy: z.url({ protocol: /^https?$/ }).optional(),
  max_retries: z.number().int().min(0).max(10).default(3),
  // Send each session's prompt-cache key (`prompt_cache_key`; unset means true); false for an endpoint that
  // refuses unknown fields (SCV also learns that from its first 400 naming the field).
  prompt_cache_key: z.boolean({ error: "must be true or false" }).optional(),
  // kind = "anthropic": the answer's output limit (the API requires one); unset means the model family's (provider/models.ts).
  max_tokens: positiveInt(1_000_000).optional(),
  // kind = "anthropic": extended thinking, a token budget (at least 1024, below max_tokens) or the model's adaptive setting.
  thinking: z.union([
    z.strictObject({ budget_tokens: z.number().int("must be a whole number").min(1024, "must be at least 1024") }),
    z.strictObject({ type: z.literal("adaptive") }),
  ], { error: 'must be { budget_tokens = N } (N at least 1024) or { type = "adaptive" }' }).optional(),
  // kind = "anthropic": cache_control breakpoints (tools, system, the newest messages); "1h" asks for the 1-hour cache.
  prompt_cache: z.enum(["5m", "1h", "off"], { error: 'must be one of: 5m, 1h, off' }).default("5m"),
}));
type ParsedProfile = z.infer<typeof ProviderProfile>;
/** A profile with its kind's defaults filled in (`withKindDefaults`). */
export type ProviderProfile = Omit<ParsedProfile, "wire_api" | "model" | "base_url"> & {
  wire_api: "responses" | "chat" | "messages";
  model: string;
  base_url: string;
};

/**
 * The kind's defaults for what a profile left out, and the check that wire_api fits the kind; `where` names the
 * profile in the error.
 */
export function withKindDefaults(p: ParsedProfile, where: string): ProviderProfile {
  const d = KIND_DEFAULTS[p.kind];
  const wire = p.wire_api ?? d.wire_api;
  if ((p.kind === "anthropic") !== (wire === "messages")) {
    throw new Error(
      p.kind === "anthropic"
        ? `${where}.wire_api: kind = "anthropic" speaks only the Messages API; remove wire_api (or set it to "messages")`
        : `${where}.wire_api: "messages" is the Anthropic Messages API; set kind = "anthropic" for it, or use wire_api = "responses" or "chat"`,
    );
  }
  if (p.kind !== "anthropic") {
    const only = (["thinking", "max_tokens"] as const).find((k) => p[k] !== undefined);
    if (only) throw new Error(`${where}.${only}: only a kind = "anthropic" profile takes ${only}${only === "thinking" ? "; for OpenAI models set reasoning_effort" : ""}`);
  }
  const explicitKey = p.api_key_env !== undefined || p.api_key !== undefined;
  return {
    ...p,
    wire_api: wire,
    model: p.model ?? d.model,
    base_url: p.base_url ?? d.base_url,
    // A profile the user wrote names its key itself (api_key_env); only a kind = "anthropic" profile reads its default.
    ...(!explicitKey && p.kind === "anthropic" ? { api_key_env: d.api_key_env } : {}),
  };
}

/** The longest timeout a timer can hold (2^31-1 ms, about 24.8 days); a longer one would fire at once. */
export const MAX_TIMER_SECONDS = Math.floor((2 ** 31 - 1) / 1000);
const timeoutSeconds = () => positiveInt(MAX_TIMER_SECONDS);
/** Named because bash's and agent_wait's build-time JSON Schemas are made for these defaults (tools/parameters.ts). */
export const DEFAULT_COMMAND_TIMEOUT_SECONDS = 600;
export const DEFAULT_MAX_TIMEOUT_SECONDS = 14400;
export const DEFAULT_AGENT_TIMEOUT_SECONDS = 3600;

/** `[tools.approval]` values: run unasked, ask (even a read-only tool), or never run. */
export const TOOL_APPROVALS = ["allow", "prompt", "deny"] as const;
const PROGRAM_NAME = /^[A-Za-z0-9_[][A-Za-z0-9._+-]{0,63}$/;
/** Variables a secret binding may not set: they decide what runs or how (loader, shell and runtime hooks). */
export const EXECUTION_CONTROL_VARIABLES = /^(PATH|HOME|SHELL|IFS|ENV|BASH_ENV|BASHOPTS|SHELLOPTS|PS4|PROMPT_COMMAND|COMSPEC|CDPATH|GLOBIGNORE|LD_.*|DYLD_.*|NODE_OPTIONS|NODE_PATH|PYTHONPATH|PYTHONSTARTUP|PYTHONHOME|PERL5LIB|PERL5OPT|PERLLIB|RUBYOPT|RUBYLIB|GIT_.*|LESSOPEN|LESSCLOSE|PAGER|EDITOR|VISUAL|BUN_.*|SCV_.*)$/;

export const ToolsConfig = lazySchema((z) => z.strictObject({
  approval_policy: z.enum(["on-risk", "never"]).default("on-risk"),
  command_timeout_seconds: timeoutSeconds().default(DEFAULT_COMMAND_TIMEOUT_SECONDS),
  max_timeout_seconds: timeoutSeconds().default(DEFAULT_MAX_TIMEOUT_SECONDS),
  agent_timeout_seconds: timeoutSeconds().default(DEFAULT_AGENT_TIMEOUT_SECONDS),
  output_limit_bytes: positiveInt(16 * 1024 * 1024).min(1024, "must be at least 1024").default(65536),
  max_steps: positiveInt(1000).default(64),
  // How long a `clarify` question waits for the person before the turn goes on with "no answer" (30 minutes).
  clarify_timeout_seconds: positiveInt(86400).default(1800),
  // `bash` with `background: true`: commands running at once per session (0 turns it off), and each one's log cap.
  max_background_commands: z.number().int().min(0).max(64).default(8),
  background_log_bytes: positiveInt(1024 * 1024 * 1024).min(65536, "must be at least 65536").default(16 * 1024 * 1024),
  // Read AGENTS.md (or CLAUDE.md) from the workspace into the system prompt as the project's instructions.
  project_instructions: z.boolean().default(true),
  // Per-tool approval overrides (`[tools.approval] web_fetch = "allow"`); the command guard's `block` still wins.
  approval: z.record(z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, "tool names use a-z, 0-9 and _"), z.enum(TOOL_APPROVALS, { error: `must be one of: ${TOOL_APPROVALS.join(", ")}` })).default({}),
  // The command guard's read-only program list, extended and trimmed (src/guard/programs.ts has the default).
  guard: z
    .strictObject({
      add_read_only: z.array(z.string().regex(PROGRAM_NAME, "must be a program name (no path, no spaces)")).max(256).default([]),
      remove_read_only: z.array(z.string().regex(PROGRAM_NAME, "must be a program name (no path, no spaces)")).max(256).default([]),
    })
    .default({ add_read_only: [], remove_read_only: [] }),
  // Variables `bash` gets on top of the allowlist: a NAME passes SCV's own value on, NAME=value sets one.
  bash_env: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*(=.*)?$/s, "must be NAME or NAME=value")).max(256).default([]),
  // Secrets a `bash` call may ask for by name; the value never appears in an approval, event or result.
  secret_bindings: z
    .array(
      z.strictObject({
        source: z.string().regex(/^env:[A-Za-z_][A-Za-z0-9_]*$/, "must be env:NAME (the variable in SCV's environment holding the secret)"),
        target: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be a variable name").optional(),
        expires_in_seconds: positiveInt(MAX_TIMER_SECONDS).optional(),
      }),
    )
    .max(64)
    .default([]),
}));


export const WebConfig = lazySchema((z) => z.strictObject({
  allow_private_addresses: z.boolean().default(false),
  fetch_max_bytes: positiveInt(64 * 1024 * 1024).default(2 * 1024 * 1024),
  max_redirects: z.number().int().min(0).max(20).default(5),
  fetch_timeout_seconds: positiveInt(600).default(30),
  auto_approve_domains: z.array(z.string().min(1)).default([]),
  search: z.enum(["off", "provider", "searxng", "brave"]).default("off"),
  searxng_url: z.url({ protocol: /^https?$/ }).optional(),
  brave_api_key: z.string().min(1).optional(),
  brave_api_key_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).default("BRAVE_API_KEY"),
  max_search_results: positiveInt(50).default(8),
}));

export const AgentConfig = lazySchema((z) => z.strictObject({
  system_prompt: z.string().optional(),
  prefer: z.array(z.enum(AGENT_NAMES, { error: `must be one of: ${AGENT_NAMES.join(", ")}` })).default([]),
  max_delegation_depth: z.number().int().min(0).max(16).default(2),
  max_conversations: positiveInt(1000).default(8),
  conversation_idle_seconds: positiveInt().default(86400),
  max_background: z.number().int().min(0).max(64).default(4),
}));

export const SkillsConfig = lazySchema((z) => z.strictObject({
  enabled: z.boolean().default(true),
  max_skills: z.number().int("must be a whole number").min(0, "must be 0 or more").max(1024, "must be at most 1024").default(64),
  max_skill_bytes: positiveInt(1024 * 1024).min(1024, "must be at least 1024").default(65536),
  roots: z
    .array(z.string().refine((p) => p.startsWith("/") || p.startsWith("~/"), "must be an absolute path or start with ~/"))
    .max(32, "must list at most 32 directories")
    .default([]),
}));

export const SessionsConfig = lazySchema((z) => z.strictObject({
  keep_days: positiveInt(36500).default(90),
}));

/** The checkpoint store (src/checkpoints): the workspace recorded before and after each turn's changes, for /rewind and /undo. */
export const CheckpointsConfig = lazySchema((z) => z.strictObject({
  enabled: z.boolean().default(true),
  /** Files larger than this are not recorded (named as skipped). */
  max_file_bytes: positiveInt(4 * 1024 * 1024 * 1024).default(16 * 1024 * 1024),
  /** The store's total size; over it, the oldest sessions' checkpoints are pruned first. */
  max_bytes: positiveInt(1024 * 1024 * 1024 * 1024).min(1024 * 1024, "must be at least 1048576 (1 MiB)").default(2 * 1024 * 1024 * 1024),
}));

/** The owner's memory files (src/memory): whether owner sessions carry them, and each file's cap in bytes. */
export const MemoryConfig = lazySchema((z) => z.strictObject({
  enabled: z.boolean().default(true),
  user_max_bytes: positiveInt(256 * 1024).min(256, "must be at least 256").default(4096),
  project_max_bytes: positiveInt(256 * 1024).min(256, "must be at least 256").default(8192),
}));

/** A non-negative number (a price or a limit); the message names what was wrong. */
const amount = () => zod().number({ error: "must be a number" }).nonnegative("must not be negative").finite("must be a finite number");

/** What one model costs, in the user's currency per million tokens; overrides SCV's built-in estimates (src/ledger/prices.ts). */
export const PriceConfig = lazySchema((z) => z.strictObject({
  input_per_mtok: amount(),
  /** Cached input tokens; unset means the input price. */
  cached_input_per_mtok: amount().optional(),
  /** Input written to a prompt cache (Anthropic: 5-minute writes, 1.25 × input); unset means the input price. */
  cache_write_per_mtok: amount().optional(),
  /** Writes to the 1-hour cache (Anthropic: 2 × input); unset means cache_write_per_mtok. */
  cache_write_1h_per_mtok: amount().optional(),
  output_per_mtok: amount(),
}));
export type PriceConfig = z.infer<typeof PriceConfig>;

/** Spending limits; unset means none. Day and month are local time. */
export const LimitsConfig = lazySchema((z) => z.strictObject({
  daily_tokens: amount().optional(),
  daily_cost: amount().optional(),
  monthly_cost: amount().optional(),
  /** Per chat conversation of someone other than the owner. */
  conversation_daily_tokens: amount().optional(),
  conversation_daily_cost: amount().optional(),
}));
export type LimitsConfig = z.infer<typeof LimitsConfig>;

export const AgentOverride = lazySchema((z) => z.strictObject({
  use_for: z.string().refine((s) => Buffer.byteLength(s) <= 500 && !s.includes("\n"), "must be one line of at most 500 bytes").optional(),
  model: z.string().regex(MODEL_PATTERN, "must be 1-128 of A-Z a-z 0-9 . _ : / @ [ ] - and not start with - or @").optional(),
  effort: z.enum(EFFORTS).optional(),
  permissions: z.enum(["default", "full"]).default("default"),
  command: z.string().min(1).optional(),
  args: z.array(z.string()).optional(),
  transport: z.enum(["auto", "acp", "resume"]).default("auto"),
}));
export type AgentOverride = z.infer<typeof AgentOverride>;

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

/** An MCP server's name: it prefixes its tools (`<server>__<tool>`), so no `__` and no other separators. */
export const MCP_SERVER_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_)){0,31}$/;
const envName = () => zod().string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name");
const TOOL_RISK_NAMES = ["read_only", "filesystem", "process", "delegate", "network"] as const;

/**
 * `[mcp.servers.<name>]`: one MCP server, started as a program (`command`) or reached over streamable HTTP (`url`).
 * docs/configuration.md ("MCP servers") describes every key.
 */
export const McpServerFields = lazySchema((z) => z.strictObject({
    command: z.string().min(1, "must name a program").optional(),
    args: z.array(z.string()).default([]),
    /** Names passed from SCV's environment, or NAME = "value" pairs; nothing else of SCV's environment is passed. */
    env: z.union([z.array(envName()), z.record(envName(), z.string())]).default([]),
    cwd: z.string().min(1).optional(),
    url: z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" }).optional(),
    headers: z.record(z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, "must be an HTTP header name"), z.string()).default({}),
    bearer_token_env: envName().optional(),
    enabled: z.boolean().default(true),
    /** Only these tools are offered (the server's own names); unset offers all but disabled_tools. */
    tools: z.array(z.string().min(1)).optional(),
    disabled_tools: z.array(z.string().min(1)).default([]),
    startup_timeout_seconds: positiveInt(3600).default(30),
    tool_timeout_seconds: positiveInt(MAX_TIMER_SECONDS).default(300),
    allow_private_addresses: z.boolean().default(false),
    /** How each call is approved; default `process` for a program, `network` for a URL. */
    risk: z.enum(TOOL_RISK_NAMES, { error: `must be one of: ${TOOL_RISK_NAMES.join(", ")}` }).optional(),
    trust_read_only_hints: z.boolean().default(false),
    share_with_agents: z.boolean().default(false),
    /** A program server runs inside the sandbox of [sandbox] (src/sandbox), as bash commands do. */
    sandbox: z.boolean({ error: "must be true or false" }).default(false),
}));
/** A whole server (the user's and the project's layers merged): exactly one of command and url. */
export const McpServerConfig = lazySchema(() => McpServerFields
  .refine((s) => (s.command === undefined) !== (s.url === undefined), "set either command (a program to start) or url (a streamable HTTP endpoint), not both or neither")
  .refine((s) => s.url !== undefined || (Object.keys(s.headers).length === 0 && s.bearer_token_env === undefined && !s.allow_private_addresses), "headers, bearer_token_env and allow_private_addresses apply only to a url server")
  .refine((s) => s.command !== undefined || (s.args.length === 0 && s.cwd === undefined && (Array.isArray(s.env) ? s.env.length === 0 : Object.keys(s.env).length === 0)), "args, env and cwd apply only to a command server")
  .refine((s) => s.command !== undefined || !s.sandbox, "sandbox applies only to a command server (a program SCV starts)"));
export type McpServerConfig = z.infer<typeof McpServerConfig> & {
  /** Set by the loader when the project file defines the server (the user file does not): its first connect needs a person. */
  project?: string;
};

export const McpConfig = lazySchema((z) => z.strictObject({
  /** The largest JSON-RPC message accepted from a server (and so the largest tool result read). */
  max_message_bytes: positiveInt(256 * 1024 * 1024).min(65536, "must be at least 65536").default(16 * 1024 * 1024),
  /** Past this many bytes of MCP tool schemas a session offers names and one-line descriptions, and load_tools. */
  schema_budget_bytes: z.number().int().min(0, "must be 0 (always offer names only) or more").max(1024 * 1024, "must be at most 1048576").default(8192),
  servers: z.record(z.string().regex(MCP_SERVER_NAME, "server names use 1-32 letters, digits, - and single _ (it prefixes tool names as <server>__<tool>)"), McpServerFields.partial()).default({}),
}));

/** The loopback address and port `scv web` serves on unless [web_ui] listen says otherwise. */
export const DEFAULT_WEB_UI_LISTEN = "127.0.0.1:7390";

/** `[web_ui]`: the daemon's own web page (docs/web.md). Not `[web]`, which configures the fetch and search tools. */
export const WebUiConfig = lazySchema((z) => z.strictObject({
  enabled: z.boolean({ error: "must be true or false" }).default(false),
  /** host:port; anything but a loopback address is the user's explicit choice (warned about by doctor and the log). */
  listen: z.string().regex(/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, "must be host:port, such as 127.0.0.1:7390 or [::1]:7390").default(DEFAULT_WEB_UI_LISTEN),
  /** The web chat approves as the chat owner's does (unasked) instead of asking in the page. */
  auto_approve: z.boolean({ error: "must be true or false" }).default(false),
  /** Host names (without port) the page answers to besides the listen address: a reverse proxy's or a LAN name. */
  allowed_hosts: z.array(z.string().regex(/^[A-Za-z0-9.-]{1,253}$/, "must be a host name such as scv.example.lan")).default([]),
}));

/** `[schedules]`: what the daemon's schedules may do (docs/configuration.md). */
export const SchedulesConfig = lazySchema((z) => z.strictObject({
  /** The shortest `every` interval a schedule may have: a runaway `every 1m` is refused below it. */
  min_every_seconds: positiveInt(MAX_TIMER_SECONDS).default(300),
  /** A fire missed while the daemon was down is caught up (catch_up = "once") only this long after it was due. */
  grace_hours: z.number().positive("must be greater than 0").max(24 * 365).default(6),
  /** The time zone cron schedules and times of day use by default, and replies speak in; default the host's. */
  time_zone: z.string().min(1).optional(),
}));

/** `[notify]`: where the owner is reached when a session has something for them (docs/configuration.md, "Notify"). */
export const NOTIFY_TARGET = /^(web|desktop|(dir|wechat|feishu|telegram)(\/[A-Za-z0-9_-]{1,64})?(:[^\s]{1,256})?)$/;
export const QUIET_HOURS = /^([01]\d|2[0-3]):[0-5]\d-([01]\d|2[0-3]):[0-5]\d$/;
export const NotifyConfig = lazySchema((z) => z.strictObject({
  /**
   * Where, in order of preference: `web`, `desktop`, or a channel (`telegram`, `dir/<account>`, optionally
   * `:<the owner's conversation>`). Default: the owner's conversation on every configured channel, then the web page.
   */
  to: z.array(z.string().regex(NOTIFY_TARGET, "each entry is web, desktop, or a channel such as telegram, dir/default or telegram:<owner id>")).max(16).optional(),
  /** "22:00-07:00" in the owner's time zone: chat messages wait until they end; none by default. */
  quiet_hours: z.string().regex(QUIET_HOURS, 'must be "HH:MM-HH:MM", such as "22:00-07:00"').optional(),
  /** A card nobody answered on its own screen this long is offered to the owner there. */
  after_seconds: positiveInt(86400).default(60),
  /** A turn longer than this that ended while the person was away is announced. */
  long_turn_seconds: positiveInt(86400).default(120),
}));
export type NotifyConfig = z.infer<typeof NotifyConfig>;
export type NotifyTarget = { kind: "web" } | { kind: "desktop" } | { kind: "chat"; type: string; account?: string; conversation?: string };
/** One `[notify] to` entry (already checked against NOTIFY_TARGET). */
export function parseNotifyTarget(entry: string): NotifyTarget {
  if (entry === "web" || entry === "desktop") return { kind: entry };
  const m = /^([a-z]+)(?:\/([A-Za-z0-9_-]+))?(?::(.+))?$/.exec(entry)!;
  return { kind: "chat", type: m[1]!, ...(m[2] ? { account: m[2] } : {}), ...(m[3] ? { conversation: m[3] } : {}) };
}

/**
 * `[[hooks.<Event>]]`: the user's own programs run at moments of a session (src/hooks, docs/hooks.md). The names
 * are Claude Code's events plus SCV's own; a hook table names a program, never a project's (user config only).
 */
export const HOOK_EVENTS = [
  "SessionStart",
  "UserPromptSubmit",
  "PreToolUse",
  "PostToolUse",
  "Stop",
  "PreCompact",
  "SessionEnd",
  "Notification",
  "ScheduleFired",
  "ChatUndeliverable",
  "BudgetReached",
] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];
export const DEFAULT_HOOK_TIMEOUT_SECONDS = 60;

/** Whether `matcher` is a pattern a hook can use (Claude Code's: a regular expression, `*` or empty for all). */
export function matcherProblem(matcher: string): string | undefined {
  if (matcher === "" || matcher === "*") return undefined;
  try {
    new RegExp(matcher);
    return undefined;
  } catch (e) {
    return `is not a valid pattern (${(e as Error).message.replace(/^Invalid regular expression: /, "")}); use a tool name, names joined with |, or a regular expression such as mcp__github__.*`;
  }
}

export const HookEntry = lazySchema((z) => z.strictObject({
  /** The tool name (or the event's subject) pattern; unset, empty or `*` matches everything. */
  matcher: z.string().max(512, "must be at most 512 characters").superRefine((m, ctx) => {
    const problem = matcherProblem(m);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  }).optional(),
  command: z.string().min(1, "must name a command (run with /bin/sh -c)").max(8192, "must be at most 8192 characters"),
  timeout_seconds: positiveInt(3600).default(DEFAULT_HOOK_TIMEOUT_SECONDS),
}));
export type HookEntry = z.infer<typeof HookEntry>;

export const HooksConfig = lazySchema((z) =>
  z.strictObject(Object.fromEntries(HOOK_EVENTS.map((e) => [e, z.array(HookEntry, { error: `must be a list of hook tables ([[hooks.${e}]])` }).max(64).optional()])) as Record<HookEvent, z.ZodOptional<z.ZodArray<typeof HookEntry>>>),
);
export type HooksConfig = Partial<Record<HookEvent, HookEntry[]>>;
/** `[sandbox]` (user config only): the kernel sandbox under every command SCV runs for the model (docs/security.md). */
export const SANDBOX_MODES = ["workspace-write", "read-only", "off"] as const;
const absolutePath = () => zod().string().refine((p) => p.startsWith("/"), "must be an absolute path (starting with /; ~ and $VARIABLES are not expanded)");
export const SandboxConfig = lazySchema((z) => z.strictObject({
  mode: z.enum(SANDBOX_MODES, { error: `must be one of: ${SANDBOX_MODES.join(", ")}` }).default("workspace-write"),
  writable_roots: z.array(absolutePath()).default([]),
  hidden_paths: z.array(absolutePath()).default([]),
  // true: every host; false: none; a table ([sandbox.network]): the hosts it allows, through SCV's egress proxy.
  network: networkSetting(z).default(false),
  // true: a command the guard asks about runs unasked inside the sandbox where this machine enforces all of it
  // (writes, network, signals); "always": also where it enforces only part; false: it asks.
  auto_run: z.union([z.boolean(), z.literal("always")], { error: 'must be true, false or "always"' }).default(true),
  required: z.boolean({ error: "must be true or false" }).default(false),
  /** Unix sockets (absolute paths) a sandboxed command may reach; every other socket on the host is hidden. */
  allow_unix_sockets: z.array(absolutePath()).default([]),
}));

export const ConfigFile = lazySchema((z) => z.strictObject({
  provider: z.strictObject({ active: z.string().min(1) }).partial().optional(),
  providers: z.record(z.string().regex(/^[A-Za-z0-9_-]+$/, "profile names use letters, digits, _ and -"), ProviderProfile).optional(),
  tools: ToolsConfig.partial().optional(),
  web: WebConfig.partial().optional(),
  agent: AgentConfig.partial().optional(),
  agents: z.partialRecord(z.enum(AGENT_NAMES), AgentOverride).optional(),
  skills: SkillsConfig.partial().optional(),
  sessions: SessionsConfig.partial().optional(),
  checkpoints: CheckpointsConfig.partial().optional(),
  memory: MemoryConfig.partial().optional(),
  channels: ChannelsConfig.partial().optional(),
  prices: z.record(z.string().min(1, "a model name must not be empty"), PriceConfig).optional(),
  limits: LimitsConfig.optional(),
  mcp: McpConfig.partial().optional(),
  schedules: SchedulesConfig.partial().optional(),
  hooks: HooksConfig.optional(),
  web_ui: WebUiConfig.partial().optional(),
  sandbox: SandboxConfig.partial().optional(),
  transcription: TranscriptionConfig.optional(),
  notify: NotifyConfig.partial().optional(),
}));
export type ConfigFile = z.infer<typeof ConfigFile>;

export interface Config {
  provider: { active: string };
  providers: Record<string, ProviderProfile>;
  tools: z.infer<typeof ToolsConfig>;
  web: z.infer<typeof WebConfig>;
  agent: z.infer<typeof AgentConfig>;
  agents: Partial<Record<(typeof AGENT_NAMES)[number], AgentOverride>>;
  skills: z.infer<typeof SkillsConfig>;
  sessions: z.infer<typeof SessionsConfig>;
  checkpoints: z.infer<typeof CheckpointsConfig>;
  memory: z.infer<typeof MemoryConfig>;
  channels: z.infer<typeof ChannelsConfig>;
  prices: Record<string, PriceConfig>;
  limits: LimitsConfig;
  mcp: { max_message_bytes: number; schema_budget_bytes: number; servers: Record<string, McpServerConfig> };
  schedules: z.infer<typeof SchedulesConfig>;
  /** Absent in a Config built by hand (tests): no hooks. */
  hooks?: HooksConfig;
  web_ui: z.infer<typeof WebUiConfig>;
  sandbox: z.infer<typeof SandboxConfig>;
  /** Absent when not configured: voice messages are kept as audio files, not turned into text. */
  transcription?: TranscriptionConfig;
  /** Absent in a Config built by hand (tests): the defaults (NotifyConfig). */
  notify?: NotifyConfig;
}

/** Keys a project file may not set: they change who SCV trusts or what it runs. A prefix covers its subtree. */
export const USER_ONLY_KEYS = [
  "provider",
  "providers",
  "agent",
  "agents",
  "channels",
  "tools.approval_policy",
  "tools.approval",
  "tools.guard",
  "tools.bash_env",
  "tools.secret_bindings",
  "tools.max_timeout_seconds",
  "web.allow_private_addresses",
  "web.auto_approve_domains",
  "web.search",
  "web.searxng_url",
  "web.brave_api_key",
  "web.brave_api_key_env",
  "skills.roots",
  "sessions",
  // Checkpoints are what rewind restores from: a project file (which a command could write) may not turn them off.
  "checkpoints",
  "memory",
  "prices",
  "limits",
  "mcp.max_message_bytes",
  "mcp.schema_budget_bytes",
  // A project file may list servers (they then need a person's approval to connect) but never widen trust.
  "mcp.servers.*.risk",
  "mcp.servers.*.trust_read_only_hints",
  "mcp.servers.*.allow_private_addresses",
  "mcp.servers.*.share_with_agents",
  "mcp.servers.*.sandbox",
  "schedules",
  // A cloned repository must not get to run programs.
  "hooks",
  "web_ui",
  "sandbox",
  "transcription",
  // Where the owner is told things (and asked approvals) is the owner's choice alone.
  "notify",
] as const;

/** What a project file may set on a server the user file defines: narrowing only, never what runs or where. */
export const MCP_PROJECT_NARROWING_KEYS = ["enabled", "tools", "disabled_tools", "startup_timeout_seconds", "tool_timeout_seconds"] as const;

/** Key paths whose values are secrets: shown only as set/unset. */
export { SECRET_KEYS } from "./secret-keys";

/** A rule over the merged config that one key's schema cannot express; returns the problem or nothing. */
export type CrossCheck = (config: Config, file: string) => string | undefined;
