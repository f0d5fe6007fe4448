// The heavy half of `server --stdio`, loaded while the fast path answers `initialize`: the configuration check
// (the server refuses to start on a bad config) and the protocol connection.
import { ConfigError, loadConfig } from "../config/load";
import { createServerConnection, type ServerConnection } from "./server";

export async function openStdioConnection(opts: { baseDepth: number; send(message: unknown): Promise<void> }): Promise<ServerConnection> {
  try {
    loadConfig({ cwd: process.cwd() });
  } catch (e) {
    if (e instanceof ConfigError) throw new Error(`configuration error, not starting:\n${e.message}`);
    throw e;
  }
  return createServerConnection({ send: opts.send, baseDepth: opts.baseDepth });
}
