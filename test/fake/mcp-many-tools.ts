// A real stdio MCP server built with the official SDK's Server, offering many tools (60 by default) with schemas
// of a realistic size, for the schema budget (mcp.schema_budget_bytes): none of the reference servers has that
// many. Each tool `<area>_<verb>_NN` takes an `id` and a `note` and answers "<tool> done: <id>".
//   bun test/fake/mcp-many-tools.ts [COUNT]
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const count = Number(process.argv[2] ?? 60);
const AREAS = ["invoice", "customer", "ticket", "report", "webhook", "project"];
const VERBS = ["create", "update", "archive", "search", "export", "merge", "assign", "close", "reopen", "tag"];

export const manyToolNames = (n = 60) => Array.from({ length: n }, (_, i) => `${AREAS[i % AREAS.length]}_${VERBS[Math.floor(i / AREAS.length) % VERBS.length]}_${String(i).padStart(2, "0")}`);

const tools = manyToolNames(count).map((name) => {
  const [area, verb] = name.split("_");
  return {
    name,
    description: `${verb![0]!.toUpperCase()}${verb!.slice(1)} a ${area} record in the billing system. Use it when the person asks to ${verb} a ${area}; it returns the record's new state.`,
    inputSchema: {
      type: "object",
      properties: {
        id: { type: "string", description: `The ${area}'s identifier, as shown in the ${area} list (for example ${area.slice(0, 3).toUpperCase()}-1042)` },
        note: { type: "string", description: "A short note kept with the change in the audit log, written for a colleague" },
        dry_run: { type: "boolean", description: "Check the change without making it (default false)" },
      },
      required: ["id"],
    },
  };
});

if (import.meta.main) {
  const server = new Server({ name: "many-tools", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    if (!tools.some((t) => t.name === req.params.name)) return { content: [{ type: "text", text: `no tool ${req.params.name}` }], isError: true };
    return { content: [{ type: "text", text: `${req.params.name} done: ${String((req.params.arguments as { id?: unknown })?.id)}` }] };
  });
  await server.connect(new StdioServerTransport());
}
