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
export function agentCallSchema(config: Config, offered: OfferedAgent[], inRepository = false): JsonSchema {
  const names = offered.map((o) => o.descriptor.name);
  const preferred = defaultAgent(config, offered);
  const how = preferred
    ? `Which agent runs the call. Omit it to use ${preferred.descriptor.name}, the first agent in the user's [agent] prefer that this session offers; a call that continues a session needs no agent.`
    : "Which agent runs the call (a call continuing a session needs none).";
  const { agent_timeout_seconds: dflt, max_timeout_seconds: max } = config.tools;
  const properties: Record<string, JsonSchema> = {
    agent: { type: "string", enum: names, description: [how, ...offered.map(agentLine)].join("\n") },
    prompt: text('Self-contained brief: goal, paths, constraints, expected answer (not starting with "-")'),
    cwd: text("In the workspace (default its root)"),
  };
  const model = namesTaking(offered, "model");
  if (model.length) {
    properties.model = text(
      `(${model.join(", ")}) Only when asked or a use_for default applies.`,
    );
  }
  const effort = namesTaking(offered, "effort");
  if (effort.length) {
    properties.effort = {
      type: "string",
      enum: [...EFFORTS],
      description: `(${effort.join(", ")}) Only when asked or a use_for default applies.`,
    };
  }
  const session = namesTaking(offered, "session");
  if (session.length) {
    properties.session = text(
      `An earlier result's handle (such as ${session[0]}-1) to continue it (${session.join(", ")})`,
    );
  }
  properties.timeout_seconds = {
    type: "integer",
    minimum: 1,
    maximum: max,
    description: `Default ${dflt}, at most ${max}`,
  };
  if (config.agent.max_background > 0) {
    properties.background = {
      type: "boolean",
      description: `Return a job handle at once; the result comes in a [SCV background report] turn. At most ${config.agent.max_background} at once.`,
    };
    if (inRepository) properties.worktree = { type: "boolean", description: "With background: its own git worktree and branch (default while another job works here); agent_merge merges it" };
  }
  return { type: "object", properties, required: preferred ? ["prompt"] : ["agent", "prompt"], additionalProperties: false };
}
