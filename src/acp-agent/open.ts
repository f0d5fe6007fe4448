// The heavy half of `scv acp`, loaded while the fast path answers `initialize`: the process set-up every
// long-running server does and the agent with its in-process SCV server. A configuration error does not end
// the process (an editor shows little of a dead agent): each session/new reports it instead.
import { ConfigError, loadConfig } from "../config/load";
import { startServing } from "../server/stdio-connection";
import { type AcpAgent, createAcpAgent } from "./agent";
import type { ClientOffers } from "./capabilities";

export function openAcpAgent(opts: { baseDepth: number; send(message: unknown): Promise<void>; initialized?: ClientOffers; log(line: string): void }): AcpAgent {
  let keepDays: number | undefined;
  try {
    keepDays = loadConfig({ cwd: process.cwd() }).config.sessions.keep_days;
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    opts.log(`configuration error (every session/new will report it until it is fixed):\n${e.message}`);
  }
  return createAcpAgent({ ...opts, env: process.env, sessions: startServing(keepDays) });
}
