// The session modes an editor can pick (`session/set_mode`, or the `mode` config option): how much SCV's
// approvals ask. SCV's own approval policy (tools.approval_policy) still decides what needs approval at all.
export const MODES = [
  { id: "ask", name: "Ask", description: "Ask before every call that needs approval" },
  { id: "approve-reads", name: "Approve reads", description: "Approve read-only calls without asking; ask for the rest" },
  { id: "approve-all", name: "Approve all", description: "Approve every call without asking" },
] as const;
export type ModeId = (typeof MODES)[number]["id"];

export function isMode(id: string): id is ModeId {
  return MODES.some((m) => m.id === id);
}

/** Whether a mode answers an approval of this risk by itself. */
export function modeApproves(mode: ModeId, risk: string): boolean {
  return mode === "approve-all" || (mode === "approve-reads" && risk === "read_only");
}

export function modeState(current: ModeId) {
  return { currentModeId: current, availableModes: MODES.map((m) => ({ ...m })) };
}

export function modeOption(current: ModeId) {
  return { id: "mode", name: "Mode", category: "mode", type: "select", currentValue: current, options: MODES.map((m) => ({ value: m.id, name: m.name, description: m.description })) };
}
