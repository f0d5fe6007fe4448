// Opening a session on a connection: its provider profile's model client (refused with the fix when a key is
// missing), its usage recorder, scope, services and tools, registered on the connection and handed to its host.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { SessionCheckpoints } from "../checkpoints/index";
import { configuredSecrets } from "../config/configured-secrets";
import { ConfigError, loadConfig, resolveApiKey, scvHome } from "../config/load";
import type { Config } from "../config/schema";
import { clientOrigin, createUsageRecorder, ledgerFor } from "../ledger/index";
import { addMcpServers, type ClientMcpServer, clientServers, configuredServers, sharedWithAgents } from "../mcp/index";
import { RpcError } from "../protocol/rpc";
import { ERROR_CODES } from "../protocol/schema";
import { createModelClient } from "../provider/client";
import { contextWindowFor, imageSupportFor } from "../provider/models";
import type { ReasoningEffort } from "../provider/types";
import type { SessionScope } from "../scope";
import type { LoadedSession, SessionJournal } from "../sessions/index";
import { buildTools, preCompactionStep } from "../tools/index";
import { ToolRegistry } from "../tools/tool";
import { hostedSearchEnabled } from "../tools/web_search";
import { VERSION } from "../version";
import { type Connection, instanceIdFor } from "./connection";
import { hostedSession } from "./hosted-session";
import { newSessionId, Session } from "./session";
import { buildSystemPrompt, compactionNote } from "./system-prompt";

export interface OpenSession {
  workspace: string;
  config: Config;
  profileName: string;
  modelName: string;
  toolsEnabled: boolean;
  autoApprove?: boolean;
  /** The client puts the model's questions to a person (session.start `questions`). */
  questions?: boolean;
  depth?: number;
  journal?: SessionJournal;
  restored?: LoadedSession;
  /** The chat conversation a chat bridge opened this session for. */
  channel?: SessionScope["channel"];
  /** Reasoning effort for this session (session.start), over the profile's. */
  effort?: ReasoningEffort;
  /** The session goes over the spending limits (`scv exec --over-budget`). */
  overBudget?: boolean;
  /** MCP servers the client brought (session.start/resume `mcp_servers`), beside the configured ones. */
  clientMcpServers?: ClientMcpServer[];
  /** session.start `persona.tools`: the only tools offered. */
  toolAllow?: string[];
}

/** A session on its provider profile's model client, registered on the connection and handed to its host. */
export function openSession(conn: Connection, o: OpenSession): Session {
  const { opts, env } = conn;
  let setup: ReturnType<typeof modelSetup>;
  try {
    setup = modelSetup(conn, o.config, o.profileName, o.modelName, o.effort);
  } catch (e) {
    o.journal?.recorder.close();
    throw e;
  }
  const home = scvHome(env);
  const depth = Math.max(o.depth ?? 0, opts.baseDepth ?? 0);
  const sessionId = o.journal?.recorder.id ?? newSessionId();
  const origin = clientOrigin(conn.clientName, !!o.channel);
  // Read at each request, so a request after session.configure is counted against the model it went to.
  let opened: Session | undefined;
  const usage = createUsageRecorder({
    ledger: ledgerFor(home),
    sessionId,
    ...(o.journal ? { journal: o.journal.recorder } : {}),
    origin,
    get provider() {
      return opened?.settings.provider ?? o.profileName;
    },
    get model() {
      return opened?.settings.model ?? o.modelName;
    },
    ...(o.channel ? { channel: o.channel } : {}),
    config: o.config,
    overBudget: o.overBudget,
    ...(opts.usageHooks ?? {}),
    ...(opts.indexLater ? { indexLater: true } : {}),
  });
  const s = new Session({
    scope: {
      sessionId,
      instanceId: instanceIdFor(home),
      workspace: o.workspace,
      config: o.config,
      scvHome: home,
      env,
      delegationDepth: depth,
      owner: isOwnerSession(depth, o.channel),
      ...(origin === "schedule" ? { unattended: true } : {}),
      version: VERSION,
      services: { mcpServersForAgents: (cwd: string) => sharedWithAgents(o.config, cwd, env), ...checkpointsFor(home, sessionId, o, depth), ...(opts.services?.(sessionId) ?? {}) },
      images: setup.images,
      ...(o.journal ? { journal: o.journal } : {}),
      ...(o.channel ? { channel: o.channel } : {}),
      usage,
    },
    buildTools: (scope) => {
      const built = buildTools(scope, { enabled: o.toolsEnabled });
      // An agent file's allow list: only the tools it names are offered (src/command-files/agents.ts).
      const tools = o.toolAllow ? onlyTools(built, o.toolAllow) : built;
      // Connected at the first turn, after approval; a chat conversation's session keeps its servers across turns.
      if (o.toolsEnabled && !o.toolAllow) addMcpServers(tools, scope, [...configuredServers(scope.config, join(home, "config.toml")), ...clientServers(o.clientMcpServers ?? [])]);
      return tools;
    },
    hostedWebSearch: (scope) => hostedSearchEnabled(scope, o.toolsEnabled),
    systemPrompt: buildSystemPrompt,
    compactionNote,
    beforeCompaction: preCompactionStep,
    provider: setup.provider,
    model: setup.model,
    modelName: setup.modelName,
    reasoning: setup.reasoning,
    context: setup.context,
    autoApprove: o.autoApprove ?? false,
    questions: o.questions ?? false,
    emit: (method, params) => void conn.notify(method, params),
    restored: o.restored,
  });
  opened = s;
  conn.sessions.set(s.id, s);
  opts.onSession?.(hostedSession(s));
  return s;
}

/** A stored session with tools keeps checkpoints of its workspace unless `[checkpoints] enabled = false`. */
function checkpointsFor(home: string, sessionId: string, o: OpenSession, depth: number): { checkpoints?: SessionCheckpoints; rewind?: SessionCheckpoints } {
  const journal = o.journal;
  // A nested SCV child (depth > 0) records none: the parent's agent call already covers what it changes.
  if (!journal || !o.toolsEnabled || !o.config.checkpoints.enabled || depth > 0) return {};
  const checkpoints = new SessionCheckpoints({ home, sessionId, workspace: o.workspace, config: o.config.checkpoints, openSessions: () => journal.store.openIds(), sessionExists: (id) => existsSync(journal.store.fileOf(id)) });
  // One object, two faces: the turn loop records through `checkpoints`, session.rewind restores through `rewind`.
  return { checkpoints, rewind: checkpoints };
}

/** The model client and what goes with it for a profile and model; throws when the profile has no key it needs. */
export function modelSetup(conn: Connection, config: Config, profileName: string, modelName: string, effortOverride: ReasoningEffort | undefined) {
  const { opts, env } = conn;
  const profile = config.providers[profileName]!;
  const apiKey = resolveApiKey(profile, env);
  if (!apiKey && !opts.modelClientFactory && ["api.openai.com", "api.anthropic.com"].includes(new URL(profile.base_url).hostname)) {
    throw new RpcError(ERROR_CODES.configuration, missingKeyMessage(profileName, profile.api_key_env, join(scvHome(env), "config.toml"), profile.kind));
  }
  const model = opts.modelClientFactory?.(profile, apiKey) ?? createModelClient(profile, { apiKey, version: VERSION });
  // The connection (for a remote endpoint, a TLS handshake) is made while the client sends its first prompt.
  model.preconnect?.();
  const effort = effortOverride ?? profile.reasoning_effort;
  const reasoning = { ...(effort ? { effort } : {}), ...(profile.reasoning_summary ? { summary: profile.reasoning_summary } : {}) };
  return {
    provider: profileName,
    model,
    modelName,
    reasoning,
    context: { window: contextWindowFor(modelName, profile.context_window), compactAt: profile.compact_at },
    images: imageSupportFor(modelName, profileName, profile.images),
  };
}

export function configFor(env: NodeJS.ProcessEnv, workspace: string): Config {
  try {
    return loadConfig({ cwd: workspace, env }).config;
  } catch (e) {
    if (e instanceof ConfigError) throw new RpcError(ERROR_CODES.configuration, `configuration error: ${e.message}`);
    throw e;
  }
}

/** Every configured secret a session file must never hold, the active profile's first. */
export function profileSecrets(config: Config, profileName: string, env: NodeJS.ProcessEnv): string[] {
  return configuredSecrets(config, env, profileName);
}

/** The registry with only the named tools (their order kept). */
function onlyTools(tools: ToolRegistry, allow: readonly string[]): ToolRegistry {
  const kept = new ToolRegistry();
  for (const t of tools.list()) if (allow.includes(t.name)) kept.register(t);
  return kept;
}

/**
 * A session serves the owner when it heads its delegation chain (a delegated SCV works for its parent, which
 * carries the owner's memory) and is not a chat, or is the chat the bridge marks as the owner's direct one.
 * A chat session stored before the bridge said so is the owner's when it has a chat log (only theirs has one).
 */
function isOwnerSession(depth: number, channel: SessionScope["channel"] | undefined): boolean {
  if (depth > 0) return false;
  if (!channel) return true;
  return channel.owner ?? !!channel.log;
}

export function missingKeyMessage(profileName: string, keyEnv: string | undefined, userFile: string, kind: "openai" | "anthropic" = "openai"): string {
  const where = `under [providers.${profileName}] in ${userFile}`;
  // A profile the user wrote names its key itself: with no api_key_env, OPENAI_API_KEY is not read.
  const setKey = keyEnv
    ? `set ${keyEnv} in the environment (the profile's api_key_env), or set api_key ${where}`
    : `the profile names no key: add api_key_env = "${kind === "anthropic" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY"}" (or api_key = "...") ${where}`;
  const other = kind === "anthropic" ? "an Anthropic-compatible relay" : "any OpenAI-compatible endpoint";
  return `no API key for provider "${profileName}": ${setKey}; to use ${other} instead, set its base_url there`;
}
