// config.toml's sections about what a session does: `[tools]`, `[web]`, `[agent]`, `[agents.<name>]`, `[skills]`,
// `[sessions]`, `[checkpoints]`, `[memory]`, `[prices]`, `[limits]` and `[sandbox]`. A section of the one config
// schema (schema.ts re-exports it; docs/configuration.md describes every key).
import type { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { absolutePath, amount, MAX_TIMER_SECONDS, positiveInt } from "./schema-fields";
import { networkSetting } from "./sandbox-network";

export const AGENT_NAMES = ["claude", "codex", "grok", "dsh", "pi", "scv"] as const;
export const EFFORTS = ["low", "medium", "high", "xhigh", "max"] as const;
export const MODEL_PATTERN = /^(?![-@])[A-Za-z0-9._:/@\[\]-]{1,128}$/;

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

/** `[sandbox]` (user config only): the kernel sandbox under every command SCV runs for the model (docs/security.md). */
export const SANDBOX_MODES = ["workspace-write", "read-only", "off"] as const;
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
