// The turn loop: model call, tool calls run serially through the approval gate, repeat until the model
// answers without tools, the step bound is reached, or the turn is cancelled. It holds no tool names.
import type { ApprovalGate } from "../approval/gate";
import type { NotificationMethod, NotificationParams } from "../protocol/schema";
import { withSources } from "../provider/citations";
import type { HistoryItem, ModelClient, ModelFailure, ToolCallRequest, Usage } from "../provider/types";
import { failure, type SessionScope, type ToolCallContext, type ToolRegistry, type ToolResult } from "../tools/tool";

export type Emit = <M extends NotificationMethod>(method: M, params: NotificationParams<M>) => void;

export interface TurnDeps {
  scope: SessionScope;
  tools: ToolRegistry;
  model: ModelClient;
  modelName?: string;
  hostedWebSearch: boolean;
  systemPrompt: string;
  history: HistoryItem[];
  gate: ApprovalGate;
  emit: Emit;
}

export interface TurnOutcome {
  status: "completed" | "failed" | "cancelled";
  reply: string;
  usage: Usage;
  error?: { class: string; message: string };
}

const PROGRESS_INTERVAL_MS = 500;

export async function runTurn(deps: TurnDeps, turnId: string, prompt: string, signal: AbortSignal): Promise<TurnOutcome> {
  const { scope, emit, history } = deps;
  const usage: Usage = { input_tokens: 0, output_tokens: 0, cached_input_tokens: 0 };
  const ids = { session_id: scope.sessionId, turn_id: turnId };
  history.push({ role: "user", content: prompt });
  const specs = deps.tools.list().map((t) => ({ name: t.name, description: t.description, parameters: t.jsonSchema }));

  for (let step = 0; step < scope.config.tools.max_steps; step++) {
    if (signal.aborted) return { status: "cancelled", reply: "", usage };
    let text = "";
    const calls: ToolCallRequest[] = [];
    const citations: { url: string; title?: string }[] = [];
    let modelFailure: ModelFailure | undefined;
    let ended: "completed" | "incomplete" | "failed" | "cancelled" = "failed";
    for await (const ev of deps.model.stream({
      system: deps.systemPrompt,
      history,
      tools: specs,
      hostedWebSearch: deps.hostedWebSearch,
      model: deps.modelName,
      signal,
    })) {
      if (ev.type === "text" || ev.type === "refusal") {
        text += ev.delta;
        emit("assistant.delta", { ...ids, text: ev.delta });
      } else if (ev.type === "tool_call") calls.push(ev.call);
      else if (ev.type === "citation") citations.push(ev);
      else if (ev.type === "end") {
        ended = ev.status;
        modelFailure = ev.failure;
        if (ev.usage) {
          usage.input_tokens += ev.usage.input_tokens;
          usage.output_tokens += ev.usage.output_tokens;
          usage.cached_input_tokens += ev.usage.cached_input_tokens;
        }
      }
    }
    if (ended === "cancelled" || signal.aborted) {
      if (text) history.push({ role: "assistant", content: text });
      return { status: "cancelled", reply: text, usage };
    }
    if (ended === "failed") {
      if (text) history.push({ role: "assistant", content: text });
      const f = modelFailure ?? { class: "stream", message: "the model stream ended without a result" };
      return { status: "failed", reply: text, usage, error: { class: f.class, message: f.message } };
    }
    history.push({ role: "assistant", content: text, ...(calls.length ? { toolCalls: calls } : {}) });
    if (calls.length === 0) {
      const reply = withSources(text, citations);
      if (ended === "incomplete") {
        return { status: "failed", reply, usage, error: { class: "incomplete", message: "the model stopped before finishing its answer (output limit or content filter)" } };
      }
      return { status: "completed", reply, usage };
    }
    for (const call of calls) {
      // Every call the model made gets a result, so the history stays valid for the next request.
      const result = signal.aborted ? failure("cancelled before it ran") : await runToolCall(deps, turnId, call, signal);
      history.push({ role: "tool", callId: call.id, name: call.name, output: result.output });
    }
  }
  return {
    status: "failed",
    reply: "",
    usage,
    error: { class: "step_limit", message: `the turn used its ${scope.config.tools.max_steps} steps (tools.max_steps) without a final answer` },
  };
}

function parseArguments(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  if (text.trim() === "") return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

async function runToolCall(deps: TurnDeps, turnId: string, call: ToolCallRequest, signal: AbortSignal): Promise<ToolResult> {
  const { scope, emit } = deps;
  const ids = { session_id: scope.sessionId, turn_id: turnId, call_id: call.id };
  const tool = deps.tools.get(call.name);
  let pending: string | undefined;
  let lastSent = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    timer = undefined;
    if (pending === undefined) return;
    emit("tool.progress", { ...ids, line: pending });
    pending = undefined;
    lastSent = Date.now();
  };
  const ctx: ToolCallContext = {
    ...scope,
    callId: call.id,
    signal,
    outputLimitBytes: scope.config.tools.output_limit_bytes,
    progress(line) {
      pending = line.length > 400 ? `${line.slice(0, 399)}…` : line;
      const wait = lastSent + PROGRESS_INTERVAL_MS - Date.now();
      if (wait <= 0) flush();
      else timer ??= setTimeout(flush, wait);
    },
    approve: async (request) => (await deps.gate.decide({ callId: call.id, ...request })).approved,
  };

  let result: ToolResult;
  let label = call.name;
  if (!tool) {
    emit("tool.started", { ...ids, tool: call.name, label });
    const names = deps.tools.list().map((t) => t.name);
    result = failure(`unknown tool "${call.name}"; available tools: ${names.join(", ") || "none"}`);
  } else {
    const args = parseArguments(call.arguments);
    if (!args.ok) {
      emit("tool.started", { ...ids, tool: call.name, label });
      result = failure(`the ${call.name} arguments are not valid JSON (${args.error}); send a JSON object`);
    } else {
      const assessed = await tool.assess(args.value, ctx);
      if (!assessed.ok) {
        emit("tool.started", { ...ids, tool: call.name, label });
        result = assessed.result;
      } else {
        label = assessed.label;
        emit("tool.started", { ...ids, tool: call.name, label, risk: assessed.risk });
        const decision = await deps.gate.decide({ callId: call.id, tool: call.name, risk: assessed.risk, summary: assessed.summary });
        if (signal.aborted) result = failure("cancelled");
        else if (!decision.approved) result = failure(`not run: ${decision.reason}`);
        else result = await tool.run(assessed.args, ctx);
      }
    }
  }
  if (timer) clearTimeout(timer);
  emit("tool.completed", { ...(result.event ?? {}), ...ids, tool: call.name, ok: result.ok, output: result.output });
  return result;
}
