// The editor's MCP servers (`mcpServers` of session/new, load and resume) in SCV's shape (session.start
// `mcp_servers`): stdio and streamable HTTP servers pass; SSE-only servers, and names SCV cannot prefix tool
// names with, are left out with a line in the agent log.
import { MCP_SERVER_NAME } from "../config/schema";
import type { ClientMcpServer } from "../mcp/index";

type Pairs = unknown;

/** ACP's `[{name, value}]` as a record; anything else is empty. */
function record(pairs: Pairs): Record<string, string> {
  const out: Record<string, string> = {};
  if (!Array.isArray(pairs)) return out;
  for (const p of pairs) if (typeof p?.name === "string" && typeof p?.value === "string") out[p.name] = p.value;
  return out;
}

export function editorMcpServers(servers: Record<string, unknown>[] = [], log: (line: string) => void): ClientMcpServer[] {
  const out: ClientMcpServer[] = [];
  for (const s of servers) {
    const name = String(s.name);
    if (!MCP_SERVER_NAME.test(name)) {
      log(`the editor's MCP server "${name}" is not used: SCV names servers with 1-32 letters, digits, - and single _ (the name prefixes its tools)`);
    } else if (typeof s.command === "string" && s.command) {
      out.push({ name, command: s.command, args: Array.isArray(s.args) ? s.args.map(String) : [], env: record(s.env) });
    } else if (s.type === "http" && typeof s.url === "string") {
      out.push({ name, url: s.url, headers: record(s.headers) });
    } else {
      log(`the editor's MCP server "${name}" is not used: SCV connects to stdio and streamable HTTP servers, not ${String(s.type ?? "this kind")}`);
    }
  }
  return out;
}
