// The ACP requests `scv acp` serves, one handler each: params checked (ACP's invalid_params saying what was
// wrong), then served by the connection's open sessions over SCV's own protocol.
import { statSync } from "node:fs";
import { isAbsolute } from "node:path";
import type { z } from "zod";
import { certainlyValid, type JsonSchema } from "../fast-check/check";
import {
  AgentInitializeParams,
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
import type { RequestResult } from "../protocol/schema";
import type { SessionStore } from "../sessions/index";
import { storedWorkspace } from "../sessions/workspace";
import { initializeResult, offersFrom } from "./capabilities";
import { type OpenSessions, translate } from "./open-sessions";
import { ACP_ERRORS, AcpError } from "./rpc";

const LIST_PAGE = 100;

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

export type AcpMethods = Record<string, (params: unknown) => Promise<unknown>>;

export function acpMethods(open: OpenSessions, opts: { sessions: SessionStore; log(line: string): void }): AcpMethods {
  return {
    async initialize(params) {
      parse(AgentInitializeParams, params, "initialize");
      open.offers = offersFrom(params);
      return initializeResult();
    },
    async authenticate() {
      return {}; // SCV's own config holds the keys: nothing to sign in to here
    },
    async "session/new"(params) {
      const p = parse(NewSessionParams, params, "session/new");
      requireDirectory(p.cwd);
      const mcp = open.mcpOf(p.mcpServers);
      await open.ready;
      // Kept even if never prompted: the editor lists it and may load it later.
      const r = await open.scv.request<RequestResult<"session.start">>("session.start", { cwd: p.cwd, keep: true, questions: true, ...mcp }).catch(translate);
      for (const n of r.notices ?? []) opts.log(`${r.session_id}: note: ${n}`);
      return { sessionId: r.session_id, ...open.open(r.session_id, r.workspace, r.provider, mcp).state() };
    },
    async "session/load"(params) {
      const p = parse(LoadSessionParams, params, "session/load");
      requireDirectory(p.cwd);
      const { s, r } = await open.resume(p.sessionId, open.mcpOf(p.mcpServers));
      s.replay(r);
      return s.state();
    },
    async "session/resume"(params) {
      const p = parse(LoadSessionParams, params, "session/resume");
      requireDirectory(p.cwd);
      return (await open.resume(p.sessionId, open.mcpOf(p.mcpServers))).s.state();
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
      await open.close(parse(SessionIdParams, params, "session/close").sessionId);
      return {};
    },
    async "session/prompt"(params) {
      const p = parse(PromptParams, params, "session/prompt");
      return open.get(p.sessionId).prompt(p.prompt);
    },
    async "session/set_mode"(params) {
      const p = parse(SetModeParams, params, "session/set_mode");
      open.get(p.sessionId).setMode(p.modeId);
      return {};
    },
    async "session/set_config_option"(params) {
      const p = parse(SetConfigOptionParams, params, "session/set_config_option");
      return await open.get(p.sessionId).setConfigOption(p.configId, p.value);
    },
    async "session/set_model"(params) {
      const p = parse(SetModelParams, params, "session/set_model");
      await open.get(p.sessionId).setConfigOption("model", p.modelId);
      return {};
    },
  };
}
