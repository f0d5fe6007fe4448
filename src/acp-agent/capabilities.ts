// What `scv acp` tells an editor in `initialize`, with no dependencies: the stdio fast path answers a plain
// `initialize` with it before zod, the config or the server have loaded.
import { initializeRequest } from "../protocol/early-initialize";
import { VERSION } from "../version";

/** ACP's protocol version this agent speaks; a client asking for another one gets this one and decides. */
export const ACP_PROTOCOL_VERSION = 1;

/** What the editor offered in `initialize`: SCV uses its file access (unsaved buffers) when it may. */
export interface ClientOffers {
  readTextFile: boolean;
  writeTextFile: boolean;
  terminal: boolean;
}

export const NO_OFFERS: ClientOffers = { readTextFile: false, writeTextFile: false, terminal: false };

/**
 * SCV's side of `initialize`. Images are offered (they reach the model when the session's model takes images;
 * otherwise the prompt is refused with the reason, as SCV decides per session and `initialize` comes first).
 * No authentication methods: SCV's own config holds the provider keys.
 */
export function initializeResult(): Record<string, unknown> {
  return {
    protocolVersion: ACP_PROTOCOL_VERSION,
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: true, audio: false, embeddedContext: true },
      mcpCapabilities: { http: true, sse: false },
      sessionCapabilities: { list: {}, resume: {}, close: {} },
    },
    agentInfo: { name: "scv", title: "SCV", version: VERSION },
    authMethods: [],
  };
}

/** The client's offers from `initialize` params, read without a schema (they are optional booleans). */
export function offersFrom(params: unknown): ClientOffers {
  const caps = (params as { clientCapabilities?: { fs?: { readTextFile?: unknown; writeTextFile?: unknown }; terminal?: unknown } } | null)?.clientCapabilities;
  return { readTextFile: caps?.fs?.readTextFile === true, writeTextFile: caps?.fs?.writeTextFile === true, terminal: caps?.terminal === true };
}

/**
 * The reply to a well-formed `initialize` (JSON-RPC 2.0, an integer or string id, a numeric protocolVersion),
 * or undefined for anything else, which the full agent then validates and answers.
 */
export function earlyInitialize(text: string): { reply: unknown; offers: ClientOffers } | undefined {
  const req = initializeRequest(text);
  if (!req) return undefined;
  const p = req.params;
  if (!Number.isInteger(p.protocolVersion) || p.protocolVersion < 0) return undefined;
  return { reply: { jsonrpc: "2.0", id: req.id, result: initializeResult() }, offers: offersFrom(p) };
}
