// Which configuration values are secrets, apart from the zod schemas so that code which must not build them
// (the config check cache) can still tell.

/**
 * Key paths whose values are secrets: shown only as set/unset, never kept in the config check cache. An agent's
 * `args` count too (people pass `--api-key …` there), and so do an MCP server's `args`, `env` values and headers;
 * an array element's path ends in its index.
 */
export const SECRET_KEYS = [/^providers\.[^.]+\.api_key$/, /^web\.brave_api_key$/, /^providers\.[^.]+\.headers\./, /^agents\.[^.]+\.args(\.\d+)?$/,
  /^mcp\.servers\.[^.]+\.args(\.\d+)?$/, /^mcp\.servers\.[^.]+\.env\.[A-Za-z_]/, /^mcp\.servers\.[^.]+\.headers\./];
