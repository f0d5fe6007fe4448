// An MCP server's tool as a session tool: named `<server>__<tool>`, approved by the server's risk through the
// normal gate (a readOnlyHint lowers it only with trust_read_only_hints), bound to the connection that listed
// it: a call after that connection ended fails and the next turn offers the reconnected server's tools.
import type { ToolRisk } from "../scope";
import { displayLine, failure, type Tool, type ToolCallContext, type ToolResult } from "../tools/tool";
import { type McpConnection, type McpToolInfo } from "./connection";
import { offeredName } from "./names";
import { resultOutput } from "./result";

export interface ServerBinding {
  name: string;
  risk: ToolRisk;
  trustReadOnlyHints: boolean;
  toolTimeoutSeconds: number;
  secrets: readonly { name: string; value: string }[];
  /** Called when a call timed out: the server is stopped and reconnects at the next turn. */
  onTimeout(conn: McpConnection): void;
}

const DESCRIPTION_MAX_CHARS = 4000;
const SUMMARY_ARGUMENTS_MAX_CHARS = 4000;

/**
 * Where a tool's calls go: a live connection, or a function that gives one at the call (starting the server,
 * after its approval, when its tools were offered from the known list); it throws an McpError saying why not.
 */
export type ConnectionOf = McpConnection | ((ctx: ToolCallContext) => Promise<McpConnection>);

export function mcpTool(server: ServerBinding, connection: ConnectionOf, info: McpToolInfo): Tool<Record<string, unknown>> {
  const name = offeredName(server.name, info.name);
  const risk: ToolRisk = server.trustReadOnlyHints && info.annotations?.readOnlyHint === true ? "read_only" : server.risk;
  const about = `(MCP server "${server.name}", tool "${info.name}") `;
  const description = `${about}${info.description ?? info.annotations?.title ?? ""}`.slice(0, DESCRIPTION_MAX_CHARS);
  return {
    name,
    description,
    jsonSchema: inputSchemaOf(info),
    async assess(rawArgs) {
      if (!rawArgs || typeof rawArgs !== "object" || Array.isArray(rawArgs)) {
        return { ok: false, result: failure(`the ${name} arguments must be a JSON object`) };
      }
      const args = rawArgs as Record<string, unknown>;
      const shown = JSON.stringify(args, null, 2);
      const summary = [
        `MCP server "${server.name}" tool "${info.name}"${risk === "read_only" ? " (read-only by the server's own hint, trusted)" : ""}`,
        `arguments: ${shown.length > SUMMARY_ARGUMENTS_MAX_CHARS ? `${shown.slice(0, SUMMARY_ARGUMENTS_MAX_CHARS)}… [${shown.length} characters]` : shown}`,
      ].join("\n");
      return { ok: true, args, risk, summary, label: displayLine(`${server.name}__${info.name} ${JSON.stringify(args)}`) };
    },
    async run(args, ctx): Promise<ToolResult> {
      let conn: McpConnection;
      if (typeof connection === "function") {
        try {
          conn = await connection(ctx);
        } catch (e) {
          if (ctx.signal.aborted) return failure("cancelled");
          return failure(displayLine((e as Error).message, 2000));
        }
      } else conn = connection;
      if (conn.closed) return failure(`MCP server "${server.name}" ${conn.closed}; it is connected again at the next turn, so try again then`);
      const started = performance.now();
      try {
        const result = await conn.call(info.name, args, { signal: ctx.signal, onProgress: (line) => ctx.progress(line) });
        const out = resultOutput(result, server.secrets, ctx.outputLimitBytes);
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        return { ...out, display: `${out.ok ? "ok" : "error"}, ${Buffer.byteLength(out.output)} bytes, ${seconds} s` };
      } catch (e) {
        if (ctx.signal.aborted) return failure("cancelled (the server was told with notifications/cancelled)");
        const message = e instanceof Error ? e.message : String(e);
        if (/Request timed out/.test(message)) {
          server.onTimeout(conn);
          return failure(`MCP server "${server.name}" did not answer ${info.name} within ${server.toolTimeoutSeconds} s (tool_timeout_seconds); the call was cancelled and the server restarts at the next turn`);
        }
        return failure(displayLine(message.startsWith("MCP server") ? message : `MCP server "${server.name}": ${message}`, 2000));
      }
    },
  };
}

/** The tool's input schema as the providers take it: always an object schema. */
function inputSchemaOf(info: McpToolInfo): Record<string, unknown> {
  const schema = info.inputSchema && typeof info.inputSchema === "object" ? { ...info.inputSchema } : {};
  delete schema.$schema;
  schema.type = "object";
  if (!schema.properties || typeof schema.properties !== "object") schema.properties = {};
  return schema;
}
