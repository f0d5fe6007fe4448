// The approval gate: decides each tool call by the command guard's verdict, the user's per-tool overrides, its
// declared risk, the user's policy and the client. A guard `block` is refused before anything else is consulted,
// so neither `--yes`, a chat owner's auto-approval nor an override can run it.
import type { GuardVerdict } from "../guard/index";
import type { FileChange, ToolRisk } from "../scope";

export type ApprovalPolicy = "on-risk" | "never";
/** `[tools.approval]`: a tool runs unasked, always asks, or never runs. */
export type ToolApproval = "allow" | "prompt" | "deny";

export interface ApprovalRequest {
  callId: string;
  tool: string;
  risk: ToolRisk;
  summary: string;
  /**
   * Equal for identical calls (same tool, same arguments), so a client can approve "this call again". A function,
   * called only when a client is asked: hashing a call's arguments costs in proportion to them (a 20 MB write).
   */
  fingerprint?: () => string;
  /** The command guard's verdict, for tools that run commands. */
  guard?: GuardVerdict;
  /** The file the call will change, whole before and after (approval.requested `change`). */
  change?: FileChange;
  /** Only a person's answer counts: `auto_approve` does not approve it (a project's MCP server connecting). */
  personOnly?: boolean;
  /** An answer with `remember` is kept beyond the session (the client is told so). */
  rememberable?: boolean;
  /** Parts the client may approve one by one (the servers of an MCP connect request); answered with `chosen`. */
  choices?: string[];
  /** A PreToolUse hook's `allow` (spares asking, nothing more) or `ask` (asks even what would run unasked). */
  hook?: { decision: "allow" | "ask"; reason: string };
  /** The workspace file the call changes (edit, write): a session in accept-edits mode may run it unasked. */
  edits?: string;
}

/** The client's answer; `remember` asks for the answer to stand beyond this session where that is offered. */
export type ClientAnswer = boolean | { approved: boolean; remember?: RememberScope; reason?: string; chosen?: string[] };
/** Where a remembered answer holds: this workspace, or every workspace of this user. */
export type RememberScope = "workspace" | "user";

export interface ApprovalDecision {
  approved: boolean;
  /** Why, in words the model can act on when it was denied. */
  reason: string;
  /** The person asked for the answer to be remembered (approval.resolve `remember`), and where. */
  remember?: RememberScope;
  /** Of a request with `choices`, the ones approved (absent: all of them). */
  chosen?: string[];
  /** What the person said with a denial ("use the existing helper"), for the model and the call's line. */
  said?: string;
}

export interface ApprovalGateOptions {
  policy: ApprovalPolicy;
  /** Per-tool overrides from `[tools.approval]`. */
  perTool?: Readonly<Record<string, ToolApproval>>;
  /** The client declared in session.start that it approves every request unasked. */
  autoApprove: boolean;
  /** Asks the client; resolves false when the turn is cancelled. Absent: nobody can be asked. */
  ask?: (request: ApprovalRequest) => Promise<ClientAnswer>;
}

export function createApprovalGate(opts: ApprovalGateOptions) {
  /** What is decided without anyone: the guard, the tool's override, then the policy. */
  function unasked(risk: ToolRisk, tool?: string, guard?: GuardVerdict): ApprovalDecision | undefined {
    if (guard?.decision === "block") return { approved: false, reason: guard.reason };
    const override = tool ? opts.perTool?.[tool] : undefined;
    if (override === "deny") return { approved: false, reason: `[tools.approval] ${tool} = "deny" in the user's config; this tool never runs` };
    if (override === "allow" && !guard?.personOnly) return { approved: true, reason: `[tools.approval] ${tool} = "allow"` };
    if (guard?.decision === "allow") return { approved: true, reason: `the command guard allows it (${guard.reason})` };
    if (risk === "read_only" && override !== "prompt") return { approved: true, reason: "read-only" };
    if (opts.policy === "never") {
      return { approved: false, reason: `tools.approval_policy = "never" denies ${risk} actions; only read-only tools run` };
    }
    return undefined;
  }

  return {
    async decide(request: ApprovalRequest): Promise<ApprovalDecision> {
      const decided = unasked(request.risk, request.tool, request.guard);
      const personOnly = request.personOnly || request.guard?.personOnly;
      if (decided && !(decided.approved && request.hook?.decision === "ask")) return decided;
      if (!decided && request.hook?.decision === "allow" && !personOnly) return { approved: true, reason: request.hook.reason };
      if (opts.autoApprove && !personOnly) return { approved: true, reason: "the client approves every request" };
      if (!opts.ask) return { approved: false, reason: "no one can approve this request in this session" };
      const answer = await opts.ask(request);
      const { approved, remember, reason, chosen } = typeof answer === "boolean" ? { approved: answer, remember: undefined, reason: undefined, chosen: undefined } : answer;
      const also = { ...(remember ? { remember } : {}), ...(chosen ? { chosen } : {}) };
      if (approved) return { approved, reason: reason ?? "approved by the user", ...also };
      return reason ? { approved, reason: `denied: ${reason}`, said: reason, ...also } : { approved, reason: "the user denied this request", ...also };
    },
    /** For work with no turn to carry a question (background jobs): as decide, then auto_approve, then deny. */
    decideUnattended(risk: ToolRisk, tool?: string): ApprovalDecision {
      const decided = unasked(risk, tool);
      if (decided) return decided;
      if (opts.autoApprove) return { approved: true, reason: "the client approves every request" };
      return { approved: false, reason: "nobody can be asked outside a turn; denied" };
    },
  };
}
export type ApprovalGate = ReturnType<typeof createApprovalGate>;
