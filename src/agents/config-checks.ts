// Configuration rules about [agent] and [agents.*] that depend on what each agent takes, derived from the
// descriptor registry so a new agent needs no change here.
import { isAbsolute } from "node:path";
import type { AgentOverride, CrossCheck } from "../config/schema";
import { capabilitiesOf, type ConfigAgentName, descriptorFor } from "./descriptors";

type Entry = [ConfigAgentName, AgentOverride];

function entries(agents: Record<string, AgentOverride | undefined>): Entry[] {
  return Object.entries(agents).filter((e): e is Entry => !!e[1]);
}

function firstProblem(agents: Record<string, AgentOverride | undefined>, f: string, check: (e: Entry) => string | undefined) {
  for (const e of entries(agents)) {
    const problem = check(e);
    if (problem) return `${f}: agents.${e[0]}.${problem}`;
  }
  return undefined;
}

export const agentConfigChecks: CrossCheck[] = [
  (c, f) =>
    firstProblem(c.agents, f, ([name, o]) =>
      o.model && !capabilitiesOf(name)?.model ? `model: ${name} does not take a model selection; remove it` : undefined,
    ),
  (c, f) =>
    firstProblem(c.agents, f, ([name, o]) =>
      o.effort && !capabilitiesOf(name)?.effort ? `effort: ${name} does not take an effort selection; remove it` : undefined,
    ),
  (c, f) =>
    firstProblem(c.agents, f, ([name, o]) =>
      o.transport === "acp" && !descriptorFor(name)?.acp
        ? `transport: ${name} has no Agent Client Protocol server; use "auto" or "resume"`
        : undefined,
    ),
  (c, f) =>
    firstProblem(c.agents, f, ([, o]) =>
      o.command && o.command.includes("/") && !isAbsolute(o.command) && !o.command.startsWith("~/")
        ? `command: ${JSON.stringify(o.command)} is a relative path; give an absolute path, a ~/ path, or a bare name looked up on PATH`
        : undefined,
    ),
  (c, f) => {
    const seen = new Set<string>();
    for (const name of c.agent.prefer) {
      if (seen.has(name)) return `${f}: agent.prefer: ${name} is listed twice; name each agent once, in order`;
      seen.add(name);
    }
    return undefined;
  },
];
