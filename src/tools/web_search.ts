// web_search: queries the search service the user configured (SearXNG or Brave). The query goes only to
// that service, not to a host the model picks, hence read_only risk. With web.search = "provider" there is
// no SCV tool: the model request offers the endpoint's hosted search instead (see hostedSearchEnabled).
import { join } from "node:path";
import { zod } from "../lazy-schema";
import type { Config } from "../config/schema";
import { netOptions } from "../net";
import type { SearchBackend, SearchHit } from "../net/search";
import { ToolError } from "../errors";
import { type SessionScope } from "../scope";
import { defineTool, type Tool } from "./tool";

/**
 * Whether model requests should offer the hosted {"type":"web_search"} tool: web.search = "provider", the
 * active profile speaks the Responses wire API, and the session has tools (tool-free sessions get no search).
 */
export function hostedSearchEnabled(scope: { config: Config }, sessionHasTools = true): boolean {
  const { config } = scope;
  const profile = config.providers[config.provider.active];
  return sessionHasTools && config.web.search === "provider" && profile?.wire_api === "responses";
}

export function createWebSearchTool(scope: SessionScope): Tool | undefined {
  const { web } = scope.config;
  if (web.search !== "searxng" && web.search !== "brave") return undefined;
  if (web.search === "searxng" && !web.searxng_url) return undefined; // config loading already refuses this
  const max = web.max_search_results;

  const z = zod();
  const Params = z.strictObject({
    query: z.string().trim().min(1, "give the words to search for").max(1000, "must be at most 1000 characters"),
    count: z
      .number()
      .int("must be a whole number")
      .min(1, "must be at least 1")
      .optional()
      .describe(`At most ${max} (the default)`),
  });

  return defineTool({
    name: "web_search",
    kind: "search",
    description:
      `Search the web (the user's search service): up to ${max} results, each a title, URL and snippet; read one with web_fetch.`,
    parameters: Params,
    risk: "read_only",
    summary: (args) => `search "${args.query}"`,
    async execute(args, ctx) {
      // The backends (and the HTML entity table their snippets need) load at the first search, not when a
      // session offering the tool starts.
      const search = await import("../net/search");
      const backend = backendFor(ctx, search);
      const count = Math.min(args.count ?? max, max);
      ctx.progress(`searching ${backend.name}`);
      let hits: SearchHit[];
      try {
        hits = await backend.search(args.query, count, ctx.signal);
      } catch (e) {
        if (e instanceof search.SearchError) throw new ToolError(`web_search failed: ${e.message}`);
        throw e;
      }
      return { ok: true, output: renderHits(args.query, backend.name, hits), display: `${hits.length} result${hits.length === 1 ? "" : "s"}` };
    },
  });
}

function backendFor(scope: SessionScope, { braveBackend, searxngBackend }: typeof import("../net/search")): SearchBackend {
  const { web } = scope.config;
  const net = netOptions(scope);
  const http = { userAgent: net.userAgent, timeoutMs: net.timeoutMs, maxBytes: net.maxBytes, tls: net.tls };
  if (web.search === "searxng") return searxngBackend(web.searxng_url!, http);
  const key = web.brave_api_key ?? (scope.env[web.brave_api_key_env] || undefined);
  if (!key) {
    throw new ToolError(
      `web_search is set to Brave but no API key is set: add web.brave_api_key to your config (${join(scope.scvHome, "config.toml")}) ` +
        `or set the ${web.brave_api_key_env} environment variable (web.brave_api_key_env), then start a new session.`,
    );
  }
  return braveBackend(key, { ...http, endpoint: net.braveEndpoint });
}

function renderHits(query: string, service: string, hits: SearchHit[]): string {
  if (!hits.length) return `No results from ${service} for "${query}".`;
  const lines = [`${hits.length} result(s) from ${service} for "${query}":`];
  hits.forEach((h, i) => {
    lines.push("", `${i + 1}. ${h.title || "(no title)"}`, `   ${h.url}`);
    if (h.snippet) lines.push(`   ${h.snippet.length > 500 ? `${h.snippet.slice(0, 500)}...` : h.snippet}`);
  });
  return lines.join("\n");
}
