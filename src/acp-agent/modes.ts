// The session modes an editor can pick (`session/set_mode`, or the `mode` config option): how much SCV's
// approvals ask. SCV's own approval policy (tools.approval_policy) still decides what needs approval at all.
export const MODES = [
  { id: "ask", name: "Ask", description: "Ask before every call that needs approval" },
  { id: "accept-edits", name: "Accept edits", description: "Edits and new files inside the workspace run without asking (secret-like paths excepted); commands, network and MCP calls ask" },
  { id: "approve-reads", name: "Approve reads", description: "Approve calls that only read (files, searches, web pages) without asking; ask for the rest" },
  { id: "approve-all", name: "Approve all", description: "Approve every call without asking" },
] as const;
export type ModeId = (typeof MODES)[number]["id"];

export function isMode(id: string): id is ModeId {
  return MODES.some((m) => m.id === id);
}

const READING_KINDS = new Set(["read", "search", "fetch"]);

/**
 * Whether a mode answers an approval by itself. "approve-reads" takes calls that only read: of a reading kind
 * and read-only or network risk (a read of a secret-looking file, risk filesystem, is still asked about).
 */
export function modeApproves(mode: ModeId, call: { kind: string; risk: string }): boolean {
  if (mode === "approve-all") return true;
  return mode === "approve-reads" && READING_KINDS.has(call.kind) && (call.risk === "read_only" || call.risk === "network");
}

export function modeState(current: ModeId) {
  return { currentModeId: current, availableModes: MODES.map((m) => ({ ...m })) };
}

export function modeOption(current: ModeId) {
  return { id: "mode", name: "Mode", category: "mode", type: "select", currentValue: current, options: MODES.map((m) => ({ value: m.id, name: m.name, description: m.description })) };
}

/** The configured provider profiles an editor can switch between (the `model` option), each with its model. */
export interface Profiles {
  current: string;
  all: { name: string; model: string }[];
}

export function modelOption(p: Profiles) {
  return { id: "model", name: "Model", category: "model", type: "select", currentValue: p.current, options: p.all.map((m) => ({ value: m.name, name: `${m.name} (${m.model})` })) };
}

/** The same as the (unstable) `models` field some editors read for their model picker. */
export function modelState(p: Profiles) {
  return { currentModelId: p.current, availableModels: p.all.map((m) => ({ modelId: m.name, name: `${m.name} (${m.model})` })) };
}
