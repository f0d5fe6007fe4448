// The approval gate: decides each tool call by its declared risk, the user's policy and the client.
import type { ToolRisk } from "../scope";

export type ApprovalPolicy = "on-risk" | "never";

export interface ApprovalRequest {
  callId: string;
  tool: string;
  risk: ToolRisk;
  summary: string;
  /** Equal for identical calls (same tool, same arguments), so a client can approve "this call again". */
  fingerprint?: string;
}

export interface ApprovalDecision {
  approved: boolean;
  /** Why, in words the model can act on when it was denied. */
  reason: string;
}

export interface ApprovalGateOptions {
  policy: ApprovalPolicy;
  /** The client declared in session.start that it approves every request unasked. */
  autoApprove: boolean;
  /** Asks the client; resolves false when the turn is cancelled. Absent: nobody can be asked. */
  ask?: (request: ApprovalRequest) => Promise<boolean>;
}

export function createApprovalGate(opts: ApprovalGateOptions) {
  /** What the policy decides without anyone: read_only passes under both; `never` denies the rest. */
  function byPolicy(risk: ToolRisk): ApprovalDecision | undefined {
    if (risk === "read_only") return { approved: true, reason: "read-only" };
    if (opts.policy === "never") {
      return { approved: false, reason: `tools.approval_policy = "never" denies ${risk} actions; only read-only tools run` };
    }
    return undefined;
  }

  return {
    async decide(request: ApprovalRequest): Promise<ApprovalDecision> {
      const policy = byPolicy(request.risk);
      if (policy) return policy;
      if (opts.autoApprove) return { approved: true, reason: "the client approves every request" };
      if (!opts.ask) return { approved: false, reason: "no one can approve this request in this session" };
      const approved = await opts.ask(request);
      return approved ? { approved, reason: "approved by the user" } : { approved, reason: "the user denied this request" };
    },
    /** For work with no turn to carry a question (background jobs): policy, then auto_approve, then deny. */
    decideUnattended(risk: ToolRisk): ApprovalDecision {
      const policy = byPolicy(risk);
      if (policy) return policy;
      if (opts.autoApprove) return { approved: true, reason: "the client approves every request" };
      return { approved: false, reason: "nobody can be asked outside a turn; denied" };
    },
  };
}
export type ApprovalGate = ReturnType<typeof createApprovalGate>;
