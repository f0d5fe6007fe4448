// One tool call of a turn, the model's or SCV's own: assess, PreToolUse hooks, the approval gate, run,
// PostToolUse hooks, and the tool.started / tool.completed events and journal line that show it.
import type { ApprovalGate } from "../approval/gate";
import type { GuardVerdict } from "../guard/index";
import type { NotificationMethod, NotificationParams } from "../protocol/schema";
import type { ToolCallRequest } from "../provider/types";
import type { SessionScope, ToolRisk } from "../scope";
import { callDetail } from "../sessions/call-detail";
import { ellipsize } from "../text/cut";
import { throttle } from "../throttle";
import { argumentsForDisplay, displayLine, failure, type Question, type ToolCallContext, type ToolRegistry, type ToolResult } from "../tools/tool";
import type { OpenQuestions } from "./questions";
import { hookSays, type SessionHooks, toolHookInput, toolSubject } from "./session-hooks";

export type Emit = <M extends NotificationMethod>(method: M, params: NotificationParams<M>) => void;

/** What a tool call needs of its turn. */
export interface ToolCallDeps {
  scope: SessionScope;
  tools: ToolRegistry;
  gate: ApprovalGate;
  /** Where the model's questions to the person (`clarify`) go. */
  questions?: OpenQuestions;
  emit: Emit;
  /** The user's hooks (src/hooks), when any are configured. */
  hooks?: SessionHooks;
}

/** A hook said `continue: false` during a tool call: the turn ends after it. */
export interface Halt {
  by?: { command: string; reason: string };
}

function parseArguments(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  if (text.trim() === "") return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

/** Notes for the person about the turn (a checkpoint left something out or was skipped). */
export function noticeAll(deps: Pick<ToolCallDeps, "emit" | "scope">, turnId: string, messages: readonly string[] | undefined): void {
  for (const message of messages ?? []) deps.emit("model.notice", { session_id: deps.scope.sessionId, turn_id: turnId, message });
}

/** The guard's verdict as events carry it (`decision`, `reason`). */
export function guardField(g: GuardVerdict): { decision: GuardVerdict["decision"]; reason: string; sandbox?: string; person_only?: true } {
  return { decision: g.decision, reason: g.reason, ...(g.sandbox ? { sandbox: g.sandbox } : {}), ...(g.personOnly ? { person_only: true as const } : {}) };
}

/** A relayed request's fingerprint (already made by whoever relays it) as the gate takes one. */
export function fixedFingerprint(fingerprint: string | undefined): { fingerprint?: () => string } {
  return fingerprint === undefined ? {} : { fingerprint: () => fingerprint };
}

/** `arguments` for tool.started: only a JSON object is shown (a call with other arguments is refused anyway). */
function argumentsField(args: unknown): { arguments?: Record<string, unknown> } {
  if (!args || typeof args !== "object" || Array.isArray(args)) return {};
  return { arguments: argumentsForDisplay(args as Record<string, unknown>) };
}

/** One call, the model's or SCV's own (a goal's check): every call takes this path and is shown alike. */
export async function runToolCall(deps: ToolCallDeps, turnId: string, call: ToolCallRequest, signal: AbortSignal, halt: Halt = {}): Promise<ToolResult> {
  const { scope, emit } = deps;
  const ids = { session_id: scope.sessionId, turn_id: turnId, call_id: call.id };
  const tool = deps.tools.get(call.name);
  let pending: string | undefined;
  const progress = throttle(() => {
    if (pending === undefined) return;
    emit("tool.progress", { ...ids, line: pending });
    pending = undefined;
  });
  const ctx: ToolCallContext = {
    ...scope,
    callId: call.id,
    signal,
    outputLimitBytes: scope.config.tools.output_limit_bytes,
    progress(line) {
      pending = ellipsize(line, 400);
      progress.poke();
    },
    approve: ({ fingerprint, ...request }) => deps.gate.decide({ ...request, ...fixedFingerprint(fingerprint), callId: call.id, tool: request.tool ?? call.name }),
    ...(deps.questions ? { ask: (q: Question) => deps.questions!.ask({ sessionId: scope.sessionId, turnId, callId: call.id, signal }, q) } : {}),
  };

  let result: ToolResult;
  let denied = false;
  /** A hook that refused the call or answered after it, for tool.completed. */
  let hookNote: { event: string; command: string; decision: "deny" | "block"; reason: string } | undefined;
  let shownLabel = call.name;
  const started = (label: string, args?: unknown, risk?: ToolRisk, guard?: GuardVerdict) => {
    shownLabel = label;
    emit("tool.started", { ...ids, tool: call.name, label, ...(tool?.kind ? { kind: tool.kind } : {}), ...(risk ? { risk } : {}), ...argumentsField(args), ...(guard ? { guard: guardField(guard) } : {}) });
  };
  if (!tool) {
    started(call.name);
    const names = deps.tools.list().map((t) => t.name);
    result = failure(`unknown tool "${call.name}"; available tools: ${names.join(", ") || "none"}`);
  } else {
    const args = parseArguments(call.arguments);
    if (!args.ok) {
      started(call.name);
      result = failure(`the ${call.name} arguments are not valid JSON (${args.error}); send a JSON object`);
    } else {
      const assessed = await tool.assess(args.value, ctx);
      if (!assessed.ok) {
        started(call.name, args.value);
        result = assessed.result;
      } else {
        started(assessed.label, assessed.args, assessed.risk, assessed.guard);
        const fingerprint = () => new Bun.CryptoHasher("sha256").update(`${call.name}\0${JSON.stringify(args.value)}`).digest("hex");
        const request = { callId: call.id, tool: call.name, risk: assessed.risk, summary: assessed.summary, fingerprint, ...(assessed.guard ? { guard: assessed.guard } : {}), ...(assessed.change ? { change: assessed.change } : {}), ...(assessed.edits !== undefined ? { edits: assessed.edits } : {}) };
        const at = { turnId, callId: call.id, subject: toolSubject(call.name), signal };
        const hookInput = deps.hooks?.has("PreToolUse") || deps.hooks?.has("PostToolUse") ? toolHookInput(call.name, assessed.args, call.id, scope.workspace) : {};
        const pre = await deps.hooks?.run("PreToolUse", hookInput, at);
        if (pre?.stop) halt.by = pre.stop;
        const permission = pre?.permission && { hook: { decision: pre.permission.decision, reason: `${hookSays("PreToolUse", { command: pre.permission.command, reason: pre.permission.reason ?? pre.permission.decision })}` } };
        const refusal = pre?.block ?? pre?.stop; // `continue: false` stops before the call, as it does in Claude Code
        const decision = refusal ? { approved: false, reason: hookSays("PreToolUse", refusal) } : await deps.gate.decide({ ...request, ...permission });
        if (refusal) hookNote = { event: "PreToolUse", command: refusal.command, decision: "deny", reason: refusal.reason };
        if (signal.aborted) result = failure("cancelled");
        else if (!decision.approved) {
          denied = true;
          result = failure(`not run: ${decision.reason}`);
          // Why, on the call's own line: the guard's reason for a refusal, the person's words for a denial.
          if (assessed.guard?.decision === "block") result.display = `refused: ${assessed.guard.reason.replace(/^refused: /, "")}`;
          else if ("said" in decision && decision.said) result.display = `denied: ${decision.said}`;
        } else {
          if (assessed.risk !== "read_only") noticeAll(deps, turnId, scope.services.checkpoints?.beforeChange(turnId));
          result = await tool.run(assessed.args, ctx);
          const post = await deps.hooks?.run("PostToolUse", { ...hookInput, tool_response: { ok: result.ok, output: result.output } }, at);
          if (post?.stop) halt.by = post.stop;
          if (post?.block) hookNote = { event: "PostToolUse", command: post.block.command, decision: "block", reason: post.block.reason };
          const said = [post?.block && `[${hookSays("PostToolUse", post.block)}]`, post?.context && `[PostToolUse hook context]\n${post.context}`].filter(Boolean);
          if (said.length) result = { ...result, output: `${result.output}\n\n${said.join("\n")}` };
        }
      }
    }
  }
  progress.stop(); // a line still waiting is dropped: the call has its outcome
  const shown = { ...(result.display ? { display: displayLine(result.display) } : {}), ...(denied ? { denied } : {}) };
  emit("tool.completed", { ...(result.event ?? {}), ...ids, tool: call.name, ok: result.ok, output: result.output, ...shown, ...(result.preview !== undefined ? { preview: result.preview } : {}), ...(hookNote ? { hook: hookNote } : {}) });
  scope.journal?.recorder.append({ type: "call", turn: turnId, tool: call.name, label: shownLabel, ok: result.ok, ...shown, ...callDetail(tool?.kind, result) });
  return result;
}
