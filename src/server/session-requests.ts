// The session requests that open or change a session: session.start (workspace checked, configuration
// loaded, a journal when sessions are kept), session.resume (the stored session reopened) and session.configure.
import { realpathSync, statSync } from "node:fs";
import { REASONING_EFFORTS } from "../config/reasoning";
import type { Config } from "../config/schema";
import { RpcError } from "../protocol/rpc";
import { ERROR_CODES, type RequestParams, type RequestResult } from "../protocol/schema";
import type { ReasoningEffort } from "../provider/types";
import { type SandboxCeiling, underCeiling } from "../sandbox/settings";
import type { SessionScope } from "../scope";
import { type SessionJournal, SessionStoreError } from "../sessions/index";
import type { Connection } from "./connection";
import { configFor, modelSetup, openSession, profileSecrets } from "./open-session";
import { reasoningCrossing } from "./reasoning-crossing";
import type { Session } from "./session";

/** session.start: the workspace checked, the configuration loaded, a journal when sessions are kept. */
export function startSession(conn: Connection, p: RequestParams<"session.start">): RequestResult<"session.start"> {
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
export function resumeSession(conn: Connection, p: RequestParams<"session.resume">): RequestResult<"session.resume"> {
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
export function configureSession(conn: Connection, s: Session, p: RequestParams<"session.configure">): RequestResult<"session.configure"> {
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

/** A persona's prompt and step limit over the configuration (session.start `persona`). */
function withPersona(config: Config, persona: RequestParams<"session.start">["persona"]): Config {
  if (!persona) return config;
  const steps = Math.min(config.tools.max_steps, persona.max_steps ?? config.tools.max_steps);
  return { ...config, agent: { ...config.agent, system_prompt: persona.system_prompt }, tools: { ...config.tools, max_steps: steps } };
}

/** The result field for problems with the files the session's instructions come from, when there are any. */
function notices(s: Session): { notices?: string[] } {
  return s.notices.length ? { notices: [...s.notices] } : {};
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
