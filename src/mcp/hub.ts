// A session's MCP servers as one tool source. At each turn's start, each enabled server is offered: from its
// known tool list (./known-tools) without starting it, the server then starting at the first call of one of its
// tools (approved then: mcp.connect:<name>, remembered for the session, or for the workspace on "always"); or,
// when its list is unknown or stale, approved, connected and listed now. A server whose list changed is listed
// again. A server that fails is reported (once a day for the same note) and skipped; the session goes on.
// Closing the session closes every connection.
import { redactSecrets } from "../text/redact";
import { sha256Hex } from "../digest";
import type { SessionScope, ToolRisk } from "../scope";
import type { SourceContext, Tool, ToolOffer, ToolSource } from "../tools/tool";
import { loadSdk, McpConnection, McpError } from "./connection";
import { describeLaunch, launchFingerprint, launchOf, type Launch, type McpServerDefinition, secretValues } from "./launch";
import { EVERY_WORKSPACE, isRemembered, remember } from "./remembered";
import { scrub } from "./result";
import { mcpTool, type ServerBinding } from "./tool";
import { DeferredTools } from "./deferred";
import { contradicts, definitionKey, type KnownServer, KnownTools } from "./known-tools";
import type { McpToolInfo } from "./connection";
import { allowedTools } from "./connection";
import type { ToolCallContext } from "../tools/tool";

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
  /** A connect under way (at a call of a tool offered from the known list), shared by calls that meet it. */
  connecting?: Promise<McpConnection>;
  tools: Tool[];
  binding: ServerBinding;
  /** definitionKey: where its known list and notes are kept. */
  key: string;
  /** The list it was offered from without a connection; checked against the server once it connects. */
  known?: KnownServer;
}

export class McpHub implements ToolSource {
  private readonly servers: ServerState[];
  private closed = false;
  private readonly knownTools: KnownTools;
  private readonly deferred: DeferredTools;

  constructor(
    private readonly scope: SessionScope,
    defs: McpServerDefinition[],
    private readonly maxMessageBytes: number,
  ) {
    this.knownTools = new KnownTools(scope.scvHome);
    this.deferred = new DeferredTools(scope.config.mcp.schema_budget_bytes);
    this.servers = defs.map((def) => {
      const launch = launchOf(def.config, scope.workspace, scope.env);
      const state: ServerState = {
        def,
        launch,
        fingerprint: launchFingerprint(def.name, launch),
        failures: 0,
        tools: [],
        key: definitionKey(def.config),
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
    const toConnect: ServerState[] = [];
    for (const s of this.servers) {
      if (this.closed || ctx.signal.aborted) break;
      if (s.conn && !s.conn.closed) continue;
      if (s.conn?.closed) {
        if (!s.known) notices.push(`MCP server "${s.def.name}" ${s.conn.closed}; connecting again`);
        s.conn = undefined;
        if (!s.known) s.tools = [];
      }
      if (s.failures >= MAX_CONNECT_FAILURES || s.approved === false) continue;
      if (s.launch.missing.length) {
        s.failures = MAX_CONNECT_FAILURES;
        const n = s.launch.missing.length > 1;
        this.noteOnce(s, notices, `MCP server "${s.def.name}" is not connected: ${s.launch.missing.join(", ")} ${n ? "are" : "is"} not set in SCV's environment; set ${n ? "them" : "it"} or remove ${n ? "them" : "it"} from the server's config`);
        continue;
      }
      if (s.known) continue; // offered from its known list; starts at the first call
      const known = this.knownTools.fresh(s.key);
      if (known) {
        s.known = known;
        s.tools = this.toolsOf(s, known.tools, (ctx) => this.connectForCall(s, ctx));
        continue;
      }
      toConnect.push(s);
    }
    if (toConnect.length) {
      void loadSdk().catch(() => {}); // loads while the person answers
      // One question for the servers about to connect (one for the user's, one for those only a person may
      // approve); the connections approved are then made together.
      await this.approveGroup(toConnect.filter((s) => !s.approved), ctx.approve, ctx.signal, notices);
      await Promise.all(toConnect.filter((s) => s.approved).map((s) => this.connectNow(s, ctx, notices)));
    }
    await Promise.all(this.servers.filter((s) => s.conn && !s.conn.closed && s.conn.toolsChanged).map((s) => this.list(s, ctx.signal, notices)));
    const offered = this.servers.filter((s) => (s.known || (s.conn && !s.conn.closed)) && s.approved !== false && s.failures < MAX_CONNECT_FAILURES && s.tools.length);
    // Over the schema budget, every tool is offered by name only, with the loader (./deferred).
    const { tools, loader } = this.deferred.offer(offered.flatMap((s) => s.tools));
    let at = 0;
    const offers = offered.map((s) => ({ source: `MCP server "${s.def.name}" (${s.def.origin})`, tools: tools.slice(at, (at += s.tools.length)) }));
    if (loader) offers.push({ source: "SCV's MCP tool loader", tools: [loader] });
    return { offers, notices: notices.map((n) => this.scrubbed(n)) };
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

  private async approve(s: ServerState, ask: SourceContext["approve"], signal: AbortSignal, notices: string[]): Promise<boolean> {
    await this.approveGroup([s], ask, signal, notices);
    return !!s.approved;
  }

  /**
   * Approves servers about to connect: those remembered at once; the rest asked in one request per kind (the
   * user's own; the project's and the editor's, which only a person may approve), listing each server, with
   * `choices` so a client may approve some of them. A single server is asked as `mcp.connect:<name>`.
   */
  private async approveGroup(servers: ServerState[], ask: SourceContext["approve"], signal: AbortSignal, notices: string[]): Promise<void> {
    const grantOf = (s: ServerState) => ({ workspace: this.scope.workspace, server: s.def.name, fingerprint: s.fingerprint });
    const open = servers.filter((s) => {
      if (isRemembered(this.scope.scvHome, grantOf(s))) s.approved = true;
      return !s.approved;
    });
    for (const personOnly of [false, true]) {
      const group = open.filter((s) => (s.def.config.project !== undefined) === personOnly);
      if (!group.length || this.closed || signal.aborted) continue;
      const one = group.length === 1 ? group[0] : undefined;
      const decision = await ask({
        callId: one ? `mcp-connect-${one.def.name}` : "mcp-connect",
        tool: one ? `mcp.connect:${one.def.name}` : "mcp.connect",
        risk: group.some((s) => s.launch.kind === "stdio") ? "process" : "network",
        summary: one ? connectSummary(one) : [`connect to ${group.length} MCP servers:`, ...group.map((s) => connectSummary(s))].join("\n\n"),
        fingerprint: one ? one.fingerprint : sha256Hex(group.map((s) => s.fingerprint).join("\n")),
        rememberable: true,
        ...(one ? {} : { choices: group.map((s) => s.def.name) }),
        ...(personOnly ? { personOnly: true } : {}),
      });
      if (signal.aborted) return; // asked again at the next turn
      const chosen = decision.approved && decision.chosen ? new Set(decision.chosen) : undefined;
      for (const s of group) {
        s.approved = decision.approved && (!chosen || chosen.has(s.def.name));
        if (s.approved && decision.remember) remember(this.scope.scvHome, { ...grantOf(s), workspace: decision.remember === "user" ? EVERY_WORKSPACE : this.scope.workspace });
        if (!s.approved) notices.push(`MCP server "${s.def.name}" is not connected: ${decision.approved ? "left out when the others were approved" : decision.reason}`);
      }
    }
  }

  /** Connects at the turn's start (the list is unknown or stale) and lists; a failure is a note, not an error. */
  private async connectNow(s: ServerState, ctx: SourceContext, notices: string[]): Promise<void> {
    const slow = setTimeout(() => ctx.progress(`connecting to MCP server "${s.def.name}"…`), 1000);
    try {
      await this.connect(s, ctx.signal);
      await this.list(s, ctx.signal, notices);
    } catch (e) {
      const left = s.failures >= MAX_CONNECT_FAILURES ? `; left out for the rest of this session after ${MAX_CONNECT_FAILURES} attempts` : "; tried again at the next turn";
      if (!ctx.signal.aborted) this.noteOnce(s, notices, `${(e as Error).message}${left}`, (e as Error).message);
    } finally {
      clearTimeout(slow);
    }
  }

  /**
   * The connection a call of a tool offered from the known list needs: the server is approved (asked as part of
   * the call, unless remembered) and started now. Once connected its list is checked; a server that contradicts
   * the known list has its new list kept and offered from the next turn.
   */
  private connectForCall(s: ServerState, ctx: ToolCallContext): Promise<McpConnection> {
    if (s.conn && !s.conn.closed) return Promise.resolve(s.conn);
    s.connecting ??= (async () => {
      const notices: string[] = [];
      if (s.failures >= MAX_CONNECT_FAILURES) throw new McpError(`MCP server "${s.def.name}" is left out for the rest of this session after ${MAX_CONNECT_FAILURES} failed starts`);
      if (!s.approved) {
        const ask: SourceContext["approve"] = async (request) => (ctx.approve ? ctx.approve(request) : { approved: false, reason: "no one can approve starting it here" });
        if (!(await this.approve(s, ask, ctx.signal, notices))) throw new McpError(notices[0] ?? `MCP server "${s.def.name}" is not connected`);
      }
      const slow = setTimeout(() => ctx.progress(`starting MCP server "${s.def.name}"…`), 1000);
      try {
        await this.connect(s, ctx.signal);
      } finally {
        clearTimeout(slow);
      }
      const conn = s.conn!;
      await this.list(s, ctx.signal, notices);
      return conn;
    })().finally(() => (s.connecting = undefined));
    return s.connecting.then((c) => c, (e) => Promise.reject(new McpError(this.scrubbed((e as Error).message))));
  }

  /** Starts or reaches the server; counts a failure, and throws it. */
  private async connect(s: ServerState, signal: AbortSignal): Promise<void> {
    try {
      s.conn = await McpConnection.open({ name: s.def.name, server: s.def.config, launch: s.launch, scope: this.scope, maxMessageBytes: this.maxMessageBytes, signal });
      if (this.closed) {
        await s.conn.close();
        throw new McpError(`the session closed while MCP server "${s.def.name}" started`);
      }
    } catch (e) {
      s.failures++;
      await s.conn?.close();
      s.conn = undefined;
      throw e;
    }
  }

  /** Lists the connected server's tools, keeps the list as known, and offers them (bound to this connection). */
  private async list(s: ServerState, signal: AbortSignal, notices: string[]): Promise<void> {
    const conn = s.conn!;
    try {
      const all = await conn.listAllTools(signal);
      if (!s.known || contradicts(s.known, conn.serverInfo, all)) {
        this.knownTools.keep(s.key, { server: conn.serverInfo, tools: all, listed_at: Date.now() });
        s.tools = this.toolsOf(s, all, conn);
        // Offered from its live list from now on (the known one was stale).
        s.known = undefined;
      }
    } catch (e) {
      notices.push(`MCP server "${s.def.name}" did not list its tools: ${(e as Error).message}`);
      if (!s.known) s.tools = [];
      if (!conn.closed) conn.toolsChanged = true; // listed again at the next turn
    }
  }

  /** The server's tools the config lets through, as session tools whose calls go through `connection`. */
  private toolsOf(s: ServerState, infos: McpToolInfo[], connection: McpConnection | ((ctx: ToolCallContext) => Promise<McpConnection>)): Tool[] {
    return allowedTools(s.def.config, infos).map((info) => mcpTool(s.binding, connection, info));
  }

  /** Says a note about a server unless the same one was said within a day (kept across runs, per server). */
  private noteOnce(s: ServerState, notices: string[], text: string, sameAs = text): void {
    if (this.knownTools.sayOnce(s.key, sameAs)) notices.push(`${text} (said once a day; scv doctor checks the servers)`);
  }

  private scrubbed(text: string): string {
    return redactSecrets(scrub(text, [...this.servers.flatMap((s) => s.binding.secrets)]));
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
