// `scv mcp list|test NAME|tools NAME`: the MCP servers a session in this directory would offer, whether one
// connects (after the same mcp.connect approval a session asks), and what it offers, with timings.
import { realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { defineCommand } from "./command";
import { ConfigError, loadConfig, scvHome } from "../config/load";
import type { Config } from "../config/schema";
import { counted } from "../text/plural";

const cwdArg = { type: "string", description: "the workspace a session would start in (default: current directory)" } as const;

function fail(command: string, message: string, code: number): void {
  process.stderr.write(`scv mcp ${command}: ${message}\n`);
  process.exitCode = code;
}

function workspaceConfig(command: string, cwd: string | undefined): { workspace: string; config: Config } | undefined {
  let workspace: string;
  try {
    workspace = realpathSync(cwd ?? process.cwd());
    if (!statSync(workspace).isDirectory()) throw new Error("not a directory");
  } catch {
    return void fail(command, `${JSON.stringify(cwd ?? process.cwd())} is not an existing directory; pass the workspace with --cwd`, 2);
  }
  try {
    return { workspace, config: loadConfig({ cwd: workspace }).config };
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    return void fail(command, e.message, 78);
  }
}

const list = defineCommand({
  meta: { name: "list", description: "List the configured MCP servers (user and project files)" },
  args: { cwd: cwdArg, json: { type: "boolean", description: "print JSON" } },
  async run({ args }) {
    const loaded = workspaceConfig("list", args.cwd);
    if (!loaded) return;
    const { launchOf, describeLaunch } = await import("../mcp/launch");
    const rows = Object.entries(loaded.config.mcp.servers).map(([name, s]) => {
      const launch = launchOf(s, loaded.workspace, process.env);
      return {
        name,
        transport: launch.kind,
        enabled: s.enabled,
        from: s.project ?? join(scvHome(), "config.toml"),
        share_with_agents: s.share_with_agents,
        risk: s.risk ?? (launch.kind === "http" ? "network" : "process"),
        target: describeLaunch(launch)[0]!.replace(/^(\$ |url: )/, ""),
        ...(launch.missing.length ? { missing_env: launch.missing } : {}),
      };
    });
    if (args.json) return void process.stdout.write(`${JSON.stringify({ servers: rows }, null, 2)}\n`);
    if (!rows.length) return void process.stdout.write("no MCP servers configured (add [mcp.servers.<name>] to your config; see docs/configuration.md)\n");
    const table = [
      ["NAME", "TRANSPORT", "ENABLED", "RISK", "SHARED", "FROM", "COMMAND OR URL"],
      ...rows.map((r) => [r.name, r.transport, r.enabled ? "yes" : "no", r.risk, r.share_with_agents ? "yes" : "no", r.from, r.target]),
    ];
    const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
    process.stdout.write(`${table.map((row) => row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]!))).join("  ")).join("\n")}\n`);
  },
});

const serverArgs = {
  name: { type: "positional", required: true, description: "the server's name in [mcp.servers.<name>]" },
  cwd: cwdArg,
  yes: { type: "boolean", alias: "y", description: "approve connecting without asking" },
  json: { type: "boolean", description: "print JSON" },
} as const;

/** Approves (as a session would), connects, lists, closes; prints what happened with timings. */
async function probe(command: "test" | "tools", args: { name: string; cwd?: string; yes?: boolean; json?: boolean }): Promise<void> {
  const loaded = workspaceConfig(command, args.cwd);
  if (!loaded) return;
  const server = loaded.config.mcp.servers[args.name];
  if (!server) {
    const known = Object.keys(loaded.config.mcp.servers);
    return fail(command, `no MCP server named "${args.name}"; configured: ${known.join(", ") || "none"}`, 2);
  }
  const [{ launchOf, describeLaunch, launchFingerprint }, { isRemembered, remember }, { McpConnection }, { mcpTool }, { recordRunsIn }, { instanceIdFor }, { VERSION }, { askApproval }] =
    await Promise.all([
      import("../mcp/launch"),
      import("../mcp/remembered"),
      import("../mcp/connection"),
      import("../mcp/tool"),
      import("../process/index"),
      import("../server/server"),
      import("../version"),
      import("./approval-prompt"),
    ]);
  const home = scvHome();
  const launch = launchOf(server, loaded.workspace, process.env);
  if (launch.missing.length) return fail(command, `${launch.missing.join(", ")} not set in the environment; the server's config passes ${launch.missing.length > 1 ? "them" : "it"}`, 2);
  const grant = { workspace: loaded.workspace, server: args.name, fingerprint: launchFingerprint(args.name, launch) };
  if (!args.yes && !isRemembered(home, grant)) {
    if (!process.stdin.isTTY) return fail(command, "connecting needs approval and stdin is not a terminal; rerun with --yes", 2);
    const card = [`connect to MCP server "${args.name}"?`, ...describeLaunch(launch).map((l) => `  ${l}`), "[y]es, [n]o, [a]lways in this workspace: "].join("\n");
    const answer = await askApproval(card, { input: process.stdin, output: process.stderr });
    if (answer === "always") remember(home, grant);
    else if (answer !== "yes") return fail(command, "not approved, so not connected", 1);
  }
  recordRunsIn(home); // the server's run is recorded before it starts, like in a session
  const closers: (() => void | Promise<void>)[] = [];
  const scope = {
    sessionId: `mcp-${command}`,
    instanceId: instanceIdFor(home),
    workspace: loaded.workspace,
    config: loaded.config,
    scvHome: home,
    env: process.env,
    delegationDepth: 0,
    version: VERSION,
    services: {},
    onClose: (fn: () => void | Promise<void>) => void closers.push(fn),
    turns: { addIdleSource() {}, wake() {}, busy: () => false },
    decideUnattended: () => ({ approved: false, reason: "not in a session" }),
  };
  const wait = process.stderr.isTTY ? setTimeout(() => process.stderr.write(`connecting to MCP server "${args.name}"…\n`), 1000) : undefined;
  const t0 = performance.now();
  const ms = (from: number) => Math.round(performance.now() - from);
  let conn: import("../mcp/connection").McpConnection | undefined;
  try {
    conn = await McpConnection.open({ name: args.name, server, launch, scope, maxMessageBytes: loaded.config.mcp.max_message_bytes });
    const connected = ms(t0);
    const t1 = performance.now();
    const infos = await conn.listTools();
    const listed = ms(t1);
    const binding = { name: args.name, risk: server.risk ?? (launch.kind === "http" ? "network" : "process"), trustReadOnlyHints: server.trust_read_only_hints, toolTimeoutSeconds: 0, secrets: [], onTimeout() {} } as const;
    const tools = infos.map((info) => ({ name: mcpTool(binding, conn!, info).name, tool: info.name, risk: info.annotations?.readOnlyHint && server.trust_read_only_hints ? "read_only" : binding.risk, description: (info.description ?? "").split("\n")[0]!.slice(0, 100) }));
    const t2 = performance.now();
    await conn.close();
    const timings = { connect_ms: connected, list_ms: listed, close_ms: ms(t2) };
    if (args.json) {
      process.stdout.write(`${JSON.stringify({ server: args.name, connected: true, server_info: conn.serverInfo, tools: command === "tools" ? tools : tools.length, ...timings }, null, 2)}\n`);
    } else if (command === "test") {
      process.stdout.write(`${args.name}: connected to ${conn.serverInfo.name} ${conn.serverInfo.version} in ${connected} ms; ${counted(tools.length, "tool")} listed in ${listed} ms; closed in ${timings.close_ms} ms\n`);
    } else {
      const width = Math.max(4, ...tools.map((t) => t.name.length));
      process.stdout.write(`${"TOOL".padEnd(width)}  RISK       DESCRIPTION\n${tools.map((t) => `${t.name.padEnd(width)}  ${t.risk.padEnd(9)}  ${t.description}`).join("\n")}\n`);
    }
  } catch (e) {
    fail(command, (e as Error).message, 1);
  } finally {
    clearTimeout(wait);
    await conn?.close();
    for (const fn of closers) await fn();
  }
}

const test = defineCommand({
  meta: { name: "test", description: "Connect to one MCP server (after approval), list its tools, close; print timings" },
  args: serverArgs,
  run: ({ args }) => probe("test", args as never),
});

const tools = defineCommand({
  meta: { name: "tools", description: "The tools one MCP server offers, as the model sees their names" },
  args: serverArgs,
  run: ({ args }) => probe("tools", args as never),
});

export default defineCommand({
  meta: { name: "mcp", description: "MCP servers: list the configured ones, test one, show its tools" },
  subCommands: { list, test, tools },
});
