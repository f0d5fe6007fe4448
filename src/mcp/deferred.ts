// Many MCP tools do not swell every request: when a session's MCP tool schemas together pass
// `mcp.schema_budget_bytes`, each is offered by name only (callable, its schema left out of requests) and one
// tool, `load_tools`, lists them with a one-line description each and loads the full schemas of those the model
// asks for; from the next request on those are offered whole and called as any tool. Below the budget nothing
// changes. What was loaded stays loaded for the session.
import type { Tool, ToolResult } from "../tools/tool";

export const LOAD_TOOLS = "load_tools";
/** Tools a query loads at most (names given exactly are all loaded). */
const QUERY_MAX = 10;

/** A tool's weight in a request: its name, description and schema as JSON. */
export function schemaBytes(tools: readonly Tool[]): number {
  let bytes = 0;
  for (const t of tools) bytes += Buffer.byteLength(JSON.stringify({ name: t.name, description: t.description, parameters: t.jsonSchema }));
  return bytes;
}

/** A description's first sentence or line, at most `max` characters. */
function oneLine(description: string, max: number): string {
  const first = description.replace(/^\(MCP server "[^"]*", tool "[^"]*"\) /, "").split(/\n|(?<=\.)\s/, 1)[0]!.trim();
  return first.length > max ? `${first.slice(0, max - 1)}…` : first;
}

/** The loader's listing of the deferred tools, shortened until it fits inside the budget with the loader's own words. */
function listing(tools: readonly Tool[], budget: number): string {
  for (const max of [80, 40, 0]) {
    const text = tools.map((t) => (max ? `- ${t.name}: ${oneLine(t.description, max)}` : `- ${t.name}`)).join("\n");
    if (Buffer.byteLength(text) <= budget - 1024 || max === 0) return text;
  }
  return "";
}

/** Decides per refresh whether the session's MCP tools are deferred, and keeps what the model loaded. */
export class DeferredTools {
  private readonly loaded = new Set<string>();

  constructor(private readonly budget: number) {}

  /**
   * The tools to offer: all of them as they are below the budget; else each wrapped to be deferred until loaded,
   * plus the loader (null when nothing is deferred).
   */
  offer(tools: readonly Tool[]): { tools: Tool[]; loader: Tool | null } {
    if (!tools.length || schemaBytes(tools) <= this.budget) return { tools: [...tools], loader: null };
    const loaded = this.loaded;
    const wrapped = tools.map(
      (t): Tool => ({
        name: t.name,
        ...(t.kind ? { kind: t.kind } : {}),
        description: t.description,
        jsonSchema: t.jsonSchema,
        assess: (args, ctx) => t.assess(args, ctx),
        run: (args, ctx) => t.run(args, ctx),
        get deferred() {
          return !loaded.has(t.name);
        },
      }),
    );
    return { tools: wrapped, loader: this.loader(wrapped) };
  }

  private loader(tools: Tool[]): Tool {
    const byName = new Map(tools.map((t) => [t.name, t]));
    const description =
      `Load MCP tools offered by name only, so you can call them: give their exact names, or a query (words matched ` +
      `against names and descriptions; the best matches, at most ${QUERY_MAX} tools). Their full schemas are returned and they are ` +
      `offered from your next step on; then call them directly. The tools:\n${listing(tools, this.budget)}`;
    return {
      name: LOAD_TOOLS,
      kind: "search",
      description,
      jsonSchema: {
        type: "object",
        properties: {
          names: { type: "array", items: { type: "string" }, description: "exact tool names from the list" },
          query: { type: "string", description: "words to look for in tool names and descriptions" },
        },
      },
      assess: async (raw) => {
        const args = (raw && typeof raw === "object" && !Array.isArray(raw) ? raw : {}) as { names?: unknown; query?: unknown };
        const names = Array.isArray(args.names) ? args.names.filter((n): n is string => typeof n === "string") : [];
        const query = typeof args.query === "string" ? args.query.trim() : "";
        if (!names.length && !query) return { ok: false, result: { ok: false, output: `give ${LOAD_TOOLS} "names" (exact names from its list) or a "query"` } };
        const label = `load tools ${names.length ? names.join(", ") : JSON.stringify(query)}`;
        return { ok: true, args: { names, query }, risk: "read_only", summary: label, label };
      },
      run: async (args: { names: string[]; query: string }): Promise<ToolResult> => {
        const unknown = args.names.filter((n) => !byName.has(n));
        const found = args.names.filter((n) => byName.has(n)).map((n) => byName.get(n)!);
        if (args.query) {
          const words = args.query.toLowerCase().split(/\s+/).filter(Boolean);
          const score = (t: Tool) => words.filter((w) => `${t.name} ${t.description}`.toLowerCase().includes(w)).length;
          const hits = tools.map((t) => ({ t, s: score(t) })).filter((h) => h.s > 0 && !found.includes(h.t));
          // The best matches only (every word found beats some words found), so a query loads what it names.
          const best = Math.max(0, ...hits.map((h) => h.s));
          found.push(...hits.filter((h) => h.s === best).slice(0, QUERY_MAX).map((h) => h.t));
        }
        if (!found.length) {
          const why = unknown.length ? `no tool is named ${unknown.join(", ")}` : `no tool matches ${JSON.stringify(args.query)}`;
          return { ok: false, output: `${why}; the names are in ${LOAD_TOOLS}'s description` };
        }
        for (const t of found) this.loaded.add(t.name);
        const schemas = found.map((t) => JSON.stringify({ name: t.name, description: t.description, parameters: t.jsonSchema }));
        const missed = unknown.length ? `\nNot found: ${unknown.join(", ")}.` : "";
        return {
          ok: true,
          output: `Loaded ${found.length} tool${found.length === 1 ? "" : "s"}; call ${found.length === 1 ? "it" : "them"} directly from now on:\n${schemas.join("\n")}${missed}`,
          display: `${found.length} tool${found.length === 1 ? "" : "s"} loaded`,
        };
      },
    };
  }
}
