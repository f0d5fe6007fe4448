// The sessions one `scv acp` connection has open: each an AcpSession over the one in-process SCV server
// connection, with the editor's file access, the workspace's provider profiles and its key scrubber.
import { join } from "node:path";
import { configuredSecrets } from "../config/configured-secrets";
import { loadConfig, scvHome } from "../config/load";
import type { EditorFiles } from "../fs/editor-files";
import { AnyResult, ReadTextFileResult } from "../protocol/acp";
import { ERROR_CODES, type NotificationMethod, type RequestResult } from "../protocol/schema";
import { createInProcessClient } from "../server/in-process-client";
import type { SessionStore } from "../sessions/index";
import { scrubSecrets } from "../text/scrub";
import type { ClientOffers } from "./capabilities";
import { editorMcpServers } from "./mcp";
import type { Profiles } from "./modes";
import { ACP_ERRORS, AcpError, type AcpPeer } from "./rpc";
import { AcpSession } from "./session";

/** What the open sessions need of the agent's options. */
export interface OpenSessionsOptions {
  env: NodeJS.ProcessEnv;
  baseDepth: number;
  sessions: SessionStore;
  /** One line for the editor's agent log (stderr). */
  log(line: string): void;
}

/** A session's MCP servers as SCV's session.start and session.resume take them (none: no field). */
export type McpField = { mcp_servers?: ReturnType<typeof editorMcpServers> };

/** ACP's error for what SCV's server refused: an unknown session is a missing resource, the rest keep their words. */
export function translate(e: unknown): never {
  if (e instanceof AcpError) throw e;
  const code = (e as { code?: number }).code;
  const message = (e as Error).message;
  if (code === ERROR_CODES.unknown_session) throw new AcpError(ACP_ERRORS.resource_not_found, message);
  if (code === ERROR_CODES.invalid_params) throw new AcpError(ACP_ERRORS.invalid_params, message);
  throw new AcpError(ACP_ERRORS.internal_error, message, code === undefined ? undefined : { scvCode: code });
}

export class OpenSessions {
  private readonly sessions = new Map<string, AcpSession>();
  /** The one in-process SCV server connection every session is served by. */
  readonly scv: ReturnType<typeof createInProcessClient>;
  /** Settles once SCV's server answered its `initialize`. */
  readonly ready: Promise<unknown>;
  /** What the editor's `initialize` offered (undefined before it). */
  offers: ClientOffers | undefined;

  constructor(
    private readonly opts: OpenSessionsOptions,
    private readonly peer: () => AcpPeer,
    initialized: ClientOffers | undefined,
  ) {
    this.offers = initialized;
    this.scv = createInProcessClient({
      env: opts.env,
      sessions: opts.sessions,
      baseDepth: opts.baseDepth,
      services: (sessionId) => ({ editorFiles: this.editorFiles(sessionId) }),
      onNotification: (method, params) => {
        this.sessions.get(params?.session_id)?.onEvent(method as NotificationMethod, params);
      },
    });
    this.ready = this.scv.request("initialize", { protocol_version: 3, client: { name: "scv-acp" } });
  }

  /** The open session `id`, or ACP's missing-resource error saying how to open one. */
  get(id: string): AcpSession {
    const s = this.sessions.get(id);
    if (!s) throw new AcpError(ACP_ERRORS.resource_not_found, `unknown session "${id}": start one with session/new, or open a stored one with session/load`);
    return s;
  }

  /** The editor's MCP servers for a session, as SCV takes them (bad entries logged and left out). */
  mcpOf(servers: Record<string, unknown>[] | undefined): McpField {
    const list = editorMcpServers(servers, this.opts.log);
    return list.length ? { mcp_servers: list } : {};
  }

  /** A session SCV's server opened, served here from now on. */
  open(id: string, workspace: string, provider: string | undefined, mcp: McpField): AcpSession {
    const home = scvHome(this.opts.env);
    const s = new AcpSession({
      mask: this.maskFor(workspace),
      id,
      workspace,
      scv: this.scv,
      peer: this.peer(),
      profiles: this.profilesFor(workspace, provider),
      imageDir: join(home, "state", "acp-images", id),
      scvHome: home,
      switchProfile: async (name) => {
        await this.scv.request("session.close", { session_id: id }).catch(translate);
        await this.scv.request("session.resume", { session_id: id, provider: name, questions: true, ...mcp }).catch(translate);
      },
      log: (line) => this.opts.log(`${id}: ${line}`),
    });
    this.sessions.set(id, s);
    return s;
  }

  /** Opens a stored session here (closing it first if this connection has it open). */
  async resume(id: string, mcp: McpField): Promise<{ s: AcpSession; r: RequestResult<"session.resume"> }> {
    await this.ready;
    if (this.sessions.has(id)) await this.close(id);
    const r = await this.scv.request<RequestResult<"session.resume">>("session.resume", { session_id: id, questions: true, ...mcp }).catch(translate);
    for (const w of r.warnings) this.opts.log(`${id}: warning: ${w}`);
    return { s: this.open(r.session_id, r.workspace, r.provider, mcp), r };
  }

  async close(id: string): Promise<void> {
    const s = this.get(id);
    this.sessions.delete(id);
    s.closed();
    await this.scv.request("session.close", { session_id: id }).catch(translate);
  }

  /** The editor's session/cancel: the session's running turn stops (an unknown session is ignored). */
  cancel(id: string): void {
    this.sessions.get(id)?.cancel();
  }

  /** The connection ends: every session closed and SCV's server connection with them. */
  async closeAll(): Promise<void> {
    for (const s of this.sessions.values()) s.closed();
    this.sessions.clear();
    await this.scv.closeAll();
  }

  /** The editor's file access for a session's `read` and `write`, as far as `initialize` offered it. */
  private editorFiles(sessionId: string): EditorFiles {
    return {
      ...(this.offers?.readTextFile ? { read: async (path: string) => (await this.peer().request("fs/read_text_file", { sessionId, path }, ReadTextFileResult)).content } : {}),
      ...(this.offers?.writeTextFile
        ? {
            write: async (path: string, content: string) => {
              await this.peer().request("fs/write_text_file", { sessionId, path, content }, AnyResult);
              this.sessions.get(sessionId)?.wroteThroughEditor(path, content);
            },
          }
        : {}),
    };
  }

  /** The provider profiles configured for a workspace (the session's config), the session's own first. */
  private profilesFor(workspace: string, current: string | undefined): Profiles {
    const config = loadConfig({ cwd: workspace, env: this.opts.env }).config;
    const all = Object.entries(config.providers).map(([name, p]) => ({ name, model: p.model }));
    return { current: current ?? config.provider.active, all };
  }

  /** The key scrubber for what a session sends the editor: the workspace's configured keys, and key formats. */
  private maskFor(workspace: string): (text: string) => string {
    let secrets: string[] = [];
    try {
      const config = loadConfig({ cwd: workspace, env: this.opts.env }).config;
      secrets = configuredSecrets(config, this.opts.env, config.provider.active);
    } catch {
      // a configuration that does not load opens no session either; key formats are still masked
    }
    return (text) => scrubSecrets(text, secrets);
  }
}
