// What a protocol connection is made with (ServerOptions) and the state its request handlers share
// (Connection), apart from the handlers themselves (server.ts) and how a session is opened (open-session.ts).
import { realpathSync } from "node:fs";
import { sha256Hex } from "../digest";
import type { SessionServices } from "../scope";
import type { RpcEndpoint } from "../protocol/rpc";
import type { createModelClient } from "../provider/client";
import type { ModelClient } from "../provider/types";
import type { SessionStore } from "../sessions/index";
import type { HostedSession } from "./hosted-session";
import type { Session } from "./session";

export interface ServerOptions {
  send(message: unknown): Promise<void>;
  env?: NodeJS.ProcessEnv;
  /** This SCV process's own delegation depth (from SCV_DELEGATION_DEPTH); sessions may only go deeper. */
  baseDepth?: number;
  /** Test seam: replaces the HTTP model client. */
  modelClientFactory?: (profile: Parameters<typeof createModelClient>[0], apiKey: string | undefined) => ModelClient;
  /** Test seam and client services (an editor's files): extra per-session services, given the session's ID. */
  services?: (sessionId: string) => SessionServices;
  /** Where sessions are kept so they can be resumed; without it sessions live only in memory. */
  sessions?: SessionStore;
  /** Called with each session this connection starts or resumes (the chat bridge watches its jobs). */
  onSession?: (session: HostedSession) => void;
  /** The chat bridge's part in the limits: which sessions serve someone other than the owner, and telling the owner. */
  usageHooks?: { onLimit?(message: string): void };
  /**
   * A short-lived process (`scv exec`): usage and turns reach the index through the next reader's catch-up from
   * the session files, unless this process opened the index anyway (a limit check, a search).
   */
  indexLater?: boolean;
}

const instanceIds = new Map<string, string>();

/** A short name for the SCV home (its real path's digest), made once per home and process. */
export function instanceIdFor(home: string): string {
  const known = instanceIds.get(home);
  if (known) return known;
  const id = instanceIdOf(home);
  instanceIds.set(home, id);
  return id;
}

function instanceIdOf(home: string): string {
  let real = home;
  try {
    real = realpathSync(home);
  } catch {
    // a home that does not exist yet still names this instance
  }
  return sha256Hex(real).slice(0, 8);
}

/** One connection's state, shared by its request handlers. */
export interface Connection {
  opts: ServerOptions;
  env: NodeJS.ProcessEnv;
  sessions: Map<string, Session>;
  initialized: boolean;
  /** The client's name from `initialize`: it says where the sessions' usage comes from (terminal, exec, chat). */
  clientName?: string;
  /** Sends a notification to this connection's client (set once the endpoint exists). */
  notify: RpcEndpoint["notify"];
}
