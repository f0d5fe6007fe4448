// A session's approvals: what the gate asks the client (approval.requested), the answers (approval.resolve),
// what runs unasked in this session (accept-edits mode, a tool allowed for the session) and the rules kept.
import { resolve as resolvePath } from "node:path";
import type { ApprovalRequest, ClientAnswer } from "../approval/gate";
import { randomHex } from "../digest";
import { isSecretLikePath } from "../fs/workspace-paths";
import type { SessionScope } from "../scope";
import type { SessionHooks } from "./session-hooks";
import { type Emit, guardField } from "./tool-call";

/** What the approvals need of their session, read when a request comes. */
export interface ApprovalsDeps {
  scope: Pick<SessionScope, "sessionId" | "workspace" | "scvHome">;
  emit: Emit;
  hooks(): SessionHooks | undefined;
  /** The running turn, if any: only a running turn's calls are asked about, and its cancel withdraws them. */
  running(): { turnId: string; abort: AbortController } | undefined;
}

export type ApprovalMode = "ask" | "accept-edits";

export class SessionApprovals {
  private readonly open = new Map<string, { request: ApprovalRequest; resolve: (answer: ClientAnswer) => void }>();
  /** Tools the person said not to ask about again in this session (approval.resolve `remember: "session"`). */
  private readonly toolsAllowed = new Set<string>();
  /** How the session asks: `accept-edits` runs file edits inside the workspace unasked (askClient). */
  mode: ApprovalMode = "ask";

  constructor(private readonly deps: ApprovalsDeps) {}

  /**
   * Answers an open approval; undefined when none is waiting under that ID. `remember` (with an approval) keeps
   * the prefix rule the request offered, for this workspace or every one; the answer stands even when the rule
   * cannot be kept, and the result says why.
   */
  resolve(approvalId: string, approved: boolean, remember?: "workspace" | "user" | "session", reason?: string, chosen?: string[]): { rule?: string; rule_error?: string } | undefined {
    const open = this.open.get(approvalId);
    if (!open) return undefined;
    this.open.delete(approvalId);
    const said = reason?.trim();
    if (!approved && said) {
      open.resolve({ approved, reason: said });
      return {};
    }
    if (remember === "session") {
      open.resolve(approved);
      if (!approved) return {};
      // A command is never allowed whole: the guard asked about this one, and a prefix rule says which to allow.
      if (open.request.guard) return { rule_error: "commands are not allowed per tool; keep a prefix rule (p or u) for the ones to run unasked" };
      this.toolsAllowed.add(open.request.tool);
      return {};
    }
    // A request that keeps its own answer (an MCP server's connection) takes `remember` itself; others keep a rule.
    if (open.request.rememberable) {
      const picked = chosen && open.request.choices ? chosen.filter((c) => open.request.choices!.includes(c)) : undefined;
      open.resolve({ approved, ...(remember ? { remember } : {}), ...(picked ? { chosen: picked } : {}) });
      return {};
    }
    const kept = remember && approved ? this.keepRule(open.request, remember) : {};
    open.resolve(!approved && reason?.trim() ? { approved, reason: reason.trim() } : approved);
    return kept;
  }

  /** The gate's question to the client: answered unasked when the session's mode or an earlier answer allows it. */
  ask(request: ApprovalRequest): Promise<ClientAnswer> {
    const turn = this.deps.running();
    if (!turn) return Promise.resolve(false);
    const unasked = this.approvedUnasked(request);
    if (unasked) return Promise.resolve({ approved: true, reason: unasked });
    const approvalId = `a-${randomHex(4)}`;
    const { scope, emit } = this.deps;
    return new Promise<ClientAnswer>((resolve) => {
      const onAbort = () => {
        this.open.delete(approvalId);
        resolve(false);
      };
      turn.abort.signal.addEventListener("abort", onAbort, { once: true });
      this.open.set(approvalId, {
        request,
        resolve: (answer) => {
          turn.abort.signal.removeEventListener("abort", onAbort);
          resolve(answer);
        },
      });
      emit("approval.requested", {
        session_id: scope.sessionId,
        turn_id: turn.turnId,
        approval_id: approvalId,
        call_id: request.callId,
        tool: request.tool,
        risk: request.risk,
        summary: request.summary,
        workspace: scope.workspace,
        ...(request.fingerprint ? { fingerprint: request.fingerprint() } : {}),
        ...(request.guard ? { guard: guardField(request.guard), ...(request.guard.rulePrefix ? { rule_prefix: request.guard.rulePrefix } : {}) } : {}),
        ...(request.rememberable ? { rememberable: true } : {}),
        ...(request.choices ? { choices: request.choices } : {}),
        ...(request.change ? { change: request.change } : {}),
      });
      // Not awaited: the person is asked at once; a notifier hook runs beside the question.
      void this.deps.hooks()?.run("Notification", { message: `SCV needs your permission to use ${request.tool}`, notification_type: "permission_prompt", tool_name: request.tool }, { turnId: turn.turnId, signal: turn.abort.signal });
    });
  }

  private keepRule(request: ApprovalRequest, scope: "workspace" | "user"): { rule?: string; rule_error?: string } {
    const prefix = request.guard?.rulePrefix;
    if (!prefix) return { rule_error: "this request offers no rule to keep (only a literal command the guard could read does)" };
    const { addRule, prefixText } = require("../guard/rules") as typeof import("../guard/rules");
    try {
      addRule(this.deps.scope.scvHome, prefix, scope === "workspace" ? this.deps.scope.workspace : undefined);
      return { rule: prefixText(prefix) };
    } catch (e) {
      return { rule_error: (e as Error).message };
    }
  }

  /** Why a request runs without asking in this session's mode or by the person's earlier answer, if it does. */
  private approvedUnasked(request: ApprovalRequest): string | undefined {
    if (request.hook?.decision === "ask") return undefined; // a PreToolUse hook wants a person asked
    if (this.toolsAllowed.has(request.tool)) return `approved: the user allowed ${request.tool} for this session`;
    if (this.mode === "accept-edits" && request.edits !== undefined && isAcceptableEdit(this.deps.scope.workspace, request.edits)) {
      return "approved: the session accepts edits inside the workspace";
    }
    return undefined;
  }
}

/** A file change accept-edits mode runs unasked: a path inside the workspace that does not look secret-like. */
function isAcceptableEdit(workspace: string, requested: string): boolean {
  const full = resolvePath(workspace, requested);
  if (full !== workspace && !full.startsWith(`${workspace}/`)) return false;
  return !isSecretLikePath(full.slice(workspace.length + 1));
}
