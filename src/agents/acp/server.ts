// One long-running ACP server, serving one conversation: started through the delegation tracker, initialised
// with no client file-system or terminal capabilities, collected when it exits and shut down as ../live-server
// says for every server kept per conversation (stdin closed, 2 seconds' grace, then a group kill).
import { type TrackedRun, newHandle, startDelegated } from "../../process/delegations";
import type { RunResult } from "../../process/types";
import type { SessionScope } from "../../scope";
import { collectExit, shutdownGently } from "../live-server";
import { tailUtf8 } from "../../text/cut";
import { MethodNotFound, RpcConnection, RpcError } from "./connection";
import { permissionOutcome } from "./permissions";
import {
  InitializeResult,
  NewSessionResult,
  PROTOCOL_VERSION,
  type PermissionOutcome,
  PromptResult,
  RequestPermissionParams,
  SessionNotification,
  SetConfigOptionResult,
  AnyResult,
} from "../../protocol/acp";

const STDERR_KEEP_BYTES = 8192;

/** What the turn in progress wants from the server's traffic. */
export interface TurnListener {
  update(update: Record<string, unknown>): void;
  permission(params: RequestPermissionParams): Promise<PermissionOutcome>;
}

export interface AcpServerOptions {
  scope: SessionScope;
  agent: string;
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  conversation: string;
  turn: number;
  version: string;
}

export class AcpServer {
  readonly handle: string;
  private readonly run: TrackedRun;
  private readonly rpc: RpcConnection;
  private listener: TurnListener | undefined;
  private stderr = "";
  private exitResult: RunResult | undefined;
  private shuttingDown: Promise<void> | undefined;
  /** The agent takes MCP servers over HTTP (initialize's agentCapabilities.mcpCapabilities.http). */
  private mcpOverHttp = false;
  /** Settles when the server has exited and been cleaned up. */
  readonly exited: Promise<RunResult>;

  constructor(private readonly opts: AcpServerOptions) {
    this.handle = newHandle(opts.agent);
    this.rpc = new RpcConnection((line) => this.run.stdin!.write(line), {
      notification: (method, params) => this.onNotification(method, params),
      request: (method, params) => this.onRequest(method, params),
    });
    this.run = startDelegated(
      opts.scope,
      { handle: this.handle, agent: opts.agent, cwd: opts.cwd, conversation: opts.conversation, turn: opts.turn },
      {
        argv: opts.argv,
        cwd: opts.cwd,
        env: opts.env,
        stdin: "pipe",
        captureBytes: 4096,
        onStdout: (chunk) => this.rpc.push(chunk),
        onStderr: (chunk) => {
          this.stderr = tailUtf8(this.stderr + Buffer.from(chunk).toString("utf8"), STDERR_KEEP_BYTES);
        },
      },
    );
    this.exited = collectExit(this.run).then((r) => this.onExit(r));
    // Registered after the tracker's own close hook, so it runs first: a closing session lets the server end
    // on EOF before the tracker stops what is left.
    opts.scope.onClose(() => this.shutdown());
  }

  /** The server's exit, once it has exited (by itself, killed, or shut down). */
  get exit(): RunResult | undefined {
    return this.exitResult;
  }

  get alive(): boolean {
    return !this.exitResult && !this.shuttingDown;
  }

  /** stderr written since the last call (a turn's share of it). */
  takeStderr(): string {
    const s = this.stderr;
    this.stderr = "";
    return s;
  }

  async initialize(): Promise<void> {
    const init = await this.rpc.request(
      "initialize",
      {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        // codex-acp uses the client name as the provider's originator.
        clientInfo: { name: "scv", title: "SCV", version: this.opts.version },
      },
      InitializeResult,
    );
    const capabilities = init.agentCapabilities as { mcpCapabilities?: { http?: unknown } } | undefined;
    this.mcpOverHttp = capabilities?.mcpCapabilities?.http === true;
    if (init.protocolVersion !== PROTOCOL_VERSION) {
      throw new RpcError(`the agent speaks Agent Client Protocol version ${init.protocolVersion}; SCV speaks version ${PROTOCOL_VERSION}`);
    }
  }

  newSession(cwd: string) {
    // The user's MCP servers marked share_with_agents (every agent takes stdio ones; HTTP ones only when it says so).
    const shared = this.opts.scope.services.mcpServersForAgents?.(cwd) ?? [];
    const mcpServers = shared.filter((s) => !("type" in s) || this.mcpOverHttp);
    return this.rpc.request("session/new", { cwd, mcpServers }, NewSessionResult);
  }

  setMode(sessionId: string, modeId: string) {
    return this.rpc.request("session/set_mode", { sessionId, modeId }, AnyResult);
  }

  setConfigOption(sessionId: string, configId: string, value: string) {
    return this.rpc.request("session/set_config_option", { sessionId, configId, value }, SetConfigOptionResult);
  }

  /** One prompt; the listener gets the turn's updates and permission requests until it settles. */
  async prompt(sessionId: string, text: string, listener: TurnListener): Promise<PromptResult> {
    this.listener = listener;
    return this.rpc.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] }, PromptResult);
  }

  /** The next turn number for the record (`scv agents ps`). */
  beginTurn(turn: number): void {
    this.run.setTurn(turn);
  }

  cancel(sessionId: string): void {
    this.rpc.notify("session/cancel", { sessionId });
  }

  /** Between turns: idle in the record, and traffic no longer reaches the finished turn. */
  endTurn(): void {
    this.listener = undefined;
    if (this.alive) this.run.markIdle(true);
  }

  /** stdin closed (the server exits on EOF), 2 seconds' grace, then the tracker's group stop. */
  shutdown(): Promise<void> {
    this.shuttingDown ??= (async () => {
      this.rpc.close(new RpcError("the agent's ACP server was shut down"));
      if (this.exitResult) return;
      await shutdownGently(this.run, this.exited);
    })();
    return this.shuttingDown;
  }

  private onExit(result: RunResult): RunResult {
    this.exitResult = result;
    this.rpc.close(new RpcError("the agent's ACP server exited"));
    return this.exitResult;
  }

  private onNotification(method: string, params: unknown): void {
    if (method !== "session/update") return; // vendor `_…` notifications and the rest are ignored
    const n = SessionNotification.safeParse(params);
    if (n.success) this.listener?.update(n.data.update);
  }

  private async onRequest(method: string, params: unknown): Promise<unknown> {
    if (method !== "session/request_permission") throw new MethodNotFound(method);
    const p = RequestPermissionParams.safeParse(params);
    if (!p.success) return { outcome: { outcome: "cancelled" } };
    // Outside a turn no call can carry the request to a person: denied.
    if (!this.listener) return { outcome: permissionOutcome(p.data, false) };
    return { outcome: await this.listener.permission(p.data) };
  }
}
