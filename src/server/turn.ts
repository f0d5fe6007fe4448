// The turn loop: model call, tool calls run serially through the approval gate, repeat until the model
// answers without tools, the step bound is reached, or the turn is cancelled. It holds no tool names.
import { withSources } from "../provider/citations";
import { type ImageRef, prepareImages } from "../provider/images";
import { type HistoryItem, type ModelClient, type ModelFailure, type ReasoningOptions, type ToolCallRequest, type ToolSpec, type Usage, zeroUsage } from "../provider/types";
import {
  type CompactionReason,
  type CompactResult,
  type ContextState,
  estimateRequest,
  estimateTextTokens,
  olderPart,
  requestView,
  shouldCompact,
} from "./compaction";
import { failure } from "../tools/tool";
import { hookSays } from "./session-hooks";
import { fixedFingerprint, type Halt, runToolCall, type ToolCallDeps } from "./tool-call";

export { type Emit, guardField, noticeAll, runToolCall as runOwnCall } from "./tool-call";

export interface TurnDeps extends ToolCallDeps {
  model: ModelClient;
  modelName?: string;
  hostedWebSearch: boolean;
  reasoning?: ReasoningOptions;
  /** Read at each request: compaction may renew it (memory saved since the session started). */
  systemPrompt(): string;
  history: HistoryItem[];
  context: ContextState;
  /** Runs compaction (the session's one path, which also reports it). */
  compact(reason: CompactionReason, turnId: string, turnStart: number, fixedTokens: number, signal: AbortSignal): Promise<CompactResult>;
  /** A bounded step the model gets before a threshold compaction (saving to memory what the summary would lose). */
  beforeCompaction?: SideStep;
  /** False for a turn SCV started itself (no UserPromptSubmit hooks then). */
  promptFromPerson?: boolean;
}

/** Stop reasons after which the model continues its answer in a further request (Anthropic's `max_tokens`, `pause_turn`). */
const CONTINUED = new Set(["max_tokens", "pause_turn"]);
/** How many times one answer is continued before the turn ends as incomplete. */
const MAX_CONTINUATIONS = 3;
const CONTINUE_PROMPT = "[Your answer was cut off at the output limit (max_tokens). Continue exactly where it stopped, without repeating anything.]";

/** Rounds a Stop hook may send the model back to work in one turn; then the turn ends anyway (docs/hooks.md). */
export const MAX_STOP_HOOK_ROUNDS = 3;

/** One request beside the turn: `prompt` after the history, offering only `tools`, at most `maxCalls` calls run. */
export interface SideStep {
  prompt: string;
  tools: string[];
  maxCalls: number;
}

export interface TurnOutcome {
  status: "completed" | "failed" | "cancelled";
  reply: string;
  usage: Usage;
  error?: { class: string; message: string };
  refusal?: true;
  incomplete_reason?: string;
}

/** What one model response produced, in output order. */
interface StepResult {
  ended: "completed" | "incomplete" | "failed" | "cancelled";
  failure?: ModelFailure;
  reason?: string;
  text: string;
  refused: boolean;
  calls: ToolCallRequest[];
  citations: { url: string; title?: string }[];
  /** History items for this response: reasoning items in place before the text and calls they preceded. */
  items: HistoryItem[];
}

export async function runTurn(deps: TurnDeps, turnId: string, prompt: string, signal: AbortSignal, images?: ImageRef[]): Promise<TurnOutcome> {
  const { scope, history, context } = deps;
  const usage = zeroUsage();
  const submitted = await submitPrompt(deps, turnId, prompt, signal, images);
  if ("refused" in submitted) return { status: "failed", reply: "", usage, error: { class: "hook", message: `the prompt was refused: ${submitted.refused}` } };
  const userItem = submitted.item;
  await refreshToolSources(deps, turnId, signal);
  let specs = deps.tools.requested().map(toolSpec);
  let fixedTokens = estimateTextTokens(deps.systemPrompt() + JSON.stringify(specs));
  let refused = false;
  // Where this turn starts in history; compaction may move it (or summarise its start away).
  const turnStart = () => {
    const at = history.indexOf(userItem);
    return at >= 0 ? at : history.findIndex((i) => i.role === "summary") + 1;
  };
  const compact = async (reason: CompactionReason) => {
    // An overflowing request has no room for the step; a threshold one has the window's last fifth. A history
    // with no older part to summarise (one huge step) is not compacted, so nothing is about to be lost.
    if (reason === "threshold" && deps.beforeCompaction && olderPart(history, turnStart(), context.window, reason) > 0) await runSideStep(deps, turnId, deps.beforeCompaction, turnStart(), usage, signal);
    const done = await deps.compact(reason, turnId, turnStart(), fixedTokens, signal);
    if (done.ok) {
      context.last = undefined;
      fixedTokens = estimateTextTokens(deps.systemPrompt() + JSON.stringify(specs));
    }
    if (done.usage) addUsage(usage, done.usage); // the summary request is one of the turn's model calls
    return done;
  };

  let stopRounds = 0;
  /** Text of earlier steps an answer cut by max_tokens or paused (pause_turn) gave before it was continued. */
  let carried = "";
  let continuations = 0;
  const halt: Halt = {};
  for (let step = 0; step < scope.config.tools.max_steps; step++) {
    if (signal.aborted) return { status: "cancelled", reply: "", usage };
    // A spending limit reached stops the turn before its next model request (the step that reached it finished).
    const refusal = await scope.usage?.refusal();
    if (refusal) {
      await deps.hooks?.run("BudgetReached", { message: refusal }, { turnId, signal });
      return { status: "failed", reply: "", usage, error: { class: "limit", message: refusal } };
    }
    if (shouldCompact(context, estimateRequest(context, requestView(history, turnStart()), fixedTokens))) {
      const done = await compact(context.overflowed ? "overflow" : "threshold");
      if (done.ok) context.overflowed = false;
      else if (done.cancelled) return { status: "cancelled", reply: "", usage };
    }
    let result = await modelStep(deps, { turnId, turnStart: turnStart(), specs, usage }, signal);
    if (result.ended === "failed" && result.failure?.class === "context_window" && !signal.aborted) {
      // One compaction and one retry of this request; if that fails too, the next turn compacts first.
      const done = await compact("overflow");
      if (done.ok) result = await modelStep(deps, { turnId, turnStart: turnStart(), specs, usage }, signal);
      if (result.ended === "failed" && result.failure?.class === "context_window") context.overflowed = true;
      else context.overflowed = false;
    }
    const text = carried + result.text;
    refused ||= result.refused;
    const flags = { ...(refused ? { refusal: true as const } : {}) };
    const broken = brokenStep(history, result, text, usage, flags, signal);
    if (broken) return broken;
    history.push(...result.items);
    if (result.calls.length === 0 && result.ended === "incomplete" && CONTINUED.has(result.reason ?? "") && continuations < MAX_CONTINUATIONS) {
      // The answer goes on in the next request: a paused turn as it stands, a cut one asked to continue.
      continuations++;
      carried = text;
      if (result.reason === "max_tokens") history.push({ role: "user", content: CONTINUE_PROMPT });
      deps.emit("model.notice", { session_id: scope.sessionId, turn_id: turnId, message: `the answer ${result.reason === "max_tokens" ? "reached the output limit (max_tokens)" : "was paused by the provider (pause_turn)"}; SCV asks the model to continue (${continuations} of ${MAX_CONTINUATIONS})` });
      continue;
    }
    carried = "";
    if (result.calls.length === 0) {
      const answer = await finalAnswer(deps, turnId, { result, text, stopRounds, usage, flags }, signal);
      if (answer !== "again") return answer;
      stopRounds++;
      continue;
    }
    await runStepCalls(deps, turnId, result.calls, signal, halt);
    if (halt.by) return { status: "failed", reply: "", usage, error: { class: "hook", message: `a hook stopped the turn: ${halt.by.reason} (\`${halt.by.command}\`)` } };
    // A call may have loaded deferred tools' schemas: the next request offers them.
    const requested = deps.tools.requested();
    if (requested.length !== specs.length) {
      specs = requested.map(toolSpec);
      fixedTokens = estimateTextTokens(deps.systemPrompt() + JSON.stringify(specs));
    }
  }
  return {
    status: "failed",
    reply: "",
    usage,
    error: { class: "step_limit", message: `the turn used its ${scope.config.tools.max_steps} steps (tools.max_steps) without a final answer` },
  };
}

/** The prompt through the UserPromptSubmit hooks (a person's prompt only), entered in history; or why a hook refused it. */
async function submitPrompt(deps: TurnDeps, turnId: string, prompt: string, signal: AbortSignal, images: ImageRef[] | undefined): Promise<{ item: HistoryItem } | { refused: string }> {
  // A person's prompt only: a turn SCV starts itself (a background report) is not submitted by anyone.
  const submitted = deps.promptFromPerson === false ? undefined : await deps.hooks?.run("UserPromptSubmit", { prompt }, { turnId, signal });
  const refusedBy = submitted?.block ?? submitted?.stop;
  if (refusedBy) return { refused: hookSays("UserPromptSubmit", refusedBy) };
  const content = submitted?.context ? `${prompt}\n\n<hook-context event="UserPromptSubmit">\n${submitted.context}\n</hook-context>` : prompt;
  const item: HistoryItem = { role: "user", content, ...(images?.length ? { images } : {}) };
  deps.history.push(item);
  return { item };
}

type Flags = { refusal?: true };

/** A step that was cancelled or failed ends the turn, keeping the text it streamed. */
function brokenStep(history: HistoryItem[], result: StepResult, text: string, usage: Usage, flags: Flags, signal: AbortSignal): TurnOutcome | undefined {
  if (result.ended === "cancelled" || signal.aborted) {
    if (result.text) history.push({ role: "assistant", content: result.text });
    return { status: "cancelled", reply: text, usage, ...flags };
  }
  if (result.ended === "failed") {
    if (result.text) history.push({ role: "assistant", content: result.text });
    const f = result.failure ?? { class: "stream", message: "the model stream ended without a result" };
    return { status: "failed", reply: text, usage, error: { class: f.class, message: f.message }, ...flags };
  }
  return undefined;
}

/**
 * A step without calls: the turn's answer, unless it stopped short or a Stop hook sends the model back to work
 * ("again": the hook's reason is the model's next instruction, at most MAX_STOP_HOOK_ROUNDS times).
 */
async function finalAnswer(deps: TurnDeps, turnId: string, step: { result: StepResult; text: string; stopRounds: number; usage: Usage; flags: Flags }, signal: AbortSignal): Promise<TurnOutcome | "again"> {
  const { result, text, stopRounds, usage, flags } = step;
  const reply = withSources(text, result.citations);
  if (result.ended === "incomplete") {
    const why = result.reason ?? "incomplete";
    return {
      status: "failed",
      reply,
      usage,
      error: { class: "incomplete", message: `the model stopped before finishing its answer (${why})` },
      incomplete_reason: why,
      ...flags,
    };
  }
  const stop = await deps.hooks?.run("Stop", { stop_hook_active: stopRounds > 0, last_assistant_message: text }, { turnId, signal });
  if (stop?.block && !stop.stop && !signal.aborted) {
    if (stopRounds < MAX_STOP_HOOK_ROUNDS) {
      deps.history.push({ role: "user", content: `[${hookSays("Stop", stop.block)}]` });
      return "again";
    }
    deps.emit("model.notice", { session_id: deps.scope.sessionId, turn_id: turnId, message: `${hookSays("Stop", stop.block)}; cut off after ${MAX_STOP_HOOK_ROUNDS} rounds, the turn ends` });
  }
  return { status: "completed", reply, usage, ...flags };
}

/** The step's calls, serially; images they returned follow all the results. */
async function runStepCalls(deps: TurnDeps, turnId: string, calls: ToolCallRequest[], signal: AbortSignal, halt: Halt): Promise<void> {
  const returned: { about: string; images: ImageRef[] }[] = [];
  for (const call of calls) {
    // Every call the model made gets a result, so the history stays valid for the next request.
    const result = signal.aborted ? failure("cancelled before it ran") : halt.by ? failure(`not run: a hook stopped the turn (continue: false): ${halt.by.reason}`) : await runToolCall(deps, turnId, call, signal, halt);
    deps.history.push({ role: "tool", callId: call.id, name: call.name, output: result.output });
    if (result.images?.length) returned.push({ about: `${call.name} [${call.id}]`, images: result.images });
  }
  // After all of the step's results: Chat requires the tool messages to follow their call unbroken.
  if (returned.length) deps.history.push({ role: "images", about: returned.map((r) => r.about).join(", "), images: returned.flatMap((r) => r.images) });
}

function toolSpec(t: { name: string; description: string; jsonSchema: Record<string, unknown> }): ToolSpec {
  return { name: t.name, description: t.description, parameters: schemaForModel(t.jsonSchema) };
}

/**
 * Keywords every request would pay for that only checking needs: lengths, counts, patterns, the
 * closed-object marker and integer bounds no value reaches. The arguments are still checked against the whole
 * schema when a call runs, and a call that breaks one gets the error that says so. (A tool's jsonSchema keeps
 * them all: clients and tests see the whole schema.)
 */
const CHECK_ONLY = new Set(["minLength", "maxLength", "minItems", "maxItems", "pattern", "propertyNames", "additionalProperties", "exclusiveMinimum"]);
const forModel = new WeakMap<object, Record<string, unknown>>();

function schemaForModel(schema: Record<string, unknown>): Record<string, unknown> {
  let out = forModel.get(schema);
  if (!out) forModel.set(schema, (out = stripChecks(schema) as Record<string, unknown>));
  return out;
}

function stripChecks(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(stripChecks);
  if (!x || typeof x !== "object") return x;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(x)) {
    // An object's additionalProperties is the schema of its values (a map's), not a check: kept.
    if ((CHECK_ONLY.has(k) && !(k === "additionalProperties" && typeof v === "object")) || (k === "maximum" && v === Number.MAX_SAFE_INTEGER) || (k === "minimum" && v === 0)) continue;
    // `properties` names fields: a field called "pattern" is kept, whatever its schema.
    out[k] = k === "properties" && v && typeof v === "object" ? Object.fromEntries(Object.entries(v).map(([n, s]) => [n, stripChecks(s)])) : stripChecks(v);
  }
  return out;
}

/**
 * One bounded request beside the turn: the history as the next request carries it plus `step.prompt`, offering
 * only `step.tools`. Up to `maxCalls` of the calls it makes run through the approval gate and are shown like any
 * call; the exchange itself never enters history (what it saved reaches the model through the renewed prompt).
 * Its text is not shown. Never throws.
 */
async function runSideStep(deps: TurnDeps, turnId: string, step: SideStep, turnStart: number, usage: Usage, signal: AbortSignal): Promise<void> {
  const tools = step.tools.map((name) => deps.tools.get(name)).filter((t) => t !== undefined);
  if (tools.length === 0 || signal.aborted) return;
  const calls: ToolCallRequest[] = [];
  try {
    for await (const ev of deps.model.stream({
      system: deps.systemPrompt(),
      history: [...requestView(deps.history, turnStart), { role: "user", content: step.prompt }],
      tools: tools.map(toolSpec),
      model: deps.modelName,
      ...(deps.reasoning ? { reasoning: deps.reasoning } : {}),
      cacheKey: cacheKeyOf(deps),
      signal,
    })) {
      if (ev.type === "tool_call") calls.push(ev.call);
      else if (ev.type === "end" && ev.usage) addUsage(usage, ev.usage);
    }
  } catch {
    return; // the stream is written not to throw; a step that fails only skips the save
  }
  const offered = new Set(tools.map((t) => t.name));
  for (const call of calls.filter((c) => offered.has(c.name)).slice(0, step.maxCalls)) {
    if (signal.aborted) return;
    await runToolCall(deps, turnId, call, signal);
  }
}

/**
 * Tools that come and go (MCP servers) are asked for their offer once per turn, before the first request: a
 * connection is approved here, and a server's list change shows at the next turn. Notices reach the client.
 */
async function refreshToolSources(deps: TurnDeps, turnId: string, signal: AbortSignal): Promise<void> {
  const ids = { session_id: deps.scope.sessionId, turn_id: turnId };
  const notices = await deps.tools.refresh({
    signal,
    approve: ({ fingerprint, ...request }) => deps.gate.decide({ ...request, ...fixedFingerprint(fingerprint) }),
    progress: (line) => deps.emit("model.notice", { ...ids, message: line }),
  });
  for (const message of notices) deps.emit("model.notice", { ...ids, message });
}

/** One model request: streams text and reasoning to the client and collects the response in output order. */
async function modelStep(deps: TurnDeps, req: { turnId: string; turnStart: number; specs: ToolSpec[]; usage: Usage }, signal: AbortSignal): Promise<StepResult> {
  const { turnId, turnStart, specs, usage } = req;
  const { emit, context, history } = deps;
  const ids = { session_id: deps.scope.sessionId, turn_id: turnId };
  const out: StepResult = { ended: "failed", text: "", refused: false, calls: [], citations: [], items: [] };
  // The open assistant segment; a reasoning item arriving after text or calls closes it, keeping output order.
  let segment: { content: string; toolCalls: ToolCallRequest[] } = { content: "", toolCalls: [] };
  const close = () => {
    if (segment.content === "" && segment.toolCalls.length === 0) return;
    out.items.push({ role: "assistant", content: segment.content, ...(segment.toolCalls.length ? { toolCalls: segment.toolCalls } : {}) });
    segment = { content: "", toolCalls: [] };
  };
  const view = requestView(history, turnStart);
  await prepareImages(imagesIn(view));
  for await (const ev of deps.model.stream({
    system: deps.systemPrompt(),
    history: view,
    tools: specs,
    hostedWebSearch: deps.hostedWebSearch,
    model: deps.modelName,
    ...(deps.reasoning ? { reasoning: deps.reasoning } : {}),
    cacheKey: cacheKeyOf(deps),
    signal,
  })) {
    switch (ev.type) {
      case "text":
      case "refusal":
        if (ev.type === "refusal") out.refused = true;
        out.text += ev.delta;
        segment.content += ev.delta;
        emit("assistant.delta", { ...ids, text: ev.delta });
        break;
      case "tool_call":
        out.calls.push(ev.call);
        segment.toolCalls.push(ev.call);
        break;
      case "citation":
        out.citations.push(ev);
        break;
      case "reasoning":
        emit("reasoning.delta", { ...ids, text: ev.delta });
        break;
      case "reasoning_item":
        close();
        out.items.push(ev.item);
        break;
      case "notice":
        emit("model.notice", { ...ids, message: ev.message });
        break;
      case "retry": {
        const { class: cls, message, status } = ev.failure;
        const error = { class: cls, message, ...(status !== undefined ? { status } : {}) };
        emit("model.retrying", { ...ids, attempt: ev.attempt, max_retries: ev.maxRetries, delay_ms: ev.delayMs, error });
        break;
      }
      case "end":
        out.ended = ev.status;
        out.failure = ev.failure;
        out.reason = ev.reason;
        if (ev.usage) {
          addUsage(usage, ev.usage);
          deps.scope.usage?.model(ev.usage);
          if (ev.usage.input_tokens > 0) context.last = { inputTokens: ev.usage.input_tokens, view };
        }
        break;
    }
  }
  close();
  return out;
}

/**
 * The session's prompt-cache key: stable for the session (a resume keeps its ID), different for every other, so
 * the endpoint serves the unchanged prefix (instructions, tools, earlier conversation) of each request from cache.
 */
function cacheKeyOf(deps: TurnDeps): string {
  return `scv-${deps.scope.sessionId}`;
}

function* imagesIn(items: readonly HistoryItem[]): Generator<ImageRef> {
  for (const item of items) if ((item.role === "user" || item.role === "images") && item.images) yield* item.images;
}

function addUsage(total: Usage, more: Usage) {
  total.input_tokens += more.input_tokens;
  total.output_tokens += more.output_tokens;
  total.cached_input_tokens += more.cached_input_tokens;
  total.reasoning_tokens += more.reasoning_tokens;
  if (more.cache_write_tokens) total.cache_write_tokens = (total.cache_write_tokens ?? 0) + more.cache_write_tokens;
  if (more.cache_write_1h_tokens) total.cache_write_1h_tokens = (total.cache_write_1h_tokens ?? 0) + more.cache_write_1h_tokens;
}
