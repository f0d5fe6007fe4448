// The environment a delegated agent runs with: the server's own, minus every credential, endpoint and state
// variable that would let it reuse the parent's configuration or another agent's sign-in, plus a private
// home under $SCV_HOME/agents/<name> that holds its own sign-in and state.
import { chmodSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ALL_OWN_VARIABLES, type AgentDescriptor } from "./descriptors";

/** SCV's own selectors: a nested SCV must not inherit the parent's provider or model choice. */
const SCV_SELECTORS = ["SCV_PROVIDER", "SCV_MODEL"];

export function agentHome(scvHome: string, name: string): string {
  return join(scvHome, "agents", name);
}

/** Whether an inherited variable is withheld from every delegated agent. */
export function isWithheld(name: string): boolean {
  if (name.endsWith("_API_KEY") || SCV_SELECTORS.includes(name)) return true;
  return ALL_OWN_VARIABLES.some((v) => (typeof v === "string" ? v === name : v.test(name)));
}

/** The inherited environment with every withheld variable removed. */
export function scrubbedEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && !isWithheld(k)) out[k] = v;
  return out;
}

export interface AgentEnvironment {
  env: Record<string, string>;
  home: string;
  /** The agent's own state directory (its home for Codex). */
  stateDir?: string;
}

/** The private-home variables for one agent; `full` adds its full-permission variables. */
export function agentEnvironment(
  d: AgentDescriptor,
  opts: { scvHome: string; env: Readonly<Record<string, string | undefined>>; full: boolean },
): AgentEnvironment {
  const home = agentHome(opts.scvHome, d.name);
  const env = scrubbedEnv(opts.env);
  env.HOME = home;
  env.SCV_HOME = join(home, ".scv");
  env.XDG_CONFIG_HOME = join(home, ".config");
  env.XDG_DATA_HOME = join(home, ".local", "share");
  env.XDG_STATE_HOME = join(home, ".local", "state");
  env.XDG_CACHE_HOME = join(home, ".cache");
  let stateDir: string | undefined;
  if (d.stateDir) {
    stateDir = d.stateDir.path ? join(home, d.stateDir.path) : home;
    env[d.stateDir.env] = stateDir;
  }
  Object.assign(env, d.extraEnv);
  if (opts.full) Object.assign(env, d.fullPermissions.env);
  return { env, home, stateDir };
}

/** Creates the private home and the agent's state directory (mode 0700) before a run. */
export function preparePrivateHome(e: AgentEnvironment): void {
  mkdirSync(e.home, { recursive: true, mode: 0o700 });
  if (e.stateDir) mkdirSync(e.stateDir, { recursive: true, mode: 0o700 });
}

/**
 * A private TMPDIR for one run: `$SCV_HOME/agents/<name>/tmp/<handle>` (mode 0700), so what the agent leaves
 * in its temporary directory (sockets, sandbox mount targets, daemons' state) stays in its home and goes with
 * the run. Returns the directory; removeRunTmp deletes it when the run ends.
 */
export function privateRunTmp(e: AgentEnvironment, handle: string): string {
  const parent = join(e.home, "tmp");
  mkdirSync(parent, { recursive: true, mode: 0o700 });
  chmodSync(parent, 0o700);
  const dir = join(parent, handle);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  e.env.TMPDIR = dir;
  return dir;
}

export function removeRunTmp(dir: string | undefined): void {
  if (!dir) return;
  try {
    // rm never follows symbolic links: a link the agent left removes the link, not its target.
    rmSync(dir, { recursive: true, force: true, maxRetries: 2 });
  } catch {
    // a leftover the agent still holds open goes with the next gc of the home
  }
}
