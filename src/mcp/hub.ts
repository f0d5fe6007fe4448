// A session's MCP servers as one tool source. At each turn's start: each enabled server not yet connected is
// approved (mcp.connect:<name>, before any client is built; remembered for the session, or for the workspace
// on "always"), connected, and its tools listed; a server whose list changed is listed again. A server that
// fails is reported and skipped; the session goes on. Closing the session closes every connection.
import { redactSecrets } from "../text/redact";
import type { SessionScope, ToolRisk } from "../scope";
import type { SourceContext, Tool, ToolOffer, ToolSource } from "../tools/tool";
import { loadSdk, McpConnection } from "./connection";
import { describeLaunch, launchFingerprint, launchOf, type Launch, type McpServerDefinition, secretValues } from "./launch";
import { EVERY_WORKSPACE, isRemembered, remember } from "./remembered";
import { scrub } from "./result";
import { mcpTool, type ServerBinding } from "./tool";

/** Connect attempts per server and session before it is left out for the rest of the session. */
export const MAX_CONNECT_FAILURES = 3;

interface ServerState {
  def: McpServerDefinition;
  launch: Launch;
  fingerprint: string;
  approved?: boolean;
  failures: number;
  /** Told the client this server is left out (denied or failing), so it is said once. */
  toldLeftOut?: boolean;
  conn?: McpConnection;
  tools: Tool[];
  binding: ServerBinding;
}

export class McpHub implements ToolSource {
  private readonly servers: ServerState[];
  private closed = false;

  constructor(
    private readonly scope: SessionScope,
    defs: McpServerDefinition[],
    private readonly maxMessageBytes: number,
  ) {
    this.servers = defs.map((def) => {
      const launch = launchOf(def.config, scope.workspace, scope.env);
      const state: ServerState = {
        def,
        launch,
        fingerprint: launchFingerprint(def.name, launch),
        failures: 0,
        tools: [],
        binding: {
          name: def.name,
          risk: callRisk(def),
          trustReadOnlyHints: def.config.trust_read_only_hints,
          toolTimeoutSeconds: def.config.tool_timeout_seconds,
          secrets: secretValues(def.config, launch),
          onTimeout: (conn) => void this.drop(state, conn),
        },
      };
      return state;
    });
    scope.onClose(() => this.close());
  }

  async offers(ctx: SourceContext): Promise<{ offers: ToolOffer[]; notices: string[] }> {
    const notices: string[] = [];
    if (this.servers.some((s) => !s.conn || s.conn.closed)) void loadSdk().catch(() => {}); // loads while the person answers
    // Questions one at a time, in config order; the connections that were approved are then made together.
    const toConnect: ServerState[] = [];
    for (const s of this.servers) {
      if (this.closed || ctx.signal.aborted) break;
      if (s.conn && !s.conn.closed) continue;
      if (s.conn?.closed) {
        notices.push(`MCP server "${s.def.name}" ${s.conn.closed}; connecting again`);
        s.conn = undefined;
        s.tools = [];
      }
      if (s.failures >= MAX_CONNECT_FAILURES || s.approved === false) continue;
      if (s.launch.missing.length) {
        s.failures = MAX_CONNECT_FAILURES;
        notices.push(`MCP server "${s.def.name}" is not connected: ${s.launch.missing.join(", ")} ${s.launch.missing.length > 1 ? "are" : "is"} not set in SCV's environment; set ${s.launch.missing.length > 1 ? "them" : "it"} or remove ${s.launch.missing.length > 1 ? "them" : "it"} from the server's config`);
        continue;
      }
      if (s.approved === undefined && !(await this.approve(s, ctx, notices))) continue;
      toConnect.push(s);
    }
    await Promise.all(toConnect.map((s) => this.connect(s, ctx, notices)));
    await Promise.all(this.servers.filter((s) => s.conn && !s.conn.closed && s.conn.toolsChanged).map((s) => this.list(s, ctx, notices)));
    const offers = this.servers.filter((s) => s.conn && !s.conn.closed && s.tools.length).map((s) => ({ source: `MCP server "${s.def.name}" (${s.def.origin})`, tools: s.tools }));
    return { offers, notices: notices.map((n) => redactSecrets(scrub(n, [...this.servers.flatMap((s) => s.binding.secrets)]))) };
  }

  /** Servers now connected, with their process id (stdio) and tool count: `scv mcp`, tests. */
  status(): { name: string; connected: boolean; tools: number; pid?: number; serverInfo?: { name: string; version: string } }[] {
    return this.servers.map((s) => ({
      name: s.def.name,
      connected: !!s.conn && !s.conn.closed,
      tools: s.tools.length,
      ...(s.conn ? { serverInfo: s.conn.serverInfo } : {}),
    }));
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.servers.map((s) => s.conn?.close()));
  }

  private async approve(s: ServerState, ctx: SourceContext, notices: string[]): Promise<boolean> {
    const grant = { workspace: this.scope.workspace, server: s.def.name, fingerprint: s.fingerprint };
    if (isRemembered(this.scope.scvHome, grant)) return (s.approved = true);
    const fromProject = s.def.config.project !== undefined;
    const decision = await ctx.approve({
      callId: `mcp-connect-${s.def.name}`,
      tool: `mcp.connect:${s.def.name}`,
      risk: s.launch.kind === "stdio" ? "process" : "network",
      summary: connectSummary(s),
      fingerprint: s.fingerprint,
      rememberable: true,
      ...(fromProject ? { personOnly: true } : {}),
    });
    if (ctx.signal.aborted) return false; // asked again at the next turn
    s.approved = decision.approved;
    if (decision.approved && decision.remember) remember(this.scope.scvHome, { ...grant, workspace: decision.remember === "user" ? EVERY_WORKSPACE : grant.workspace });
    if (!decision.approved) notices.push(`MCP server "${s.def.name}" is not connected: ${decision.reason}`);
    return decision.approved;
  }

  private async connect(s: ServerState, ctx: SourceContext, notices: string[]): Promise<void> {
    const slow = setTimeout(() => ctx.progress(`connecting to MCP server "${s.def.name}"…`), 1000);
    try {
      s.conn = await McpConnection.open({ name: s.def.name, server: s.def.config, launch: s.launch, scope: this.scope, maxMessageBytes: this.maxMessageBytes, signal: ctx.signal });
      if (this.closed) return void (await s.conn.close());
      await this.list(s, ctx, notices);
    } catch (e) {
      s.failures++;
      const left = s.failures >= MAX_CONNECT_FAILURES ? `; left out for the rest of this session after ${MAX_CONNECT_FAILURES} attempts` : "; tried again at the next turn";
      if (!ctx.signal.aborted) notices.push(`${(e as Error).message}${left}`);
      await s.conn?.close();
      s.conn = undefined;
    } finally {
      clearTimeout(slow);
    }
  }

  private async list(s: ServerState, ctx: SourceContext, notices: string[]): Promise<void> {
    const conn = s.conn!;
    try {
      const infos = await conn.listTools(ctx.signal);
      s.tools = infos.map((info) => mcpTool(s.binding, conn, info));
    } catch (e) {
      notices.push(`MCP server "${s.def.name}" did not list its tools: ${(e as Error).message}`);
      s.tools = [];
      if (!conn.closed) conn.toolsChanged = true; // listed again at the next turn
    }
  }

  /** A connection that timed out is stopped; the server connects again at the next turn. */
  private async drop(s: ServerState, conn: McpConnection): Promise<void> {
    if (s.def.config.url !== undefined) return; // HTTP: the cancellation was sent; nothing of ours runs
    await conn.close();
  }
}

function callRisk(def: McpServerDefinition): ToolRisk {
  return def.config.risk ?? (def.config.url !== undefined ? "network" : "process");
}

function connectSummary(s: ServerState): string {
  const from = s.def.config.project !== undefined ? `defined by the project file ${s.def.config.project}; only you can approve it` : `defined in ${s.def.origin}`;
  return [
    `connect to MCP server "${s.def.name}" (${from})`,
    ...describeLaunch(s.launch).map((l) => redactSecrets(l)),
    `its tool calls are approved as ${callRisk(s.def)}${s.def.config.trust_read_only_hints ? " (tools the server marks read-only run unasked)" : ""}`,
  ].join("\n");
}
