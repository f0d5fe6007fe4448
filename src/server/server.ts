// One protocol connection: initialize, sessions, turns, approvals. Transport-agnostic: stdio and the
// in-process `scv exec` client both feed it lines and receive its messages.
import { createHash } from "node:crypto";
import { realpathSync, statSync } from "node:fs";
import { ConfigError, loadConfig, resolveApiKey, scvHome } from "../config/load";
import { createRpcEndpoint, RpcError, type RpcEndpoint } from "../protocol/rpc";
import { ERROR_CODES, PROTOCOL_VERSION } from "../protocol/schema";
import { createModelClient } from "../provider/client";
import type { ModelClient } from "../provider/types";
import { buildTools } from "../tools/index";
import { hostedSearchEnabled } from "../tools/web_search";
import { VERSION } from "../version";
import { newSessionId, Session } from "./session";
import { buildSystemPrompt } from "./system-prompt";

export interface ServerOptions {
  send(message: unknown): Promise<void>;
  env?: NodeJS.ProcessEnv;
  /** This SCV process's own delegation depth (from SCV_DELEGATION_DEPTH); sessions may only go deeper. */
  baseDepth?: number;
  /** Test seam: replaces the HTTP model client. */
  modelClientFactory?: (profile: Parameters<typeof createModelClient>[0], apiKey: string | undefined) => ModelClient;
  /** Test seam and nested services: extra per-session services. */
  services?: () => Record<string, unknown>;
}

export interface ServerConnection extends RpcEndpoint {
  closeAll(): Promise<void>;
  /** The stdio fast path already answered a valid `initialize` before this connection loaded. */
  markInitialized(): void;
  sessionCount(): number;
}

export function instanceIdFor(home: string): string {
  let real = home;
  try {
    real = realpathSync(home);
  } catch {
    // a home that does not exist yet still names this instance
  }
  return createHash("sha256").update(real).digest("hex").slice(0, 8);
}

export function createServerConnection(opts: ServerOptions): ServerConnection {
  const env = opts.env ?? process.env;
  const sessions = new Map<string, Session>();
  let initialized = false;

  const session = (id: string) => {
    const s = sessions.get(id);
    if (!s) throw new RpcError(ERROR_CODES.unknown_session, `unknown session "${id}"; start one with session.start`);
    return s;
  };
  const requireInit = () => {
    if (!initialized) throw new RpcError(ERROR_CODES.not_initialized, "send initialize {protocol_version: 3} first");
  };

  const endpoint: RpcEndpoint = createRpcEndpoint({
    send: opts.send,
    initialized: () => initialized,
    handlers: {
      async initialize(p) {
        if (p.protocol_version !== PROTOCOL_VERSION) {
          throw new RpcError(
            ERROR_CODES.unsupported_version,
            `protocol version ${p.protocol_version} is not supported; this server speaks version ${PROTOCOL_VERSION}`,
            { supported: [PROTOCOL_VERSION] },
          );
        }
        initialized = true;
        return { protocol_version: PROTOCOL_VERSION, server: { name: "scv", version: VERSION } };
      },
      async "session.start"(p) {
        requireInit();
        let workspace: string;
        try {
          workspace = realpathSync(p.cwd);
          if (!statSync(workspace).isDirectory()) throw new Error("not a directory");
        } catch {
          throw new RpcError(ERROR_CODES.invalid_params, `cwd "${p.cwd}" is not an existing directory; pass the workspace root`);
        }
        let loaded;
        try {
          loaded = loadConfig({ cwd: workspace, env });
        } catch (e) {
          if (e instanceof ConfigError) throw new RpcError(ERROR_CODES.configuration, `configuration error: ${e.message}`);
          throw e;
        }
        const config = loaded.config;
        const profile = config.providers[config.provider.active]!;
        const apiKey = resolveApiKey(profile, env);
        if (!apiKey && !opts.modelClientFactory && new URL(profile.base_url).hostname === "api.openai.com") {
          throw new RpcError(ERROR_CODES.configuration, missingKeyMessage(config.provider.active, profile.api_key_env));
        }
        const model = opts.modelClientFactory?.(profile, apiKey) ?? createModelClient(profile, { apiKey, version: VERSION });
        const modelName = p.model ?? profile.model;
        const depth = Math.max(p.delegation_depth ?? 0, opts.baseDepth ?? 0);
        const home = scvHome(env);
        const toolsEnabled = p.tools !== false;
        const s = new Session({
          scope: {
            sessionId: newSessionId(),
            instanceId: instanceIdFor(home),
            workspace,
            config,
            scvHome: home,
            env,
            delegationDepth: depth,
            version: VERSION,
            services: { ...(opts.services?.() ?? {}) },
          },
          buildTools: (scope) => buildTools(scope, { enabled: toolsEnabled }),
          hostedWebSearch: (scope) => hostedSearchEnabled(scope, toolsEnabled),
          systemPrompt: buildSystemPrompt,
          model,
          modelName,
          autoApprove: p.auto_approve ?? false,
          emit: (method, params) => void endpoint.notify(method, params),
        });
        sessions.set(s.id, s);
        return { session_id: s.id, workspace, tools: s.tools.list().map((t) => t.name), model: modelName };
      },
      async "turn.start"(p) {
        requireInit();
        const { turnId, queued } = session(p.session_id).startTurn(p.prompt);
        return { turn_id: turnId, queued };
      },
      async "turn.cancel"(p) {
        requireInit();
        return { cancelled: session(p.session_id).cancel(p.turn_id) };
      },
      async "approval.resolve"(p) {
        requireInit();
        if (!session(p.session_id).resolveApproval(p.approval_id, p.approved)) {
          throw new RpcError(ERROR_CODES.unknown_approval, `no pending approval "${p.approval_id}" in this session (already answered or its turn ended)`);
        }
        return { ok: true as const };
      },
      async "session.close"(p) {
        requireInit();
        const s = session(p.session_id);
        sessions.delete(p.session_id);
        await s.close();
        return { closed: true as const };
      },
    },
  });

  return {
    ...endpoint,
    async closeAll() {
      const all = [...sessions.values()];
      sessions.clear();
      await Promise.all(all.map((s) => s.close()));
    },
    sessionCount: () => sessions.size,
    markInitialized: () => void (initialized = true),
  };
}

export function missingKeyMessage(profileName: string, keyEnv: string | undefined): string {
  const where = `under [providers.${profileName}] in $SCV_HOME/config.toml`;
  // A profile the user wrote names its key itself: with no api_key_env, OPENAI_API_KEY is not read.
  const setKey = keyEnv
    ? `set ${keyEnv} in the environment (the profile's api_key_env), or set api_key ${where}`
    : `the profile names no key: add api_key_env = "OPENAI_API_KEY" (or api_key = "...") ${where}`;
  return `no API key for provider "${profileName}": ${setKey}; to use any OpenAI-compatible endpoint instead, set its base_url there`;
}
