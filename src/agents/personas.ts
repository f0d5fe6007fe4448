// Agent files (src/command-files/agents.ts) offered beside the coding agents: each runs on the nested-SCV
// backend as a session with the file's persona (its prompt, tool allow list, step limit, model), so it is
// offered only where the nested SCV itself is. In the ledger and the conversations it goes by its own name.
import { type AgentFile, loadAgentFiles } from "../command-files/agents";
import { type AgentDescriptor, DESCRIPTORS } from "./descriptors";
import type { OfferedAgent } from "./offer";

/** The offered agents and, when the nested SCV is among them, one more per agent file. */
export function withAgentFiles(offered: OfferedAgent[], where: { scvHome: string; workspace: string }): OfferedAgent[] {
  const scv = offered.find((o) => o.descriptor.name === "scv" && o.transport !== "acp");
  if (!scv) return offered;
  const { items } = loadAgentFiles({ ...where, builtins: DESCRIPTORS.map((d) => d.name) });
  return [...offered, ...items.map((f) => personaOffer(scv, f))];
}

function personaOffer(scv: OfferedAgent, f: AgentFile): OfferedAgent {
  // Its name is the file's, not one of the configured agents' (settings come from the scv agent's).
  const descriptor: AgentDescriptor = { ...scv.descriptor, name: f.name as AgentDescriptor["name"], product: `SCV agent file${f.kind === "project" ? " (project)" : ""}`, line: f.description };
  return { descriptor, executable: scv.executable, settings: { ...scv.settings, ...(f.model ? { model: f.model } : {}) }, persona: f };
}

/** session.start `persona` for an agent file. */
export function personaParams(f: AgentFile) {
  return { name: f.name, system_prompt: f.prompt, ...(f.tools ? { tools: f.tools } : {}), ...(f.maxSteps ? { max_steps: f.maxSteps } : {}) };
}
