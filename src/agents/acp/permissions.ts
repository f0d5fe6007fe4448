// The agent's `session/request_permission`, relayed through the calling session's approval gate: the risk
// follows SCV's own tools, the summary names the conversation, and the answer picks the agent's matching
// option (allow-once or reject-once, falling back to the "always" variants).
import type { ToolRisk } from "../../tools/tool";
import { isSecretLikePath } from "../../tools/workspace-paths";
import { redactProgress } from "../redact";
import type { PermissionOutcome, RequestPermissionParams } from "./schema";

/** `read`, `search`, `think` are read-only unless a location looks secret-like; the rest as SCV's own tools. */
export function permissionRisk(p: RequestPermissionParams): ToolRisk {
  const kind = p.toolCall.kind ?? "other";
  if (kind === "read" || kind === "search" || kind === "think") {
    const secret = (p.toolCall.locations ?? []).some((l) => isSecretLikePath(l.path));
    return secret ? "filesystem" : "read_only";
  }
  if (kind === "edit" || kind === "delete" || kind === "move") return "filesystem";
  if (kind === "execute") return "process";
  if (kind === "fetch") return "network";
  return "delegate";
}

/** `[claude-1 acp] <title> (<kind>)`, the title redacted like progress lines. */
export function permissionSummary(conversation: string, p: RequestPermissionParams): string {
  const kind = p.toolCall.kind ?? "other";
  const title = redactProgress(p.toolCall.title ?? "") || kind;
  return `[${conversation} acp] ${title} (${kind})`;
}

/** The option answering a decision: allow-once (else allow-always), reject-once (else reject-always), else cancelled. */
export function permissionOutcome(p: RequestPermissionParams, approved: boolean): PermissionOutcome {
  const order = approved ? ["allow_once", "allow_always"] : ["reject_once", "reject_always"];
  for (const kind of order) {
    const option = p.options.find((o) => o.kind === kind);
    if (option) return { outcome: "selected", optionId: option.optionId };
  }
  return { outcome: "cancelled" };
}
