// Which configuration values are secrets, apart from the zod schemas so that code which must not build them
// (the config check cache) can still tell.

/** Key paths whose values are secrets: shown only as set/unset. */
export const SECRET_KEYS = [/^providers\.[^.]+\.api_key$/, /^web\.brave_api_key$/, /^providers\.[^.]+\.headers\./];
