// The agent's `session/request_permission`, relayed through the calling session's approval gate: the risk
// follows SCV's own tools, the summary names the conversation, and the answer picks the agent's matching
// option (allow-once or reject-once, falling back to the "always" variants).
import type { ToolRisk } from "../../scope";
import { isSecretLikePath } from "../../fs/workspace-paths";
import { redactProgress, redactSecrets } from "../../text/redact";
import type { PermissionOutcome, RequestPermissionParams } from "../../protocol/acp";

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

const MAX_DETAIL_LINES = 6;

/**
 * `[claude-1 acp] <title> (<kind>)`, the title redacted like progress lines, then what the request will touch
 * as the agent described it: each file edit with its line counts, other locations, the command to run.
 */
export function permissionSummary(conversation: string, p: RequestPermissionParams): string {
  const kind = p.toolCall.kind ?? "other";
  const title = redactProgress(p.toolCall.title ?? "") || kind;
  const details: string[] = [];
  const diffs = diffsOf(p.toolCall.content);
  for (const d of diffs) details.push(`${d.oldText === undefined ? "create" : "edit"} ${d.path} +${lineCount(d.newText)} -${lineCount(d.oldText)}`);
  for (const l of p.toolCall.locations ?? []) if (!diffs.some((d) => d.path === l.path)) details.push(`at ${l.path}`);
  const command = p.toolCall.rawInput?.command;
  if (kind === "execute" && command !== undefined) details.push(`$ ${Array.isArray(command) ? command.join(" ") : String(command)}`);
  const shown = details.slice(0, MAX_DETAIL_LINES).map((line) => redactSecrets(line.replace(/\p{Cc}/gu, " ")).slice(0, 400));
  if (details.length > MAX_DETAIL_LINES) shown.push(`… and ${details.length - MAX_DETAIL_LINES} more`);
  return [`[${conversation} acp] ${title} (${kind})`, ...shown].join("\n");
}

function diffsOf(content: unknown): { path: string; oldText?: string; newText: string }[] {
  if (!Array.isArray(content)) return [];
  return content.flatMap((c) => {
    const d = c as Record<string, unknown>;
    if (d?.type !== "diff" || typeof d.path !== "string") return [];
    return [{ path: d.path, oldText: typeof d.oldText === "string" ? d.oldText : undefined, newText: typeof d.newText === "string" ? d.newText : "" }];
  });
}

function lineCount(text: string | undefined): number {
  if (!text) return 0;
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
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
