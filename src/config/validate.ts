// The full configuration load: parses the TOML, checks every file against the zod schemas, merges the layers
// (built-in defaults < user file < project file < environment selectors) and applies the cross-key rules.
// load.ts reaches this module only when the check cache (check-cache.ts) has no result for the same inputs, so
// a process whose configuration did not change never builds the schemas.
import { parse as parseToml } from "smol-toml";
import type { z } from "zod";
import { join, normalize } from "node:path";
import { userHome } from "../user-home";
import { registeredChecks } from "./checks";
import { ANTHROPIC_PROFILE_NAME, ConfigError, type ConfigInputs, type ConfigText, DEFAULT_PROFILE_NAME, type LoadedConfig } from "./loaded";
import {
  AgentConfig,
  ChannelsConfig,
  type Config,
  ConfigFile,
  EXECUTION_CONTROL_VARIABLES,
  HooksConfig,
  type CrossCheck,
  MCP_PROJECT_NARROWING_KEYS,
  TranscriptionConfig,
  McpConfig,
  McpServerConfig,
  MemoryConfig,
  ProviderProfile,
  withKindDefaults,
  SandboxConfig,
  SchedulesConfig,
  WebUiConfig,
  SessionsConfig,
  CheckpointsConfig,
  SkillsConfig,
  ToolsConfig,
  USER_ONLY_KEYS,
  WebConfig,
  NotifyConfig,
  parseNotifyTarget,
} from "./schema";

/** The schema below wrappers (optional, default, pipes) that decide nothing about keys. */
function unwrapSchema(schema: unknown): { def?: Record<string, any>; shape?: Record<string, unknown> } | undefined {
  let s = schema as { _zod?: { def?: Record<string, any> }; shape?: Record<string, unknown> } | undefined;
  for (let i = 0; i < 16 && s?._zod?.def; i++) {
    const def = s._zod.def;
    if (def.type === "object" || def.type === "record") return { def, shape: s.shape };
    s = def.innerType ?? (def.type === "pipe" ? def.in : undefined);
  }
  return undefined;
}

/** The keys the schema accepts in the table at `path` (tables of names, like providers.<name>, walked through). */
function knownKeysAt(path: readonly PropertyKey[]): string[] {
  let node = unwrapSchema(ConfigFile);
  for (const seg of path) {
    if (!node) return [];
    node = node.def?.type === "record" ? unwrapSchema(node.def.valueType) : unwrapSchema(node.shape?.[String(seg)]);
  }
  return node?.def?.type === "object" ? Object.keys(node.shape ?? {}) : [];
}

/** Edits (insert, delete, substitute, swap two neighbours) turning `a` into `b`. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/** The accepted key nearest to `key`, when it is within 2 edits (a typo, not a different word). */
/** The user file's `[mcp]` limits (the servers are merged from both files). */
const mcpLimits = (m: { max_message_bytes: number; schema_budget_bytes: number }) => ({ max_message_bytes: m.max_message_bytes, schema_budget_bytes: m.schema_budget_bytes });

export function didYouMean(key: string, known: readonly string[]): string | undefined {
  let best: { key: string; distance: number } | undefined;
  for (const k of known) {
    const distance = editDistance(key.toLowerCase(), k.toLowerCase());
    if (distance <= 2 && (!best || distance < best.distance)) best = { key: k, distance };
  }
  return best?.key;
}

function describeIssue(file: string, issue: z.core.$ZodIssue): string {
  const key = issue.path.map(String).join(".") || "(top level)";
  if (issue.code === "unrecognized_keys") {
    const known = knownKeysAt(issue.path);
    const keys = issue.keys.map((k) => {
      const full = key === "(top level)" ? k : `${key}.${k}`;
      const near = didYouMean(k, known);
      return near ? `${full} (did you mean \`${near}\`?)` : full;
    });
    return `${file}: unknown key ${keys.join(", ")}; see docs/configuration.md for the accepted keys`;
  }
  if (issue.code === "invalid_key") {
    // A table name the record refuses: say what names are accepted rather than zod's generic text.
    const why = issue.issues.map((i) => i.message).join("; ");
    return `${file}: ${key}: the name ${JSON.stringify(String(issue.path.at(-1)))} is not accepted: ${why}`;
  }
  return `${file}: ${key}: ${issue.message}`;
}

/**
 * A configuration is parsed a handful of times per process, so zod's compiled fast path (code generated per
 * object schema at its first parse) costs more than it saves: about 5 ms of a nested child's start-up. The
 * checks and messages are the same either way.
 */
const ONCE: z.core.ParseContext<z.core.$ZodIssue> = { jitless: true };

/** Parses one file's text (read once by load.ts, the same text the check cache's digest covers). */
function parseFile(file: string, text: ConfigText): ConfigFile | undefined {
  if (text instanceof ConfigError) throw text;
  if (text === null) return undefined;
  let raw: unknown;
  try {
    raw = parseToml(text);
  } catch (e) {
    // Only the first line, the position and a duplicated key's name: the parser's code excerpt could echo a
    // secret from the file.
    const { line, column } = e as { line?: number; column?: number };
    const where = typeof line === "number" ? ` at line ${line}${typeof column === "number" ? `, column ${column}` : ""}` : "";
    const first = (e as Error).message.split("\n")[0];
    const duplicate = /redefine an already defined/.test(first ?? "") && typeof line === "number" ? duplicatedKey(text, line) : undefined;
    if (duplicate) {
      throw new ConfigError(`${file}: ${duplicate} is defined twice${where}; keep one of the two definitions`);
    }
    throw new ConfigError(`${file}: not valid TOML${where}: ${first}`);
  }
  const parsed = ConfigFile.safeParse(raw, ONCE);
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => describeIssue(file, i)).join("\n"));
  return raw as ConfigFile; // raw keeps only what the file set; defaults are applied when merging
}

/**
 * The key or table a duplicate-definition error points at (`providers.fake.model`, `[tools]`), from the
 * offending line's key part only (never its value), qualified by the table it sits in.
 */
export function duplicatedKey(text: string, line: number): string | undefined {
  const lines = text.split(/\r?\n/);
  const at = lines[line - 1]?.trim();
  if (!at) return undefined;
  const header = /^\[\[?\s*([^\]]+?)\s*\]\]?/.exec(at);
  if (header) return `table [${header[1]}]`;
  const eq = at.indexOf("=");
  if (eq <= 0) return undefined;
  const key = at.slice(0, eq).trim().replace(/\s*\.\s*/g, ".");
  for (let i = line - 2; i >= 0; i--) {
    const table = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?/.exec(lines[i]!);
    if (table) return `key ${table[1]}.${key}`;
  }
  return `key ${key}`;
}

function leafPaths(value: unknown, prefix = ""): string[] {
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return prefix ? [prefix] : [];
    return entries.flatMap(([k, v]) => leafPaths(v, prefix ? `${prefix}.${k}` : k));
  }
  return [prefix];
}

/** Whether key path `path` is `pattern` or inside it; a `*` in the pattern stands for one segment. */
function underKey(path: string, pattern: string): boolean {
  const have = path.split(".");
  const want = pattern.split(".");
  return have.length >= want.length && want.every((w, i) => w === "*" || w === have[i]);
}

function refuseUserOnly(file: string, project: ConfigFile, userFile: string) {
  for (const path of leafPaths(project)) {
    const hit = USER_ONLY_KEYS.find((k) => underKey(path, k));
    if (hit) {
      throw new ConfigError(
        `${file}: ${path}: a project file cannot set ${hit}; it changes who SCV trusts or what it runs. Set it in your user config (${userFile}) instead.`,
      );
    }
  }
}

function mergeSection<T extends z.ZodType>(schema: T, ...layers: unknown[]): z.infer<T> {
  return schema.parse(Object.assign({}, ...layers.filter(Boolean)), ONCE);
}

/** The full load: every file checked against the schemas, the layers merged, the cross-key rules applied. */
export function loadValidated(inputs: ConfigInputs): LoadedConfig {
  const { env, userFile, projectFile } = inputs;
  const user = parseFile(userFile, inputs.user) ?? {};
  const project = (projectFile && parseFile(projectFile, inputs.project)) || {};
  if (projectFile) refuseUserOnly(projectFile, project, userFile);

  const sources = new Map<string, string>();
  for (const p of leafPaths(user)) sources.set(p, userFile);
  for (const p of leafPaths(project)) sources.set(p, projectFile!);

  const providers: Config["providers"] = {};
  for (const [name, profile] of Object.entries(user.providers ?? {})) {
    try {
      providers[name] = withKindDefaults(ProviderProfile.parse(profile, ONCE), `providers.${name}`);
    } catch (e) {
      throw new ConfigError(`${userFile}: ${(e as Error).message}`);
    }
  }
  if (Object.keys(providers).length === 0) {
    // First run: an Anthropic key alone picks Anthropic; otherwise the OpenAI default as before.
    if (env.ANTHROPIC_API_KEY && !env.OPENAI_API_KEY) providers[ANTHROPIC_PROFILE_NAME] = withKindDefaults(ProviderProfile.parse({ kind: "anthropic" }, ONCE), "anthropic");
    else providers[DEFAULT_PROFILE_NAME] = withKindDefaults(ProviderProfile.parse({ api_key_env: "OPENAI_API_KEY" }, ONCE), DEFAULT_PROFILE_NAME);
  }
  let active = user.provider?.active ?? (providers[DEFAULT_PROFILE_NAME] ? DEFAULT_PROFILE_NAME : Object.keys(providers)[0]!);
  if (env.SCV_PROVIDER) {
    active = env.SCV_PROVIDER;
    sources.set("provider.active", "env SCV_PROVIDER");
  }
  if (!providers[active]) {
    const origin = env.SCV_PROVIDER ? "SCV_PROVIDER (or --provider)" : `${userFile}: provider.active`;
    throw new ConfigError(`${origin}: no provider profile named "${active}"; defined: ${Object.keys(providers).join(", ")}`);
  }
  if (env.SCV_MODEL) {
    providers[active] = { ...providers[active]!, model: env.SCV_MODEL };
    sources.set(`providers.${active}.model`, "env SCV_MODEL");
  }

  const config: Config = {
    provider: { active },
    providers,
    tools: mergeSection(ToolsConfig, user.tools, project.tools),
    web: mergeSection(WebConfig, user.web, project.web),
    agent: mergeSection(AgentConfig, user.agent),
    agents: {},
    skills: mergeSection(SkillsConfig, user.skills, project.skills),
    sessions: mergeSection(SessionsConfig, user.sessions),
    checkpoints: mergeSection(CheckpointsConfig, user.checkpoints, project.checkpoints),
    memory: mergeSection(MemoryConfig, user.memory),
    channels: mergeSection(ChannelsConfig, user.channels),
    prices: user.prices ?? {},
    limits: user.limits ?? {},
    mcp: { ...mcpLimits(McpConfig.parse(user.mcp ?? {}, ONCE)), servers: mergeMcpServers(user, project, userFile, projectFile) },
    schedules: mergeSection(SchedulesConfig, user.schedules),
    hooks: HooksConfig.parse(user.hooks ?? {}, ONCE) as Config["hooks"],
    web_ui: mergeSection(WebUiConfig, user.web_ui),
    sandbox: mergeSection(SandboxConfig, user.sandbox),
    notify: mergeSection(NotifyConfig, user.notify),
  };
  if (user.transcription) {
    const t = TranscriptionConfig.parse(user.transcription, ONCE);
    if ((t.provider === undefined) === (t.command === undefined)) throw new ConfigError(`${userFile}: transcription: set either provider (a [providers.<name>] profile with an /audio/transcriptions endpoint) or command (a local program that prints the text), not ${t.provider ? "both" : "neither"}`);
    if (t.provider && !providers[t.provider]) throw new ConfigError(`${userFile}: transcription.provider: no provider profile named "${t.provider}"; defined: ${Object.keys(providers).join(", ")}`);
    config.transcription = t;
  }
  const roots = writableRootProblem(config.sandbox.writable_roots, env);
  if (roots) throw new ConfigError(`${userFile}: sandbox.writable_roots: ${roots}`);
  config.agents = ConfigFile.shape.agents.parse(user.agents ?? {}, ONCE) ?? {};
  validateCrossKeys(config, userFile, (key) => sources.get(key));
  return { config, sources, userFile, projectFile: typeof inputs.project === "string" ? projectFile : undefined };
}

/** A writable root that would open the whole machine, the home or SCV's own files to sandboxed commands. */
function writableRootProblem(roots: readonly string[], env: Readonly<Record<string, string | undefined>>): string | undefined {
  const norm = (p: string) => normalize(p).replace(/\/+$/, "") || "/";
  const home = env.HOME ? norm(env.HOME) : undefined;
  const scvHomeDir = norm(env.SCV_HOME || join(userHome(env), ".scv"));
  for (const root of roots.map(norm)) {
    if (root === "/") return `"/" would make the whole machine writable; list the directories the commands need`;
    if (home && (root === home || home.startsWith(`${root}/`))) return `"${root}" is your home directory; list the directories under it the commands need`;
    if (root === scvHomeDir || scvHomeDir.startsWith(`${root}/`)) return `"${root}" holds SCV's own files ($SCV_HOME, ${scvHomeDir}), which sandboxed commands must not write; remove it`;
  }
  return undefined;
}

/**
 * Checks that need more than one key, registered by the concerns that own them (config/checks.ts); the agents'
 * keys are user-only, so their problems name the user file.
 */
const crossChecks = (): CrossCheck[] => registeredChecks();

/**
 * The user's servers with the project's layer on top. A project file may narrow a server the user file defines
 * (enabled, the tool lists, timeouts) but not change what runs or where it connects; a server only the project
 * defines is kept, marked with the project file, and its first connect needs a person's approval.
 */
function mergeMcpServers(user: ConfigFile, project: ConfigFile, userFile: string, projectFile: string | undefined): Config["mcp"]["servers"] {
  const mine = user.mcp?.servers ?? {};
  const theirs = project.mcp?.servers ?? {};
  const servers: Config["mcp"]["servers"] = {};
  for (const name of new Set([...Object.keys(mine), ...Object.keys(theirs)])) {
    const own = mine[name];
    const layer = theirs[name];
    if (own && layer) {
      const changed = Object.keys(layer).filter((k) => !(MCP_PROJECT_NARROWING_KEYS as readonly string[]).includes(k));
      if (changed.length) {
        throw new ConfigError(
          `${projectFile}: mcp.servers.${name}.${changed[0]}: your user config (${userFile}) defines server "${name}", so a project file may only set ${MCP_PROJECT_NARROWING_KEYS.join(", ")} on it; rename the project's server to define another one`,
        );
      }
    }
    const file = own ? userFile : projectFile!;
    const parsed = McpServerConfig.safeParse({ ...own, ...layer }, ONCE);
    if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => describeIssue(file, { ...i, path: ["mcp", "servers", name, ...i.path] })).join("\n"));
    servers[name] = own ? parsed.data : { ...parsed.data, project: projectFile! };
  }
  return servers;
}

/** `[notify] to`: every channel named is configured here, and a conversation named is the owner's. */
function notifyTargetsProblem(c: Config, userFile: string): string | undefined {
  for (const [i, entry] of (c.notify?.to ?? []).entries()) {
    const t = parseNotifyTarget(entry);
    if (t.kind !== "chat") continue;
    const where = `${userFile}: notify.to[${i}] (${JSON.stringify(entry)})`;
    const ch = c.channels[t.type as "dir" | "wechat" | "feishu" | "telegram"];
    if (!ch || ("enabled" in ch && ch.enabled === false)) return `${where}: no [channels.${t.type}] is configured${ch ? " (it has enabled = false)" : ""}; configure it or remove the entry`;
    if (t.account !== undefined && t.account !== ch.account) return `${where}: [channels.${t.type}] uses account "${ch.account}", not "${t.account}"; write ${t.type}/${ch.account} or ${t.type}`;
    const owner = t.type === "dir" ? (ch as { owner: string }).owner : t.type === "telegram" ? (ch as { owner?: string }).owner : t.type === "feishu" ? (ch as { owner_open_id?: string }).owner_open_id : undefined;
    if (t.conversation !== undefined && owner !== undefined && t.conversation !== owner) return `${where}: "${t.conversation}" is not the owner's conversation (the owner of [channels.${t.type}] is "${owner}"); notices go only to the owner, so leave the conversation out`;
  }
  return undefined;
}

/** Core checks name the file that set the offending value, which may be the project file. */
type FileOf = (key: string) => string | undefined;
type SourcedCheck = (config: Config, fileOf: FileOf, userFile: string) => string | undefined;
const notAboveCeiling =
  (key: "command_timeout_seconds" | "agent_timeout_seconds"): SourcedCheck =>
  (c, fileOf, userFile) => {
    if (c.tools[key] <= c.tools.max_timeout_seconds) return undefined;
    const ceiling = `tools.max_timeout_seconds (${c.tools.max_timeout_seconds}${fileOf("tools.max_timeout_seconds") ? "" : ", the default"})`;
    const file = fileOf(`tools.${key}`) ?? fileOf("tools.max_timeout_seconds") ?? userFile;
    return `${file}: tools.${key} (${c.tools[key]}) exceeds ${ceiling}; lower it, or raise the ceiling in your user config`;
  };
/** Secret bindings: each target (default: the source's name) once, and never a variable that controls execution. */
const secretBindingsCheck: SourcedCheck = (c, fileOf, userFile) => {
  const file = fileOf("tools.secret_bindings") ?? userFile;
  const seen = new Set<string>();
  for (const b of c.tools.secret_bindings) {
    const target = b.target ?? b.source.slice(4);
    if (EXECUTION_CONTROL_VARIABLES.test(target)) return `${file}: tools.secret_bindings: target ${target} controls what runs or how; bind the secret to another name`;
    if (seen.has(target)) return `${file}: tools.secret_bindings: two bindings set ${target}; give one a different target`;
    seen.add(target);
  }
  return undefined;
};
const sourcedChecks: SourcedCheck[] = [
  secretBindingsCheck,
  (c, _fileOf, userFile) => notifyTargetsProblem(c, userFile),
  notAboveCeiling("command_timeout_seconds"),
  notAboveCeiling("agent_timeout_seconds"),
  (c, fileOf, userFile) =>
    c.web.search === "searxng" && !c.web.searxng_url ? `${fileOf("web.search") ?? userFile}: web.searxng_url: required when web.search = "searxng"` : undefined,
  (c, fileOf, userFile) =>
    c.web.search === "provider" && c.providers[c.provider.active] && c.providers[c.provider.active]!.wire_api !== "responses"
      ? `${fileOf("web.search") ?? userFile}: web.search = "provider" uses the endpoint's hosted search, which needs the Responses API, but provider profile "${c.provider.active}" has wire_api = "${c.providers[c.provider.active]!.wire_api}"; ${c.providers[c.provider.active]!.kind === "anthropic" ? "" : 'set wire_api = "responses" there, or '}use web.search = "searxng", "brave" or "off"`
      : undefined,
  (c, _fileOf, userFile) => {
    for (const [name, p] of Object.entries(c.providers)) {
      const budget = p.thinking && "budget_tokens" in p.thinking ? p.thinking.budget_tokens : undefined;
      if (budget !== undefined && p.max_tokens !== undefined && budget >= p.max_tokens) {
        return `${userFile}: providers.${name}.thinking.budget_tokens (${budget}) must be below max_tokens (${p.max_tokens}): thinking is part of the answer's output; raise max_tokens or lower the budget`;
      }
    }
    return undefined;
  },
];
function validateCrossKeys(config: Config, userFile: string, fileOf: FileOf) {
  const problems = [...crossChecks().map((c) => c(config, userFile)), ...sourcedChecks.map((c) => c(config, fileOf, userFile))].filter(
    (m): m is string => !!m,
  );
  if (problems.length) throw new ConfigError(problems.join("\n"));
}
