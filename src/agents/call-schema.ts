// The JSON Schema the model sees for the `agent` tool: the enum of offered agents, each agent's line, and only
// the options some offered agent takes (model, effort, session), with the configured timeouts and background jobs.
import { EFFORTS, type Config } from "../config/schema";
import { defaultAgent, type OfferedAgent, takesOption } from "./offer";
import { agentLine } from "./prompt";

function namesTaking(offered: OfferedAgent[], option: "model" | "effort" | "session"): string[] {
  return offered.filter((o) => takesOption(o, option)).map((o) => o.descriptor.name);
}

type JsonSchema = Record<string, unknown>;
const text = (description: string): JsonSchema => ({ type: "string", description });

/**
 * The JSON Schema the model sees: the enum of offered agents and only the options some of them take. It is
 * written as JSON Schema rather than built with zod and converted, which cost every session start half a
 * millisecond; AgentArgs (lenient, so planCall can say exactly what was wrong) checks the calls.
 */
export function agentCallSchema(config: Config, offered: OfferedAgent[]): JsonSchema {
  const names = offered.map((o) => o.descriptor.name);
  const preferred = defaultAgent(config, offered);
  const how = preferred
    ? `Which agent runs the call. Omit it to use ${preferred.descriptor.name}, the first agent in the user's [agent] prefer that this session offers; a call that continues a session needs no agent.`
    : "Which agent runs the call. The user prefers none of the agents this session offers ([agent] prefer), so name one; a call that continues a session needs no agent.";
  const { agent_timeout_seconds: dflt, max_timeout_seconds: max } = config.tools;
  const properties: Record<string, JsonSchema> = {
    agent: { type: "string", enum: names, description: [how, ...offered.map(agentLine)].join("\n") },
    prompt: text('The self-contained brief for the agent: goal, relevant paths, constraints, and what the answer should contain. It cannot start with "-".'),
    cwd: text(
      "Directory to run in, inside the workspace: relative to it (such as a project directory) or absolute. Defaults to the workspace root. Running in a project directory lets the agent pick up that project's AGENTS.md or CLAUDE.md and its skills.",
    ),
  };
  const model = namesTaking(offered, "model");
  if (model.length) {
    properties.model = text(
      `Model for the agent, from the family its line names (taken by: ${model.join(", ")}). Set it when the user asks for a model or when the work matches a configured use_for default; omit it to leave the agent's own configured default in place.`,
    );
  }
  const effort = namesTaking(offered, "effort");
  if (effort.length) {
    properties.effort = {
      type: "string",
      enum: [...EFFORTS],
      description: `Reasoning effort (taken by: ${effort.join(", ")}). Set it when the user asks or when the work matches a configured use_for default; omit it to leave the agent's own default in place.`,
    };
  }
  const session = namesTaking(offered, "session");
  if (session.length) {
    properties.session = text(
      `A handle from an earlier agent result in this session, such as ${session[0]}-1, to continue that conversation with the agent's own context (taken by: ${session.join(", ")}). Omit it to start a new conversation. A conversation keeps its agent and cwd.`,
    );
  }
  properties.timeout_seconds = {
    type: "integer",
    minimum: 1,
    maximum: max,
    description: `Seconds before the agent is stopped; default ${dflt}, at most ${max}. Raise it for long work such as builds, releases, or landing a change.`,
  };
  if (config.agent.max_background > 0) {
    properties.background = {
      type: "boolean",
      description: `Run the call as a background job: the tool returns at once with a job handle (such as job-1) while the agent works, and the result comes back later in a [SCV background report] turn, or through agent_wait / agent_status. At most ${config.agent.max_background} jobs run at once.`,
    };
  }
  return { type: "object", properties, required: preferred ? ["prompt"] : ["agent", "prompt"], additionalProperties: false };
}
