// The one schema for config.toml (user: $SCV_HOME/config.toml; project: <workspace>/.scv/config.toml): the whole
// file and the merged Config here, each section's schema in its own module (schema-providers, schema-tools,
// schema-channels, schema-extensions, schema-daemon), all re-exported from here, the one entry every reader imports.
// docs/configuration.md describes every key; keep them together.
import type { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { ChannelsConfig, TranscriptionConfig } from "./schema-channels";
import { NotifyConfig, SchedulesConfig, WebUiConfig } from "./schema-daemon";
import { HooksConfig, McpConfig, type McpServerConfig } from "./schema-extensions";
import { ProviderProfile } from "./schema-providers";
import { AGENT_NAMES, AgentConfig, AgentOverride, CheckpointsConfig, LimitsConfig, MemoryConfig, PriceConfig, SandboxConfig, SessionsConfig, SkillsConfig, ToolsConfig, WebConfig } from "./schema-tools";

export * from "./schema-channels";
export * from "./schema-daemon";
export { MAX_TIMER_SECONDS } from "./schema-fields";
export * from "./schema-extensions";
export * from "./schema-providers";
export * from "./schema-tools";

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
