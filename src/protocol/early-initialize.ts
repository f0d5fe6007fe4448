// The first line of a stdio server, read before any schema loads: a well-formed JSON-RPC 2.0 `initialize` with an
// exact id, or nothing. `scv server --stdio` and `scv acp` each check their own params on top and answer it
// early; anything else goes to the full connection, which validates it and answers with an error where due.
// Dependency-free on purpose: it runs ahead of zod.

/** The request's id and params when `text` is such an `initialize` line with object params, else undefined. */
export function initializeRequest(text: string): { id: string | number; params: Record<string, any> } | undefined {
  let msg: any;
  try {
    msg = JSON.parse(text);
  } catch {
    return undefined;
  }
  // An id beyond 2^53 was rounded by JSON.parse: the full connection echoes it exactly.
  if (!msg || msg.jsonrpc !== "2.0" || msg.method !== "initialize" || !(typeof msg.id === "string" || Number.isSafeInteger(msg.id))) return undefined;
  const p = msg.params;
  if (!p || typeof p !== "object") return undefined;
  return { id: msg.id, params: p };
}
