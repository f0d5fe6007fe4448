// The fetch an HTTP MCP server's transport uses: SCV's DNS-pinned connector under the same address policy as
// web_fetch (private and loopback addresses only with the server's allow_private_addresses), proxies ignored,
// and every response body capped at mcp.max_message_bytes so a huge reply cannot fill memory.
import { guardedFetch } from "../net/fetch";
import { netOptions, type NetScope } from "../net/index";

export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

export function guardedMcpFetch(scope: NetScope, server: { name: string; allowPrivate: boolean; timeoutMs: number; maxBytes: number }): FetchLike {
  const opts = { ...netOptions(scope), allowPrivate: server.allowPrivate, timeoutMs: server.timeoutMs };
  return async (url, init = {}) => {
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, key) => (headers[key] = value));
    const body = typeof init.body === "string" || init.body instanceof Uint8Array ? init.body : init.body == null ? undefined : String(init.body);
    const { response } = await guardedFetch(url, opts, { method: init.method ?? "GET", headers, body, ...(init.signal ? { signal: init.signal } : {}) });
    return capped(response, server.maxBytes, server.name);
  };
}

/** The same response with a body that errors once it passes `maxBytes`. */
function capped(response: Response, maxBytes: number, name: string): Response {
  if (!response.body) return response;
  let seen = 0;
  const limit = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > maxBytes) {
        controller.error(new Error(`MCP server "${name}" sent a response over ${maxBytes} bytes (mcp.max_message_bytes); it was not read`));
        return;
      }
      controller.enqueue(chunk);
    },
  });
  return new Response(response.body.pipeThrough(limit), { status: response.status, statusText: response.statusText, headers: response.headers });
}
