// One protocol connection: initialize, sessions, turns, approvals. Transport-agnostic: stdio and the
// in-process client (`scv exec`, the TUI, the chat bridge) both feed it lines and receive its messages. What
// opens or changes a session is in session-requests.ts and open-session.ts, the connection's state in connection.ts.
import { isAbsolute } from "node:path";
import { createRpcEndpoint, RpcError, type RpcEndpoint } from "../protocol/rpc";
import { ERROR_CODES, PROTOCOL_VERSION } from "../protocol/schema";
import { imageRef, type ImageRef } from "../provider/images";
import { VERSION } from "../version";
import type { Connection, ServerOptions } from "./connection";
import { rewindSession, sessionCheckpoints } from "./rewind";
import type { Session } from "./session";
import { configureSession, resumeSession, startSession } from "./session-requests";

export { instanceIdFor, type ServerOptions } from "./connection";
export { missingKeyMessage } from "./open-session";

export interface ServerConnection extends RpcEndpoint {
  closeAll(): Promise<void>;
  /** The stdio fast path already answered a valid `initialize` before this connection loaded. */
  markInitialized(): void;
  sessionCount(): number;
}

export function createServerConnection(opts: ServerOptions): ServerConnection {
  const conn: Connection = { opts, env: opts.env ?? process.env, sessions: new Map(), initialized: false, notify: async () => {} };
  const requireInit = () => {
    if (!conn.initialized) throw new RpcError(ERROR_CODES.not_initialized, "send initialize {protocol_version: 3} first");
  };
  const session = (id: string) => {
    const s = conn.sessions.get(id);
    if (!s) throw new RpcError(ERROR_CODES.unknown_session, `unknown session "${id}"; start one with session.start`);
    return s;
  };

  const endpoint: RpcEndpoint = createRpcEndpoint({
    send: opts.send,
    initialized: () => conn.initialized,
    handlers: {
      async initialize(p) {
        if (p.protocol_version !== PROTOCOL_VERSION) {
          throw new RpcError(
            ERROR_CODES.unsupported_version,
            `protocol version ${p.protocol_version} is not supported; this server speaks version ${PROTOCOL_VERSION}`,
            { supported: [PROTOCOL_VERSION] },
          );
        }
        conn.initialized = true;
        conn.clientName = p.client?.name;
        return { protocol_version: PROTOCOL_VERSION, server: { name: "scv", version: VERSION } };
      },
      async "session.start"(p) {
        requireInit();
        return startSession(conn, p);
      },
      async "session.resume"(p) {
        requireInit();
        return resumeSession(conn, p);
      },
      async "turn.start"(p) {
        requireInit();
        const s = session(p.session_id);
        const images = attachedImages(s, p.images);
        let started: { turnId: string; queued: boolean };
        try {
          started = s.startTurn(p.prompt, images, p.goal);
        } catch (e) {
          throw new RpcError(ERROR_CODES.invalid_params, (e as Error).message);
        }
        const { turnId, queued } = started;
        return { turn_id: turnId, queued };
      },
      async "turn.cancel"(p) {
        requireInit();
        return { cancelled: session(p.session_id).cancel(p.turn_id) };
      },
      async "approval.resolve"(p) {
        requireInit();
        const answered = session(p.session_id).resolveApproval(p.approval_id, p.approved, p.remember, p.reason, p.chosen);
        if (!answered) {
          throw new RpcError(ERROR_CODES.unknown_approval, `no pending approval "${p.approval_id}" in this session (already answered or its turn ended)`);
        }
        return { ok: true as const, ...answered };
      },
      async "clarify.answer"(p) {
        requireInit();
        if (!session(p.session_id).answerQuestion(p.clarify_id, p.answer)) {
          throw new RpcError(ERROR_CODES.unknown_approval, `no open question "${p.clarify_id}" in this session (already answered, timed out, or its turn ended)`);
        }
        return { ok: true as const };
      },
      async "session.configure"(p) {
        requireInit();
        return configureSession(conn, session(p.session_id), p);
      },
      async "session.compact"(p) {
        requireInit();
        const result = await session(p.session_id).compactNow();
        if (result.ok) return { compacted: true, turns: result.turns, tokens_before: result.tokensBefore, tokens_after: result.tokensAfter };
        if (result.failure) throw new RpcError(ERROR_CODES.internal_error, `compaction failed: ${result.message}`);
        return { compacted: false, turns: 0, tokens_before: 0, tokens_after: 0 };
      },
      async "session.checkpoints"(p) {
        requireInit();
        return sessionCheckpoints(session(p.session_id));
      },
      async "session.rewind"(p) {
        requireInit();
        return rewindSession(session(p.session_id), p);
      },
      async "session.close"(p) {
        requireInit();
        const s = session(p.session_id);
        conn.sessions.delete(p.session_id);
        await s.close();
        return { closed: true as const };
      },
    },
  });
  conn.notify = (method, params) => endpoint.notify(method, params);

  return {
    ...endpoint,
    async closeAll() {
      const all = [...conn.sessions.values()];
      conn.sessions.clear();
      await Promise.all(all.map((s) => s.close()));
    },
    sessionCount: () => conn.sessions.size,
    markInitialized: () => void (conn.initialized = true),
  };
}

/** Images a client attached to a prompt, checked before the turn is queued: a refusal says what to change. */
function attachedImages(s: Session, paths: string[] | undefined): ImageRef[] | undefined {
  if (!paths?.length) return undefined;
  if (!s.scope.images?.accepted) {
    throw new RpcError(ERROR_CODES.invalid_params, `cannot attach images: ${s.scope.images?.reason ?? "this session's model does not take images"}`);
  }
  return paths.map((p) => {
    if (!isAbsolute(p)) throw new RpcError(ERROR_CODES.invalid_params, `image path ${JSON.stringify(p)} must be absolute`);
    try {
      return imageRef(p);
    } catch (e) {
      throw new RpcError(ERROR_CODES.invalid_params, (e as Error).message);
    }
  });
}
