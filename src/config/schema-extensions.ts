// config.toml's `[mcp]` servers and `[[hooks.<Event>]]`: what the user plugs into a session. A section of the
// one config schema (schema.ts re-exports it; docs/configuration.md describes every key).
import type { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { envName, MAX_TIMER_SECONDS, positiveInt } from "./schema-fields";

/** An MCP server's name: it prefixes its tools (`<server>__<tool>`), so no `__` and no other separators. */
export const MCP_SERVER_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_)){0,31}$/;
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
