// Configuration rules about [agent] and [agents.*] that depend on what each agent takes.
import type { CrossCheck } from "../config/schema";

// Which agents map `model` / `effort` to arguments. TODO(agents): derive from the descriptor registry.
const TAKES_MODEL = new Set(["claude", "codex", "grok", "pi", "scv"]);
const TAKES_EFFORT = new Set(["claude", "codex", "grok", "pi"]);

export const agentConfigChecks: CrossCheck[] = [
  (c, f) => {
    const bad = Object.entries(c.agents).filter(([name, o]) => o?.model && !TAKES_MODEL.has(name));
    return bad.length ? `${f}: agents.${bad[0]![0]}.model: ${bad[0]![0]} does not take a model selection; remove it` : undefined;
  },
  (c, f) => {
    const bad = Object.entries(c.agents).filter(([name, o]) => o?.effort && !TAKES_EFFORT.has(name));
    return bad.length ? `${f}: agents.${bad[0]![0]}.effort: ${bad[0]![0]} does not take an effort selection; remove it` : undefined;
  },
];
