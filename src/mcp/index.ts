// MCP servers as tools: the room's contract. A session hands its server definitions to addMcpServers at start;
// nothing connects until a turn needs the tools, and the SDK is loaded only then (./hub, ./connection), so a
// session without servers, and every other command, starts as before. docs/configuration.md ("MCP servers").
import type { Config } from "../config/schema";
import type { McpServerDefinition } from "./launch";
import type { SessionScope } from "../scope";
import type { ToolRegistry, ToolSource } from "../tools/tool";

export { offeredName, SERVER_TOOL_SEPARATOR } from "./names";

export type { McpServerDefinition } from "./launch";

/** The enabled servers of a configuration, in the order the files list them. */
export function configuredServers(config: Config, userFile: string): McpServerDefinition[] {
  return Object.entries(config.mcp.servers)
    .filter(([, server]) => server.enabled)
    .map(([name, server]) => ({ name, config: server, origin: server.project ?? userFile }));
}

/**
 * Adds the servers to a session's tools: offered from the first turn that runs, connected after approval.
 * Also the entry point for servers given at session start from elsewhere (an ACP client's `mcpServers`).
 */
export function addMcpServers(tools: ToolRegistry, scope: SessionScope, servers: McpServerDefinition[]): void {
  if (!servers.length) return;
  let hub: Promise<ToolSource> | undefined;
  tools.addSource({
    async offers(ctx) {
      hub ??= import("./hub").then(({ McpHub }) => new McpHub(scope, servers, scope.config.mcp.max_message_bytes));
      return (await hub).offers(ctx);
    },
  });
}

/** An MCP server a client brought (session.start `mcp_servers`: an editor's, over ACP). */
export type ClientMcpServer = { name: string; command: string; args?: string[]; env?: Record<string, string> } | { name: string; url: string; headers?: Record<string, string> };

/**
 * The client's servers as definitions, from "the editor": each connects only after approval (like a project's
 * server, it is marked as not the user's own file). A name that could not prefix tool names is left out.
 */
export function clientServers(servers: ClientMcpServer[]): McpServerDefinition[] {
  // Most sessions bring none: the config schemas (zod) stay unloaded, as the config check cache keeps them at start.
  if (!servers.length) return [];
  const { McpServerConfig, MCP_SERVER_NAME } = require("../config/schema") as typeof import("../config/schema");
  const out: McpServerDefinition[] = [];
  for (const s of servers) {
    if (!MCP_SERVER_NAME.test(s.name)) continue;
    const parsed = McpServerConfig.safeParse("url" in s ? { url: s.url, headers: s.headers ?? {} } : { command: s.command, args: s.args ?? [], env: s.env ?? {} });
    if (parsed.success) out.push({ name: s.name, config: { ...parsed.data, project: "the editor" }, origin: "the editor" });
  }
  return out;
}

/** ACP `session/new` `mcpServers`: the user's stdio servers marked share_with_agents, with their environment. */
export function sharedWithAgents(config: Config, workspace: string, env: Readonly<Record<string, string | undefined>>): AcpMcpServer[] {
  const { launchOf } = require("./launch") as typeof import("./launch");
  const out: AcpMcpServer[] = [];
  for (const [name, server] of Object.entries(config.mcp.servers)) {
    if (!server.enabled || !server.share_with_agents || server.project !== undefined) continue;
    const launch = launchOf(server, workspace, env);
    if (launch.missing.length) continue;
    if (launch.kind === "stdio") {
      out.push({ name, command: launch.argv[0]!, args: launch.argv.slice(1), env: Object.entries(launch.env).map(([n, value]) => ({ name: n, value })) });
    } else {
      out.push({ type: "http", name, url: launch.url.href, headers: Object.entries(launch.headers).map(([n, value]) => ({ name: n, value })) });
    }
  }
  return out;
}

/** An MCP server as ACP's session/new carries it (stdio without `type`; http with it). */
export type AcpMcpServer =
  | { name: string; command: string; args: string[]; env: { name: string; value: string }[] }
  | { type: "http"; name: string; url: string; headers: { name: string; value: string }[] };
