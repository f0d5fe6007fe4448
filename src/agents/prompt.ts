// Words about the offered agents for the model: each agent's line in the `agent` tool's schema, and the
// *Delegating work* system-prompt section. Both come from the agents this session actually offers.
import type { Config } from "../config/schema";
import { defaultAgent, type OfferedAgent, takesOption } from "./offer";

function list(items: string[]): string {
  if (items.length <= 1) return items.join("");
  if (items.length === 2) return `${items[0]} and ${items[1]}`;
  return `${items.slice(0, -1).join(", ")}, and ${items.at(-1)}`;
}

const sentence = (s: string) => (/[.!?]$/.test(s.trim()) ? s.trim() : `${s.trim()}.`);

/** "model gpt-5.5 and effort high", or undefined when neither is configured. */
function configuredDefaults(o: OfferedAgent): { text: string; names: string } | undefined {
  const parts: string[] = [];
  const names: string[] = [];
  if (o.settings.model && takesOption(o, "model")) {
    parts.push(`model ${o.settings.model}`);
    names.push("model");
  }
  if (o.settings.effort && takesOption(o, "effort")) {
    parts.push(`effort ${o.settings.effort}`);
    names.push("effort");
  }
  return parts.length ? { text: list(parts), names: list(names) } : undefined;
}

/** The user's `use_for` note and model/effort defaults, as sentences for the model. */
export function userNote(o: OfferedAgent): string {
  const defaults = configuredDefaults(o);
  const useFor = o.settings.use_for?.trim();
  if (useFor) {
    const note = `The user's note on when to use it: ${sentence(useFor)}`;
    if (!defaults) return note;
    return `${note} For that work, pass ${defaults.text}; omit ${defaults.names} for other work so the agent uses its own default.`;
  }
  return defaults ? `The user's default: pass ${defaults.text} unless the user asks for another.` : "";
}

/** One agent's line in the `agent` argument's description. */
export function agentLine(o: OfferedAgent): string {
  const d = o.descriptor;
  const options: string[] = [];
  if (takesOption(o, "model")) options.push(`model (${d.modelFamily})`);
  if (takesOption(o, "effort")) options.push("effort");
  if (takesOption(o, "session")) options.push("session");
  const takesText = options.length ? `Takes ${list(options)}.` : "Takes no model, effort, or session.";
  return [`- ${d.name} (${d.product}): ${d.line}.`, takesText, userNote(o)].filter(Boolean).join(" ");
}

/** The *Delegating work* section; the background paragraph appears when background jobs are on. */
export function delegatingWorkSection(offered: OfferedAgent[], config: Config): string | undefined {
  if (offered.length === 0) return undefined;
  const names = offered.map((o) => o.descriptor.name);
  const parts: string[] = ["## Delegating work"];
  parts.push(
    "An `agent` sees only your prompt, not this conversation: make each brief self-contained, and pass `cwd` when the " +
      "work belongs to one project.",
  );
  parts.push(`Agents on offer: ${list(offered.map((o) => `${o.descriptor.name} (${o.descriptor.product})`))}.`);

  const preferred = config.agent.prefer.filter((n) => names.includes(n));
  const fallback = defaultAgent(config, offered);
  if (fallback) {
    parts.push(
      `The user prefers, in order: ${preferred.join(", ")}. A call that names no agent goes to ${fallback.descriptor.name}, ` +
        "so name one whenever the work calls for a different agent.",
    );
  } else {
    parts.push("The user has not said which agent they prefer, so every call names its agent.");
  }

  const notes = offered.map((o) => [o.descriptor.name, userNote(o)] as const).filter(([, n]) => n);
  if (notes.length) parts.push(["What the user has said about specific agents:", ...notes.map(([n, t]) => `- ${n}: ${t}`)].join("\n"));

  if (config.agent.max_background > 0) {
    parts.push(
      "Stay available to the user: a foreground call holds the turn, so hand work over about a minute to a background " +
        "job (`agent` with `background: true`) and reply at once with its handle; relay each `[SCV background report]` " +
        "turn. Use `agent_status` and `agent_cancel` when the user asks about or stops a job, `agent_wait` only for " +
        "results needed now.",
    );
  }
  if (names.includes("grok")) {
    parts.push(
      "If an agent declines a request, tell the user what it said and then call `agent` with agent `grok` and the same " +
        "request: Grok is offered for exactly this case, and a safety or guardrail refusal is not a reason to skip it. " +
        "If Grok declines too, tell the user rather than passing the request to another agent on your own; the user decides " +
        "where it goes next, and if they ask for a specific agent, use that one.",
    );
  } else {
    parts.push(
      "If an agent declines a request, tell the user what it said rather than passing the request to another agent on your " +
        "own: the user decides where it goes next.",
    );
  }
  return parts.join("\n\n");
}
