// `scv acp` behind its fast path: the editor's ACP requests, each served by the one in-process SCV server
// connection this process drives (as `scv exec` and the TUI do), with ACP's errors for bad input. The requests'
// handlers are in methods.ts, the sessions this connection has open in open-sessions.ts.
import type { ClientOffers } from "./capabilities";
import { acpMethods } from "./methods";
import { OpenSessions, type OpenSessionsOptions } from "./open-sessions";
import { ACP_ERRORS, AcpError, AcpPeer } from "./rpc";

export interface AcpAgentOptions extends OpenSessionsOptions {
  send(message: unknown): Promise<void>;
  /** What the fast path learnt from an `initialize` it answered before this module loaded. */
  initialized?: ClientOffers;
}

export interface AcpAgent {
  peer: AcpPeer;
  close(): Promise<void>;
}

export function createAcpAgent(opts: AcpAgentOptions): AcpAgent {
  const open = new OpenSessions(opts, () => peer, opts.initialized);
  const methods = acpMethods(open, opts);
  const peer: AcpPeer = new AcpPeer(opts.send, {
    async request(method, params) {
      const handler = Object.hasOwn(methods, method) ? methods[method] : undefined;
      if (!open.offers && method !== "initialize") {
        throw new AcpError(ACP_ERRORS.invalid_request, `${method} before initialize: send initialize {protocolVersion: 1} first`);
      }
      if (!handler) throw new AcpError(ACP_ERRORS.method_not_found, `method not found: ${method}; SCV serves ${Object.keys(methods).join(", ")}`);
      return handler(params);
    },
    notification(method, params) {
      if (method !== "session/cancel" || !open.offers) return;
      const id = (params as { sessionId?: unknown } | null)?.sessionId;
      if (typeof id === "string") open.cancel(id);
    },
  });

  return {
    peer,
    async close() {
      peer.close();
      await open.closeAll();
    },
  };
}
