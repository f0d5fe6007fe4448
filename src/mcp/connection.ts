// One live connection to one MCP server through the official SDK's Client (loaded here, at the first connect,
// never at start-up): stdio over SCV's runner, or streamable HTTP through the guarded fetch with the SDK's
// legacy SSE transport as the fallback. Requests are bounded in time; a call's cancellation reaches the server
// as notifications/cancelled (the SDK sends it when the request's signal aborts or its timeout passes).
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpServerConfig } from "../config/schema";
import type { SessionScope } from "../scope";
import { VERSION } from "../version";
import { guardedMcpFetch } from "./http-fetch";
import type { Launch } from "./launch";
import type { CallResult } from "./result";
import { RunnerStdioTransport } from "./stdio-transport";

export interface McpToolInfo {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; title?: string };
}

/** Thrown for a failed connect or call; the message names the server and says what to do. */
export class McpError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "McpError";
  }
}

/** At most this many tools are read from one server (pages of tools/list). */
const MAX_TOOLS = 1000;

export interface ConnectOptions {
  name: string;
  server: McpServerConfig;
  launch: Launch;
  scope: SessionScope;
  maxMessageBytes: number;
  signal?: AbortSignal;
}

export class McpConnection {
  /** Set when the server said its tool list changed: the next turn lists again. */
  toolsChanged = false;
  private closedWhy?: string;

  private constructor(
    readonly name: string,
    private readonly client: Client,
    private readonly transport: Transport,
    private readonly server: McpServerConfig,
    /** The server's name and version as it reported them. */
    readonly serverInfo: { name: string; version: string },
    readonly protocolVersion: string | undefined,
  ) {}

  /** Starts or reaches the server and completes `initialize` within startup_timeout_seconds. */
  static async open(o: ConnectOptions): Promise<McpConnection> {
    // A program starts while the SDK loads (loading it is a good part of a second on a busy machine).
    const stdio = o.launch.kind === "stdio" ? new RunnerStdioTransport(o.scope, o.name, o.launch, o.maxMessageBytes) : undefined;
    if (stdio) {
      try {
        await stdio.start();
      } catch (e) {
        throw new McpError(`MCP server "${o.name}" could not be started: ${(e as Error).message}`);
      }
    }
    let sdk: Awaited<ReturnType<typeof loadSdk>>;
    try {
      sdk = await loadSdk();
    } catch (e) {
      await stdio?.close();
      throw e;
    }
    const { Client, ToolListChangedNotificationSchema } = sdk;
    const timeout = o.server.startup_timeout_seconds * 1000;
    const attempt = async (transport: Transport) => {
      const client = new Client({ name: "scv", version: VERSION }, { capabilities: {} });
      client.onerror = () => {}; // failures surface through the request that meets them, or the close reason
      try {
        await client.connect(transport, { timeout, ...(o.signal ? { signal: o.signal } : {}) });
      } catch (e) {
        await transport.close().catch(() => {}); // the connect error below is the one worth telling
        throw new McpError(connectFailure(o, transport, e));
      }
      const version = client.getServerVersion() ?? { name: o.name, version: "?" };
      const transportVersion = (transport as { protocolVersion?: string }).protocolVersion;
      const conn = new McpConnection(o.name, client, transport, o.server, { name: version.name, version: version.version }, transportVersion);
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (conn.toolsChanged = true));
      const onclose = transport.onclose;
      transport.onclose = () => {
        conn.closedWhy ??= (transport as RunnerStdioTransport).closedBecause ?? "closed the connection";
        onclose?.();
      };
      return conn;
    };
    if (stdio) return attempt(stdio);
    if (o.launch.kind !== "http") throw new Error("unreachable");

    const [{ StreamableHTTPClientTransport }, { SSEClientTransport }] = await Promise.all([
      import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
      import("@modelcontextprotocol/sdk/client/sse.js"),
    ]);
    const fetch = guardedMcpFetch(o.scope, {
      name: o.name,
      allowPrivate: o.server.allow_private_addresses,
      timeoutMs: Math.max(o.server.tool_timeout_seconds, o.server.startup_timeout_seconds) * 1000 + 5000,
      maxBytes: o.maxMessageBytes,
    });
    const requestInit = { headers: o.launch.headers };
    try {
      return await attempt(new StreamableHTTPClientTransport(o.launch.url, { fetch, requestInit, reconnectionOptions: { maxRetries: 2, initialReconnectionDelay: 1000, maxReconnectionDelay: 5000, reconnectionDelayGrowFactor: 2 } }));
    } catch (first) {
      // A server from before streamable HTTP answers its POST with 4xx; the SDK's legacy SSE transport may still reach it.
      if (!/HTTP 4\d\d|\b40[45]\b|Method Not Allowed/.test((first as Error).message) || o.signal?.aborted) throw first;
      try {
        return await attempt(new SSEClientTransport(o.launch.url, { fetch, requestInit }));
      } catch {
        throw first;
      }
    }
  }

  get closed(): string | undefined {
    return this.closedWhy;
  }

  /** The server's tools (every page, at most MAX_TOOLS), filtered by the config's allow and deny lists. */
  async listTools(signal?: AbortSignal): Promise<McpToolInfo[]> {
    return allowedTools(this.server, await this.listAllTools(signal));
  }

  /** Every tool the server lists (at most MAX_TOOLS), as it gave them: what is kept as its known list. */
  async listAllTools(signal?: AbortSignal): Promise<McpToolInfo[]> {
    this.toolsChanged = false;
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.request(() => this.client.listTools(cursor ? { cursor } : {}, { timeout: this.server.startup_timeout_seconds * 1000, ...(signal ? { signal } : {}) }));
      tools.push(...(page.tools as McpToolInfo[]));
      cursor = page.nextCursor;
    } while (cursor && tools.length < MAX_TOOLS);
    return tools.slice(0, MAX_TOOLS);
  }

  /** Calls a tool; `timedOut` tells a deadline from a cancellation in the thrown McpError's wake. */
  async call(tool: string, args: Record<string, unknown>, opts: { signal: AbortSignal; onProgress?: (line: string) => void }): Promise<CallResult> {
    const timeout = this.server.tool_timeout_seconds * 1000;
    return (await this.request(() =>
      this.client.callTool({ name: tool, arguments: args }, undefined, {
        signal: opts.signal,
        timeout,
        ...(opts.onProgress
          ? { onprogress: (p: { progress: number; total?: number; message?: string }) => opts.onProgress!(`${p.progress}${p.total ? `/${p.total}` : ""}${p.message ? ` ${p.message}` : ""}`) }
          : {}),
      }),
    )) as CallResult;
  }

  /** Closes the client; a stdio server is stopped (TERM, 2 s, KILL) and waited for. */
  async close(): Promise<void> {
    this.closedWhy ??= "was disconnected";
    await this.client.close().catch(() => {}); // closing what may be broken already; the transport is closed next either way
    await this.transport.close().catch(() => {}); // already closed or gone: nothing more to stop
  }

  /** Runs a request, turning "connection closed" into the reason the server went away. */
  private async request<T>(run: () => Promise<T>): Promise<T> {
    if (this.closedWhy) throw new McpError(`MCP server "${this.name}" ${this.closedWhy}`);
    try {
      return await run();
    } catch (e) {
      if (this.closedWhy) throw new McpError(`MCP server "${this.name}" ${this.closedWhy}`);
      throw e;
    }
  }
}

/** The tools the config's allow (`tools`) and deny (`disabled_tools`) lists let through. */
export function allowedTools(server: McpServerConfig, tools: McpToolInfo[]): McpToolInfo[] {
  const allow = server.tools ? new Set(server.tools) : undefined;
  const deny = new Set(server.disabled_tools);
  return tools.filter((t) => (!allow || allow.has(t.name)) && !deny.has(t.name));
}

let sdkLoad: Promise<{ Client: typeof Client; ToolListChangedNotificationSchema: typeof import("@modelcontextprotocol/sdk/types.js").ToolListChangedNotificationSchema }> | undefined;

/** The SDK's client, loaded once per process; a session with servers starts this as its first turn begins. */
export function loadSdk() {
  sdkLoad ??= Promise.all([import("@modelcontextprotocol/sdk/client/index.js"), import("@modelcontextprotocol/sdk/types.js")]).then(([client, types]) => ({
    Client: client.Client,
    ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
  }));
  sdkLoad.catch(() => (sdkLoad = undefined));
  return sdkLoad;
}

function connectFailure(o: ConnectOptions, transport: Transport, e: unknown): string {
  const why = (transport as RunnerStdioTransport).closedBecause;
  const message = e instanceof Error ? e.message : String(e);
  if (/protocol version is not supported/.test(message)) return `MCP server "${o.name}" speaks a protocol version SCV does not support (${message.replace(/^.*: /, "")}); update the server or SCV`;
  if (/timed out/i.test(message)) return `MCP server "${o.name}" did not answer initialize within ${o.server.startup_timeout_seconds} s (startup_timeout_seconds)`;
  if (why) return `MCP server "${o.name}" ${why} before it answered initialize`;
  return `MCP server "${o.name}" could not be connected: ${message}`;
}
