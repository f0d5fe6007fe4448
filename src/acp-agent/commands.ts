// The session commands SCV offers an editor (ACP `available_commands_update`): /undo, /redo and /rewind TURN.
// Typed as a prompt, each is answered here instead of becoming a turn: what will change is shown in a
// `session/request_permission` (each file restored, created or deleted, with a short diff), and only an
// approval restores it (session.rewind).
import { RequestPermissionResult } from "../protocol/acp";
import type { AcpPeer } from "./rpc";
import { textContent } from "./updates";

export const AVAILABLE_COMMANDS = [
  { name: "undo", description: "put back the files the last turn changed (asks first)" },
  { name: "redo", description: "redo what the last /undo undid (asks first)" },
  { name: "rewind", description: "keep up to a turn and undo everything after it, files and conversation (asks first)", input: { hint: "turn, e.g. t2 (t0: the start)" } },
];

/** A command file as an ACP available command (its argument hint as the input hint). */
export function commandOffer(c: { name: string; description: string; argumentHint?: string }) {
  return { name: c.name, description: c.description, ...(c.argumentHint ? { input: { hint: c.argumentHint } } : {}) };
}

/** The rewind a prompt asks for, or undefined for an ordinary prompt. */
export function rewindCommandOf(text: string): Record<string, unknown> | undefined {
  const m = /^\/(undo|redo|rewind)(?:\s+(\S+))?\s*$/.exec(text.trim());
  if (!m) return undefined;
  if (m[1] === "rewind") {
    const turn = m[2] && /^t?\d+$/.test(m[2]) ? (m[2].startsWith("t") ? m[2] : `t${m[2]}`) : undefined;
    return turn ? { to_turn: turn } : { invalid: "/rewind takes the turn to keep, e.g. /rewind t2 (t0: the start)" };
  }
  return m[2] ? undefined : { [m[1]!]: true };
}

/** Runs a rewind command in the session: its plan as a permission request, then the restore if allowed. Returns the reply text. */
export async function runRewindCommand(deps: { id: string; scv: { request<T = any>(method: string, params: unknown): Promise<T> }; peer: AcpPeer; mask(text: string): string }, params: Record<string, unknown>, callId: string): Promise<string> {
  if (typeof params.invalid === "string") return params.invalid;
  let plan: any;
  try {
    plan = await deps.scv.request("session.rewind", { session_id: deps.id, ...params });
  } catch (e) {
    return `Cannot rewind: ${(e as Error).message}`;
  }
  const lines = [`Restore ${plan.describes ?? "the files"}:`];
  for (const c of plan.changes) {
    lines.push(`${c.action} ${c.path}${c.changed_outside ? " (changed outside SCV since its last checkpoint: kept)" : ""}`);
    if (c.diff) lines.push(...deps.mask(String(c.diff)).split("\n").map((l) => `    ${l}`));
  }
  if (!plan.changes.length && params.to_turn === undefined) lines.push("nothing: the files already match");
  if (params.to_turn !== undefined) lines.push(`The conversation after ${params.to_turn} is rewound too.`);
  lines.push("Files outside the workspace are not covered.");
  const toolCall = { toolCallId: callId, title: `rewind: ${plan.changes.length} file${plan.changes.length === 1 ? "" : "s"}`, kind: "edit", status: "pending", content: [textContent(lines.join("\n"))] };
  let answer;
  try {
    answer = await deps.peer.request(
      "session/request_permission",
      { sessionId: deps.id, toolCall, options: [{ optionId: "allow-once", name: "Restore", kind: "allow_once" }, { optionId: "reject-once", name: "Cancel", kind: "reject_once" }] },
      RequestPermissionResult,
    );
  } catch (e) {
    return `Not restored: the editor did not answer (${(e as Error).message})`;
  }
  if (answer.outcome.outcome === "cancelled" || answer.outcome.optionId !== "allow-once") return "Not restored: nothing changed.";
  try {
    // The plan shown is the plan applied: a file changed since it was shown makes the restore stop and say so.
    const r = await deps.scv.request<any>("session.rewind", { session_id: deps.id, ...params, apply: true, ...(plan.plan_id ? { plan_id: plan.plan_id } : {}) });
    const kept = r.kept?.length ? ` Kept (changed outside SCV): ${r.kept.join(", ")}.` : "";
    const conv = r.conversation_rewound !== undefined ? ` ${r.conversation_rewound} turns left the conversation.` : "";
    return `Restored: ${r.restored?.length ?? 0} restored, ${r.created?.length ?? 0} created, ${r.deleted?.length ?? 0} deleted.${kept}${conv}`;
  } catch (e) {
    return `Rewind failed, nothing was changed: ${(e as Error).message}`;
  }
}
