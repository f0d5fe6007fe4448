// `scv acp` behind its fast path: the editor's ACP requests, each served by the one in-process SCV server
// connection this process drives (as `scv exec` and the TUI do), with ACP's errors for bad input.
import { statSync } from "node:fs";
import { isAbsolute } from "node:path";
import type { z } from "zod";
import {
  AgentInitializeParams,
  AnyResult,
  ReadTextFileResult,
  ListSessionsParams,
  LoadSessionParams,
  NewSessionParams,
  PromptParams,
  SessionIdParams,
  SetConfigOptionParams,
  SetModelParams,
  SetModeParams,
} from "../protocol/acp";
import { prebuiltAcpSchemas } from "../protocol/acp-request-schemas" with { type: "macro" };
import { certainlyValid, type JsonSchema } from "../fast-check/check";
import { ERROR_CODES, type NotificationMethod, type RequestResult } from "../protocol/schema";
import { createInProcessClient } from "../server/in-process-client";
import type { EditorFiles } from "../fs/editor-files";
import type { SessionStore } from "../sessions/index";
import { storedWorkspace } from "../sessions/workspace";
import { type ClientOffers, initializeResult, offersFrom } from "./capabilities";
import { ACP_ERRORS, AcpError, AcpPeer } from "./rpc";
import { AcpSession } from "./session";
import { editorMcpServers } from "./mcp";
import type { Profiles } from "./modes";
import { configuredSecrets } from "../config/configured-secrets";
import { loadConfig, scvHome } from "../config/load";
import { scrubSecrets } from "../text/scrub";
import { join } from "node:path";

export interface AcpAgentOptions {
  send(message: unknown): Promise<void>;
  env: NodeJS.ProcessEnv;
  baseDepth: number;
  sessions: SessionStore;
  /** What the fast path learnt from an `initialize` it answered before this module loaded. */
  initialized?: ClientOffers;
  /** One line for the editor's agent log (stderr). */
  log(line: string): void;
}

export interface AcpAgent {
  peer: AcpPeer;
  close(): Promise<void>;
}

const LIST_PAGE = 100;

/** ACP's error for what SCV's server refused: an unknown session is a missing resource, the rest keep their words. */
function translate(e: unknown): never {
  if (e instanceof AcpError) throw e;
  const code = (e as { code?: number }).code;
  const message = (e as Error).message;
  if (code === ERROR_CODES.unknown_session) throw new AcpError(ACP_ERRORS.resource_not_found, message);
  if (code === ERROR_CODES.invalid_params) throw new AcpError(ACP_ERRORS.invalid_params, message);
  throw new AcpError(ACP_ERRORS.internal_error, message, code === undefined ? undefined : { scvCode: code });
}

/** The params' JSON Schemas, made at build time: a request they certainly accept is taken without zod. */
const FAST: Record<string, JsonSchema> = prebuiltAcpSchemas();

function parse<T extends z.ZodType>(schema: T, params: unknown, method: string): z.infer<T> {
  const fast = FAST[method];
  if (fast && certainlyValid(fast, params ?? {})) return (params ?? {}) as z.infer<T>;
  const parsed = schema.safeParse(params ?? {});
  if (parsed.success) return parsed.data;
  const why = parsed.error.issues.map((i) => `${i.path.join(".") || "params"}: ${i.message}`).join("; ");
  throw new AcpError(ACP_ERRORS.invalid_params, `invalid params for ${method}: ${why}`);
}

function requireDirectory(cwd: string): void {
  if (!isAbsolute(cwd)) throw new AcpError(ACP_ERRORS.invalid_params, `cwd "${cwd}" is not an absolute path; pass the workspace's absolute path`);
  let isDir = false;
  try {
    isDir = statSync(cwd).isDirectory();
  } catch {
    // reported below
  }
  if (!isDir) throw new AcpError(ACP_ERRORS.invalid_params, `cwd "${cwd}" is not an existing directory; pass the workspace's absolute path`);
}

export function createAcpAgent(opts: AcpAgentOptions): AcpAgent {
  let offers = opts.initialized;
  const sessions = new Map<string, AcpSession>();
  const scv = createInProcessClient({
    env: opts.env,
    sessions: opts.sessions,
    baseDepth: opts.baseDepth,
    services: (sessionId) => ({ editorFiles: editorFiles(sessionId) }),
    onNotification(method, params) {
      sessions.get(params?.session_id)?.onEvent(method as NotificationMethod, params);
    },
  });
  const scvReady = scv.request("initialize", { protocol_version: 3, client: { name: "scv-acp" } });

  /** The editor's file access for a session's `read` and `write`, as far as `initialize` offered it. */
  const editorFiles = (sessionId: string): EditorFiles => ({
    ...(offers?.readTextFile ? { read: async (path: string) => (await peer.request("fs/read_text_file", { sessionId, path }, ReadTextFileResult)).content } : {}),
    ...(offers?.writeTextFile
      ? {
          write: async (path: string, content: string) => {
            await peer.request("fs/write_text_file", { sessionId, path, content }, AnyResult);
            sessions.get(sessionId)?.wroteThroughEditor(path, content);
          },
        }
      : {}),
  });

  /** The provider profiles configured for a workspace (the session's config), the session's own first. */
  const profilesFor = (workspace: string, current: string | undefined): Profiles => {
    const config = loadConfig({ cwd: workspace, env: opts.env }).config;
    const all = Object.entries(config.providers).map(([name, p]) => ({ name, model: p.model }));
    return { current: current ?? config.provider.active, all };
  };

  const session = (id: string) => {
    const s = sessions.get(id);
    if (!s) throw new AcpError(ACP_ERRORS.resource_not_found, `unknown session "${id}": start one with session/new, or open a stored one with session/load`);
    return s;
  };

  const mcpOf = (servers: Record<string, unknown>[] | undefined) => {
    const list = editorMcpServers(servers, opts.log);
    return list.length ? { mcp_servers: list } : {};
  };

  /** The key scrubber for what a session sends the editor: the workspace's configured keys, and key formats. */
  const maskFor = (workspace: string): ((text: string) => string) => {
    let secrets: string[] = [];
    try {
      const config = loadConfig({ cwd: workspace, env: opts.env }).config;
      secrets = configuredSecrets(config, opts.env, config.provider.active);
    } catch {
      // a configuration that does not load opens no session either; key formats are still masked
    }
    return (text) => scrubSecrets(text, secrets);
  };

  const open = (id: string, workspace: string, provider: string | undefined, mcp: ReturnType<typeof mcpOf>) => {
    const s = new AcpSession({
      mask: maskFor(workspace),
      id,
      workspace,
      scv,
      peer,
      profiles: profilesFor(workspace, provider),
      imageDir: join(scvHome(opts.env), "state", "acp-images", id),
      scvHome: scvHome(opts.env),
      switchProfile: async (name) => {
        await scv.request("session.close", { session_id: id }).catch(translate);
        await scv.request("session.resume", { session_id: id, provider: name, questions: true, ...mcp }).catch(translate);
      },
      log: (line) => opts.log(`${id}: ${line}`),
    });
    sessions.set(id, s);
    return s;
  };

  /** Opens a stored session here (closing it first if this connection has it open). */
  const resume = async (id: string, mcp: ReturnType<typeof mcpOf>): Promise<{ s: AcpSession; r: RequestResult<"session.resume"> }> => {
    await scvReady;
    if (sessions.has(id)) await closeSession(id);
    const r = await scv.request<RequestResult<"session.resume">>("session.resume", { session_id: id, questions: true, ...mcp }).catch(translate);
    for (const w of r.warnings) opts.log(`${id}: warning: ${w}`);
    return { s: open(r.session_id, r.workspace, r.provider, mcp), r };
  };

  const closeSession = async (id: string) => {
    const s = session(id);
    sessions.delete(id);
    s.closed();
    await scv.request("session.close", { session_id: id }).catch(translate);
  };

  const methods: Record<string, (params: unknown) => Promise<unknown>> = {
    async initialize(params) {
      parse(AgentInitializeParams, params, "initialize");
      offers = offersFrom(params);
      return initializeResult();
    },
    async authenticate() {
      return {}; // SCV's own config holds the keys: nothing to sign in to here
    },
    async "session/new"(params) {
      const p = parse(NewSessionParams, params, "session/new");
      requireDirectory(p.cwd);
      const mcp = mcpOf(p.mcpServers);
      await scvReady;
      // Kept even if never prompted: the editor lists it and may load it later.
      const r = await scv.request<RequestResult<"session.start">>("session.start", { cwd: p.cwd, keep: true, questions: true, ...mcp }).catch(translate);
      for (const n of r.notices ?? []) opts.log(`${r.session_id}: note: ${n}`);
      return { sessionId: r.session_id, ...open(r.session_id, r.workspace, r.provider, mcp).state() };
    },
    async "session/load"(params) {
      const p = parse(LoadSessionParams, params, "session/load");
      requireDirectory(p.cwd);
      const { s, r } = await resume(p.sessionId, mcpOf(p.mcpServers));
      s.replay(r);
      return s.state();
    },
    async "session/resume"(params) {
      const p = parse(LoadSessionParams, params, "session/resume");
      requireDirectory(p.cwd);
      return (await resume(p.sessionId, mcpOf(p.mcpServers))).s.state();
    },
    async "session/list"(params) {
      const p = parse(ListSessionsParams, params, "session/list");
      if (p.cwd && !isAbsolute(p.cwd)) throw new AcpError(ACP_ERRORS.invalid_params, `cwd "${p.cwd}" is not an absolute path`);
      const start = Number(p.cursor ?? 0);
      if (!Number.isSafeInteger(start) || start < 0) throw new AcpError(ACP_ERRORS.invalid_params, `cursor "${p.cursor}" is not one session/list gave; omit it to start from the newest`);
      const all = opts.sessions.list(p.cwd ? { workspace: storedWorkspace(p.cwd) } : {});
      const page = all.slice(start, start + LIST_PAGE);
      return {
        sessions: page.map((s) => ({ sessionId: s.id, cwd: s.workspace, ...(s.first_prompt ? { title: s.first_prompt } : {}), updatedAt: new Date(s.last_activity).toISOString() })),
        ...(start + LIST_PAGE < all.length ? { nextCursor: String(start + LIST_PAGE) } : {}),
      };
    },
    async "session/close"(params) {
      await closeSession(parse(SessionIdParams, params, "session/close").sessionId);
      return {};
    },
    async "session/prompt"(params) {
      const p = parse(PromptParams, params, "session/prompt");
      return session(p.sessionId).prompt(p.prompt);
    },
    async "session/set_mode"(params) {
      const p = parse(SetModeParams, params, "session/set_mode");
      session(p.sessionId).setMode(p.modeId);
      return {};
    },
    async "session/set_config_option"(params) {
      const p = parse(SetConfigOptionParams, params, "session/set_config_option");
      return await session(p.sessionId).setConfigOption(p.configId, p.value);
    },
    async "session/set_model"(params) {
      const p = parse(SetModelParams, params, "session/set_model");
      await session(p.sessionId).setConfigOption("model", p.modelId);
      return {};
    },
  };

  const peer: AcpPeer = new AcpPeer(opts.send, {
    async request(method, params) {
      const handler = Object.hasOwn(methods, method) ? methods[method] : undefined;
      if (!offers && method !== "initialize") {
        throw new AcpError(ACP_ERRORS.invalid_request, `${method} before initialize: send initialize {protocolVersion: 1} first`);
      }
      if (!handler) throw new AcpError(ACP_ERRORS.method_not_found, `method not found: ${method}; SCV serves ${Object.keys(methods).join(", ")}`);
      return handler(params);
    },
    notification(method, params) {
      if (method !== "session/cancel" || !offers) return;
      const id = (params as { sessionId?: unknown } | null)?.sessionId;
      if (typeof id === "string") sessions.get(id)?.cancel();
    },
  });

  return {
    peer,
    async close() {
      peer.close();
      for (const s of sessions.values()) s.closed();
      sessions.clear();
      await scv.closeAll();
    },
  };
}
