// One protocol connection: initialize, sessions, turns, approvals. Transport-agnostic: stdio and the
// in-process client (`scv exec`, the TUI, the chat bridge) both feed it lines and receive its messages.
import { configuredSecrets } from "../config/configured-secrets";
import { sha256Hex } from "../digest";
import { existsSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { ConfigError, loadConfig, resolveApiKey, scvHome } from "../config/load";
import { createRpcEndpoint, RpcError, type RpcEndpoint } from "../protocol/rpc";
import { ERROR_CODES, PROTOCOL_VERSION, type RequestParams, type RequestResult } from "../protocol/schema";
import type { Config } from "../config/schema";
import { underCeiling, type SandboxCeiling } from "../sandbox/settings";
import { REASONING_EFFORTS } from "../config/reasoning";
import { type LoadedSession, type SessionJournal, type SessionStore, SessionStoreError } from "../sessions/index";
import { clientOrigin, createUsageRecorder, ledgerFor } from "../ledger/index";
import { createModelClient } from "../provider/client";
import { reasoningCrossing } from "./reasoning-crossing";
import { imageRef, type ImageRef } from "../provider/images";
import { contextWindowFor, imageSupportFor } from "../provider/models";
import type { ModelClient, ReasoningEffort } from "../provider/types";
import { addMcpServers, type ClientMcpServer, clientServers, configuredServers, sharedWithAgents } from "../mcp/index";
import type { SessionScope, SessionServices } from "../scope";
import { SessionCheckpoints } from "../checkpoints/index";
import { buildTools, preCompactionStep } from "../tools/index";
import { ToolRegistry } from "../tools/tool";
import { hostedSearchEnabled } from "../tools/web_search";
import { VERSION } from "../version";
import { hostedSession, type HostedSession } from "./hosted-session";
import { rewindSession, sessionCheckpoints } from "./rewind";
import { newSessionId, Session } from "./session";
import { buildSystemPrompt, compactionNote } from "./system-prompt";

export interface ServerOptions {
  send(message: unknown): Promise<void>;
  env?: NodeJS.ProcessEnv;
  /** This SCV process's own delegation depth (from SCV_DELEGATION_DEPTH); sessions may only go deeper. */
  baseDepth?: number;
  /** Test seam: replaces the HTTP model client. */
  modelClientFactory?: (profile: Parameters<typeof createModelClient>[0], apiKey: string | undefined) => ModelClient;
  /** Test seam and client services (an editor's files): extra per-session services, given the session's ID. */
  services?: (sessionId: string) => SessionServices;
  /** Where sessions are kept so they can be resumed; without it sessions live only in memory. */
  sessions?: SessionStore;
  /** Called with each session this connection starts or resumes (the chat bridge watches its jobs). */
  onSession?: (session: HostedSession) => void;
  /** The chat bridge's part in the limits: which sessions serve someone other than the owner, and telling the owner. */
  usageHooks?: { onLimit?(message: string): void };
  /**
   * A short-lived process (`scv exec`): usage and turns reach the index through the next reader's catch-up from
   * the session files, unless this process opened the index anyway (a limit check, a search).
   */
  indexLater?: boolean;
}

export interface ServerConnection extends RpcEndpoint {
  closeAll(): Promise<void>;
  /** The stdio fast path already answered a valid `initialize` before this connection loaded. */
  markInitialized(): void;
  sessionCount(): number;
}

const instanceIds = new Map<string, string>();

/** A short name for the SCV home (its real path's digest), made once per home and process. */
export function instanceIdFor(home: string): string {
  const known = instanceIds.get(home);
  if (known) return known;
  const id = instanceIdOf(home);
  instanceIds.set(home, id);
  return id;
}

function instanceIdOf(home: string): string {
  let real = home;
  try {
    real = realpathSync(home);
  } catch {
    // a home that does not exist yet still names this instance
  }
  return sha256Hex(real).slice(0, 8);
}

/** One connection's state, shared by its request handlers. */
interface Connection {
  opts: ServerOptions;
  env: NodeJS.ProcessEnv;
  sessions: Map<string, Session>;
  initialized: boolean;
  /** The client's name from `initialize`: it says where the sessions' usage comes from (terminal, exec, chat). */
  clientName?: string;
  /** Sends a notification to this connection's client (set once the endpoint exists). */
  notify: RpcEndpoint["notify"];
}

export function createServerConnection(opts: ServerOptions): ServerConnection {
  const conn: Connection = { opts, env: opts.env ?? process.env, sessions: new Map(), initialized: false, notify: async () => {} };
  const requireInit = () => {
    if (!conn.initialized) throw new RpcError(ERROR_CODES.not_initialized, "send initialize {protocol_version: 3} first");
  };
  const session = (id: string) => {
    const s = conn.sessions.get(id);
    if (!s) throw new RpcError(ERROR_CODES.unknown_session, `unknown session "${id}"; start one with session.start`);
    return s;
  };

  const endpoint: RpcEndpoint = createRpcEndpoint({
    send: opts.send,
    initialized: () => conn.initialized,
    handlers: {
      async initialize(p) {
        if (p.protocol_version !== PROTOCOL_VERSION) {
          throw new RpcError(
            ERROR_CODES.unsupported_version,
            `protocol version ${p.protocol_version} is not supported; this server speaks version ${PROTOCOL_VERSION}`,
            { supported: [PROTOCOL_VERSION] },
          );
        }
        conn.initialized = true;
        conn.clientName = p.client?.name;
        return { protocol_version: PROTOCOL_VERSION, server: { name: "scv", version: VERSION } };
      },
      async "session.start"(p) {
        requireInit();
        return startSession(conn, p);
      },
      async "session.resume"(p) {
        requireInit();
        return resumeSession(conn, p);
      },
      async "turn.start"(p) {
        requireInit();
        const s = session(p.session_id);
        const images = attachedImages(s, p.images);
        let started: { turnId: string; queued: boolean };
        try {
          started = s.startTurn(p.prompt, images, p.goal);
        } catch (e) {
          throw new RpcError(ERROR_CODES.invalid_params, (e as Error).message);
        }
        const { turnId, queued } = started;
        return { turn_id: turnId, queued };
      },
      async "turn.cancel"(p) {
        requireInit();
        return { cancelled: session(p.session_id).cancel(p.turn_id) };
      },
      async "approval.resolve"(p) {
        requireInit();
        const answered = session(p.session_id).resolveApproval(p.approval_id, p.approved, p.remember, p.reason, p.chosen);
        if (!answered) {
          throw new RpcError(ERROR_CODES.unknown_approval, `no pending approval "${p.approval_id}" in this session (already answered or its turn ended)`);
        }
        return { ok: true as const, ...answered };
      },
      async "clarify.answer"(p) {
        requireInit();
        if (!session(p.session_id).answerQuestion(p.clarify_id, p.answer)) {
          throw new RpcError(ERROR_CODES.unknown_approval, `no open question "${p.clarify_id}" in this session (already answered, timed out, or its turn ended)`);
        }
        return { ok: true as const };
      },
      async "session.configure"(p) {
        requireInit();
        return configureSession(conn, session(p.session_id), p);
      },
      async "session.compact"(p) {
        requireInit();
        const result = await session(p.session_id).compactNow();
        if (result.ok) return { compacted: true, turns: result.turns, tokens_before: result.tokensBefore, tokens_after: result.tokensAfter };
        if (result.failure) throw new RpcError(ERROR_CODES.internal_error, `compaction failed: ${result.message}`);
        return { compacted: false, turns: 0, tokens_before: 0, tokens_after: 0 };
      },
      async "session.checkpoints"(p) {
        requireInit();
        return sessionCheckpoints(session(p.session_id));
      },
      async "session.rewind"(p) {
        requireInit();
        return rewindSession(session(p.session_id), p);
      },
      async "session.close"(p) {
        requireInit();
        const s = session(p.session_id);
        conn.sessions.delete(p.session_id);
        await s.close();
        return { closed: true as const };
      },
    },
  });
  conn.notify = (method, params) => endpoint.notify(method, params);

  return {
    ...endpoint,
    async closeAll() {
      const all = [...conn.sessions.values()];
      conn.sessions.clear();
      await Promise.all(all.map((s) => s.close()));
    },
    sessionCount: () => conn.sessions.size,
    markInitialized: () => void (conn.initialized = true),
  };
}

/** session.start: the workspace checked, the configuration loaded, a journal when sessions are kept. */
function startSession(conn: Connection, p: RequestParams<"session.start">): RequestResult<"session.start"> {
  let workspace: string;
  try {
    workspace = realpathSync(p.cwd);
    if (!statSync(workspace).isDirectory()) throw new Error("not a directory");
  } catch {
    throw new RpcError(ERROR_CODES.invalid_params, `cwd "${p.cwd}" is not an existing directory; pass the workspace root`);
  }
  const config = withPersona(configFor(conn.env, workspace), p.persona);
  const profileName = config.provider.active;
  const modelName = p.model ?? config.providers[profileName]!.model;
  const toolsEnabled = p.tools !== false;
  let journal: SessionJournal | undefined;
  if (conn.opts.sessions) {
    const store = conn.opts.sessions;
    const recorder = storeCall(() =>
      store.create(
        { workspace, provider: profileName, model: modelName, tools: toolsEnabled, ...(p.channel ? { channel: p.channel } : {}) },
        { secrets: profileSecrets(config, profileName, conn.env) },
      ),
    );
    if (p.keep) recorder.keep();
    journal = { recorder, store };
  }
  const s = openSession(conn, { workspace, config: withSandboxLimits(config, p.sandbox_auto_run, p.sandbox_ceiling), profileName, modelName, toolsEnabled, autoApprove: p.auto_approve, questions: p.questions, depth: p.delegation_depth, journal, channel: p.channel, effort: p.reasoning_effort, overBudget: p.over_budget, clientMcpServers: p.mcp_servers, ...(p.persona?.tools ? { toolAllow: p.persona.tools } : {}) });
  if (p.approval_mode) s.approvalMode = p.approval_mode;
  return { session_id: s.id, workspace, tools: s.tools.list().map((t) => t.name), model: modelName, provider: profileName, context_window: s.contextWindow, ...notices(s) };
}

/** session.resume: the stored session reopened with its history, its profile kept while it exists. */
function resumeSession(conn: Connection, p: RequestParams<"session.resume">): RequestResult<"session.resume"> {
  const store = conn.opts.sessions;
  if (!store) throw new RpcError(ERROR_CODES.invalid_params, "this server keeps no sessions, so none can be resumed");
  if (conn.sessions.has(p.session_id)) throw new RpcError(ERROR_CODES.session_in_use, `session ${p.session_id} is already open on this connection`);
  let config!: Config;
  let profileName = "";
  let storedProvider = "";
  let workspace = "";
  const { loaded, recorder } = storeCall(() =>
    store.resume(p.session_id, (stored) => {
      workspace = stored.header.workspace;
      storedProvider = stored.provider;
      if (!isDirectory(workspace)) {
        throw new RpcError(ERROR_CODES.invalid_params, `the workspace of session ${p.session_id}, ${workspace}, no longer exists; restore it to resume the session`);
      }
      config = configFor(conn.env, workspace);
      if (p.provider !== undefined) {
        if (!Object.hasOwn(config.providers, p.provider)) {
          throw new RpcError(ERROR_CODES.invalid_params, `no provider profile "${p.provider}"; the configured ones are ${Object.keys(config.providers).join(", ")}`);
        }
        profileName = p.provider;
        return { provider: profileName, model: p.model ?? config.providers[profileName]!.model, secrets: profileSecrets(config, profileName, conn.env) };
      }
      // The session keeps its provider profile while the profile exists; the active one stands in otherwise.
      profileName = config.providers[stored.provider] ? stored.provider : config.provider.active;
      if (profileName !== stored.provider) stored.warnings.push(`provider profile "${stored.provider}" no longer exists; using "${profileName}"`);
      return { provider: profileName, model: p.model ?? stored.model, secrets: profileSecrets(config, profileName, conn.env) };
    }),
  );
  const modelName = p.model ?? (p.provider !== undefined ? config.providers[profileName]!.model : loaded.model);
  const s = openSession(conn, {
    workspace,
    config: withSandboxLimits(config, p.sandbox_auto_run, p.sandbox_ceiling),
    profileName,
    modelName,
    toolsEnabled: loaded.header.tools,
    autoApprove: p.auto_approve,
    questions: p.questions,
    depth: p.delegation_depth,
    journal: { recorder, store, restored: { conversations: loaded.conversations, jobs: loaded.jobs, ...(loaded.plan ? { plan: loaded.plan } : {}) } },
    restored: loaded,
    channel: loaded.header.channel as SessionScope["channel"],
    overBudget: p.over_budget,
    clientMcpServers: p.mcp_servers,
    ...(loaded.reasoningEffort && isReasoningEffort(loaded.reasoningEffort) ? { effort: loaded.reasoningEffort } : {}),
  });
  if (p.approval_mode) s.approvalMode = p.approval_mode;
  const to = config.providers[profileName]!;
  const from = config.providers[storedProvider];
  // Resumed on a profile of the other kind: what its API cannot read is left out, and the client is told.
  if (from && from.kind !== to.kind) loaded.warnings.push(...reasoningCrossing(s.reasoningHeld, from, storedProvider, to, profileName));
  return {
    session_id: s.id,
    workspace,
    tools: s.tools.list().map((t) => t.name),
    model: modelName,
    provider: profileName,
    context_window: s.contextWindow,
    turns: loaded.turns.map(({ items: _items, ...turn }) => turn as RequestResult<"session.resume">["turns"][number]),
    conversations: loaded.conversations.map((c) => ({ handle: c.handle, agent: c.agent })),
    jobs: loaded.jobs.map((j) => ({ job: j.job, agent: j.agent, status: j.status, ...(j.conversation ? { conversation: j.conversation } : {}) })),
    warnings: loaded.warnings,
    ...notices(s),
    ...(loaded.plan?.length ? { plan: loaded.plan } : {}),
    ...(s.goals.active ? { goal: { check: s.goals.active.check, attempts: s.goals.active.attempt, budget: s.goals.active.budget } } : {}),
  };
}

/**
 * session.configure: the model, profile or effort from the next turn on. A new profile brings its own model and
 * effort unless they are named; a new model of the same profile keeps the effort. Nothing named: the settings in
 * force, unchanged and unrecorded.
 */
function configureSession(conn: Connection, s: Session, p: RequestParams<"session.configure">): RequestResult<"session.configure"> {
  const config = s.scope.config;
  const current = s.settings;
  const profileName = p.provider ?? current.provider;
  const profile = Object.hasOwn(config.providers, profileName) ? config.providers[profileName] : undefined;
  if (!profile) {
    throw new RpcError(ERROR_CODES.invalid_params, `no provider profile "${profileName}"; the profiles are ${Object.keys(config.providers).map((n) => `"${n}"`).join(", ")} (scv config show)`);
  }
  const changesProfile = profileName !== current.provider;
  const notes: string[] = [];
  if (changesProfile) notes.push(...reasoningCrossing(s.reasoningHeld, config.providers[current.provider], current.provider, profile, profileName));
  const modelName = p.model ?? (changesProfile ? profile.model : current.model);
  const effort = p.reasoning_effort ?? (changesProfile ? undefined : (current.reasoningEffort as ReasoningEffort | undefined));
  if (p.provider !== undefined || p.model !== undefined || p.reasoning_effort !== undefined) s.configure(modelSetup(conn, config, profileName, modelName, effort));
  if (p.approval_mode) s.approvalMode = p.approval_mode;
  const now = s.settings;
  return {
    approval_mode: s.approvalMode,
    provider: now.provider,
    model: now.model,
    wire_api: config.providers[now.provider]?.wire_api ?? profile.wire_api,
    ...(now.reasoningEffort ? { reasoning_effort: now.reasoningEffort as ReasoningEffort } : {}),
    context_window: s.contextWindow,
    ...(notes.length ? { notices: notes } : {}),
  };
}

function isReasoningEffort(value: string): value is ReasoningEffort {
  return (REASONING_EFFORTS as readonly string[]).includes(value);
}

function configFor(env: NodeJS.ProcessEnv, workspace: string): Config {
  try {
    return loadConfig({ cwd: workspace, env }).config;
  } catch (e) {
    if (e instanceof ConfigError) throw new RpcError(ERROR_CODES.configuration, `configuration error: ${e.message}`);
    throw e;
  }
}

/** The model client and what goes with it for a profile and model; throws when the profile has no key it needs. */
function modelSetup(conn: Connection, config: Config, profileName: string, modelName: string, effortOverride: ReasoningEffort | undefined) {
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

/** A session on its provider profile's model client, registered on the connection and handed to its host. */
function openSession(conn: Connection, o: OpenSession): Session {
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

interface OpenSession {
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

/** A persona's prompt and step limit over the configuration (session.start `persona`). */
function withPersona(config: Config, persona: RequestParams<"session.start">["persona"]): Config {
  if (!persona) return config;
  const steps = Math.min(config.tools.max_steps, persona.max_steps ?? config.tools.max_steps);
  return { ...config, agent: { ...config.agent, system_prompt: persona.system_prompt }, tools: { ...config.tools, max_steps: steps } };
}

/** The registry with only the named tools (their order kept). */
function onlyTools(tools: ToolRegistry, allow: readonly string[]): ToolRegistry {
  const kept = new ToolRegistry();
  for (const t of tools.list()) if (allow.includes(t.name)) kept.register(t);
  return kept;
}

/** The result field for problems with the files the session's instructions come from, when there are any. */
function notices(s: Session): { notices?: string[] } {
  return s.notices.length ? { notices: [...s.notices] } : {};
}

/** Values a session record must never hold: the profile's key, its extra header values, the search key. */
/** Every configured secret a session file must never hold, the active profile's first. */
function profileSecrets(config: Config, profileName: string, env: NodeJS.ProcessEnv): string[] {
  return configuredSecrets(config, env, profileName);
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

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Runs a session-store call, turning its refusals into protocol errors that say what to do. */
function storeCall<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof RpcError) throw e;
    if (e instanceof SessionStoreError) {
      throw new RpcError(e.kind === "in_use" ? ERROR_CODES.session_in_use : ERROR_CODES.unknown_session, e.message);
    }
    throw new RpcError(ERROR_CODES.internal_error, `cannot use the session store: ${(e as Error).message}; check that $SCV_HOME/state/sessions is a writable directory`);
  }
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

/** Images a client attached to a prompt, checked before the turn is queued: a refusal says what to change. */
function attachedImages(s: Session, paths: string[] | undefined): ImageRef[] | undefined {
  if (!paths?.length) return undefined;
  if (!s.scope.images?.accepted) {
    throw new RpcError(ERROR_CODES.invalid_params, `cannot attach images: ${s.scope.images?.reason ?? "this session's model does not take images"}`);
  }
  return paths.map((p) => {
    if (!isAbsolute(p)) throw new RpcError(ERROR_CODES.invalid_params, `image path ${JSON.stringify(p)} must be absolute`);
    try {
      return imageRef(p);
    } catch (e) {
      throw new RpcError(ERROR_CODES.invalid_params, (e as Error).message);
    }
  });
}

/**
 * A session's config with `[sandbox] auto_run` turned off when the client asked (session.start/resume
 * `sandbox_auto_run: false`), and at most as open as a parent SCV's sandbox (`sandbox_ceiling`).
 */
function withSandboxLimits(config: Config, autoRun: boolean | undefined, ceiling: SandboxCeiling | undefined): Config {
  let sandbox = config.sandbox;
  if (ceiling) sandbox = underCeiling(sandbox, ceiling);
  if (autoRun === false) sandbox = { ...sandbox, auto_run: false };
  return sandbox === config.sandbox ? config : { ...config, sandbox };
}
