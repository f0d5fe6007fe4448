// Which agents a session offers: those whose executable resolves when the session starts and, for agents whose
// sign-in SCV can check by reading a local file, that are signed in.
import { accessSync, constants, statSync } from "node:fs";
import { userHome } from "../user-home";
import { delimiter, isAbsolute, join } from "node:path";
import type { AgentOverride, Config } from "../config/schema";
import { type AgentDescriptor, DESCRIPTORS, takes } from "./descriptors";
import { agentHome, scrubbedEnv } from "./environment";

export interface AgentSettings {
  use_for?: string;
  model?: string;
  effort?: string;
  permissions: "default" | "full";
  command?: string;
  args?: string[];
  transport: "auto" | "acp" | "resume";
}

export interface OfferedAgent {
  descriptor: AgentDescriptor;
  /** Absolute path of the executable found at session start: the ACP server's when `transport` is "acp". */
  executable: string;
  settings: AgentSettings;
  /** "acp": one ACP server per conversation; absent: one CLI process per turn. */
  transport?: "acp";
  /** An agent file of SCV's own loop (src/agents/personas.ts): run as a nested SCV session with this persona. */
  persona?: import("../command-files/agents").AgentFile;
}

export interface OfferContext {
  config: Config;
  env: Readonly<Record<string, string | undefined>>;
  scvHome: string;
}

export function settingsFor(config: Config, name: string): AgentSettings {
  const o = (config.agents as Record<string, AgentOverride | undefined>)[name];
  return { ...o, permissions: o?.permissions ?? "default", transport: o?.transport ?? "auto" };
}

export function isExecutableFile(path: string): boolean {
  try {
    // A missing file is the common answer: asking not to throw saves building an exception for it.
    if (!statSync(path, { throwIfNoEntry: false })?.isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The absolute executable for `command`: a path (absolute or `~/…`) is taken as is; a bare name is looked up
 * in the per-user install directories before PATH, the order a login shell uses, because a user service's
 * PATH omits them. Empty PATH entries (the current directory) are never searched.
 */
export function resolveExecutable(
  command: string,
  opts: { userHome?: string; installDirs: readonly string[]; path?: string },
): string | undefined {
  const home = opts.userHome || userHome();
  if (command.includes("/")) {
    const p = command.startsWith("~/") ? join(home, command.slice(2)) : command;
    return isAbsolute(p) && isExecutableFile(p) ? p : undefined;
  }
  const dirs = [...opts.installDirs.map((d) => join(home, d)), ...(opts.path ?? "").split(delimiter)].filter((dir) => dir && isAbsolute(dir));
  // Bun.which takes the same files (regular, executable, symlinks followed) and checks each directory natively:
  // the agents' lookups run at every session start, and a JS stat per directory per agent cost most of a ms.
  return Bun.which(command, { PATH: dirs.join(delimiter) }) ?? undefined;
}

export function executableFor(d: AgentDescriptor, settings: AgentSettings, env: OfferContext["env"]): string | undefined {
  if (!settings.command && d.runningBinaryFirst && runningCompiledScv()) return process.execPath;
  const after = (d.installDirsAfterPath ?? []).map((dir) => join(userHome(env), dir));
  const path = [env.PATH ?? "", ...after].filter(Boolean).join(delimiter);
  return resolveExecutable(settings.command ?? d.command, { userHome: env.HOME, installDirs: d.installDirs, path });
}

/** This process is the compiled `scv` binary (not `bun` running the sources), so it can start itself. */
function runningCompiledScv(): boolean {
  return Bun.main.startsWith("/$bunfs/") && isExecutableFile(process.execPath);
}

/** Whether a file-checked agent is signed in; agents only their CLI can check count as signed in. */
export function signedIn(d: AgentDescriptor, ctx: OfferContext, agentEnv?: Record<string, string>): boolean {
  if (d.signIn === "cli") return true;
  return d.signIn({ home: agentHome(ctx.scvHome, d.name), env: agentEnv ?? scrubbedEnv(ctx.env) });
}

/**
 * The ACP server an agent runs on, if any: `transport = "acp"` requires it, `auto` uses it when it resolves
 * and the agent's `command` is the built-in one (a custom command names a CLI the server would not run),
 * `resume` never does.
 */
export function acpExecutableFor(d: AgentDescriptor, settings: AgentSettings, env: OfferContext["env"]): string | undefined {
  if (!d.acp || settings.transport === "resume") return undefined;
  if (settings.transport === "auto" && (settings.command !== undefined || d.acp.onlyWhenChosen)) return undefined;
  // Grok's, DeepSeek Harness's and SCV's server is their own CLI: with "acp", a custom command names that CLI
  // (and SCV's is the running binary unless one is named, as for the nested SCV).
  if (d.acp.command === d.command) return executableFor(d, settings, env);
  return resolveExecutable(d.acp.command, { userHome: env.HOME, installDirs: d.installDirs, path: env.PATH });
}

/** The agents this session offers, in registry order. */
export function offeredAgents(ctx: OfferContext): OfferedAgent[] {
  const offered: OfferedAgent[] = [];
  let agentEnv: Record<string, string> | undefined;
  for (const descriptor of DESCRIPTORS as readonly AgentDescriptor[]) {
    // Sign-in first: an agent needs both, and reading its sign-in file is cheaper than searching PATH for it.
    if (!signedIn(descriptor, ctx, (agentEnv ??= scrubbedEnv(ctx.env)))) continue;
    const settings = settingsFor(ctx.config, descriptor.name);
    const acp = acpExecutableFor(descriptor, settings, ctx.env);
    // "acp" offers the agent only when its server is installed.
    if (settings.transport === "acp" && !acp) continue;
    const executable = acp ?? executableFor(descriptor, settings, ctx.env);
    if (!executable) continue;
    offered.push({ descriptor, executable, settings, ...(acp ? { transport: "acp" as const } : {}) });
  }
  return offered;
}

/** What an offered agent takes on the transport it runs on: over ACP every agent takes `session`. */
export function takesOption(o: OfferedAgent, option: "model" | "effort" | "session"): boolean {
  const d = o.descriptor;
  if (o.transport !== "acp") return takes(d, option);
  if (option === "session") return true;
  return !!(option === "model" ? d.acp?.modelOptions : d.acp?.effortOptions);
}

/** The first agent in `[agent] prefer` that is offered: the one a call naming no agent runs on. */
export function defaultAgent(config: Config, offered: OfferedAgent[]): OfferedAgent | undefined {
  for (const name of config.agent.prefer) {
    const hit = offered.find((o) => o.descriptor.name === name);
    if (hit) return hit;
  }
  return undefined;
}
