// Renders a scripted reply as the SSE frames of each wire API, in the order the reference captures show
// (shared/reference/providers-wire.md §1.2-1.4 for Responses, §2 for Chat Completions).
import type { FakeCallSpec, FakeReply, FakeUsage } from "./model-replies";

export type StreamReply = Exclude<FakeReply, { kind: "http_error" | "json" | "raw" }>;
export type JsonReply = Extract<FakeReply, { kind: "json" }>;
export interface Rendered {
  frames: string[];
  /** After the frames: close the stream, or stall until the client goes away. */
  end: "close" | "hang";
  /** Reasoning items sent (Responses), in output order: a later request must replay them verbatim. */
  reasoning: { id: string; encrypted_content: string }[];
}

type Json = Record<string, unknown>;
let serial = 0;
const id = (prefix: string) => `${prefix}_fake${(++serial).toString(16).padStart(6, "0")}${crypto.randomUUID().slice(0, 8)}`;
const obfuscation = () => crypto.randomUUID().replaceAll("-", "").slice(0, 10);

/** Small pieces, split on code points, so clients see many deltas. */
export function pieces(s: string, size = 4): string[] {
  const out: string[] = [];
  // `size` code points per piece, walking UTF-16 units (no array of every code point: arguments can be MiBs).
  for (let start = 0; start < s.length; ) {
    let end = start;
    for (let n = 0; n < size && end < s.length; n++) {
      const c = s.charCodeAt(end);
      end += c >= 0xd800 && c <= 0xdbff && end + 1 < s.length ? 2 : 1;
    }
    out.push(s.slice(start, end));
    start = end;
  }
  return out;
}

const argsText = (c: FakeCallSpec) => (typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments));

function usageNumbers(u: FakeUsage | undefined, request: unknown, outText: string) {
  return {
    input: u?.input_tokens ?? Math.ceil(JSON.stringify(request).length / 4),
    output: u?.output_tokens ?? Math.ceil(outText.length / 4) + 1,
    cached: u?.cached_tokens ?? 0,
    reasoning: u?.reasoning_tokens ?? 0,
  };
}

// ---------------- Responses ----------------

export function renderResponses(reply: StreamReply, request: Json): Rendered {
  let seq = 0;
  const frames: string[] = [];
  const emit = (type: string, payload: Json) => frames.push(`event: ${type}\ndata: ${JSON.stringify({ type, ...payload, sequence_number: seq++ })}\n\n`);
  const output: Json[] = [];
  const respId = id("resp");
  const response = (status: string, extra: Json = {}): Json => ({
    id: respId, object: "response", created_at: Math.floor(Date.now() / 1000), status, background: false, completed_at: null, error: null,
    incomplete_details: null, instructions: request.instructions ?? null, max_output_tokens: null, model: request.model, output: [],
    parallel_tool_calls: true, previous_response_id: null, reasoning: { effort: null, summary: null }, service_tier: "auto", store: false,
    temperature: 1.0, text: { format: { type: "text" }, verbosity: "medium" }, tool_choice: request.tool_choice ?? "auto",
    tools: request.tools ?? [], top_p: 1.0, truncation: "disabled", usage: null, user: null, metadata: {}, ...extra,
  });
  const usage = (u: FakeUsage | undefined, outText: string) => {
    const n = usageNumbers(u, request, outText);
    return { input_tokens: n.input, input_tokens_details: { cached_tokens: n.cached }, output_tokens: n.output, output_tokens_details: { reasoning_tokens: n.reasoning }, total_tokens: n.input + n.output };
  };

  const issued: Rendered["reasoning"] = [];
  const wantsSummary = ["auto", "concise", "detailed"].includes(String((request.reasoning as Json | undefined)?.summary));
  const reasoningItem = (spec: boolean | string) => {
    const item_id = id("rs");
    const output_index = output.length;
    emit("response.output_item.added", { item: { id: item_id, type: "reasoning", summary: [], content: [], encrypted_content: null }, output_index });
    const summary: Json[] = [];
    if (typeof spec === "string" && wantsSummary) {
      const at = { item_id, output_index, summary_index: 0 };
      emit("response.reasoning_summary_part.added", { ...at, part: { type: "summary_text", text: "" } });
      for (const d of pieces(spec)) emit("response.reasoning_summary_text.delta", { ...at, delta: d, obfuscation: obfuscation() });
      emit("response.reasoning_summary_text.done", { ...at, text: spec });
      emit("response.reasoning_summary_part.done", { ...at, part: { type: "summary_text", text: spec } });
      summary.push({ type: "summary_text", text: spec });
    }
    const encrypted_content = `gAAAA${obfuscation()}${obfuscation()}`;
    const done = { id: item_id, type: "reasoning", summary, content: [], encrypted_content };
    emit("response.output_item.done", { item: done, output_index });
    output.push(done);
    issued.push({ id: item_id, encrypted_content });
  };
  /** A message item; `stopAfterDeltas` leaves it open (cut / hang / mid-stream error). */
  const messageItem = (body: string, opts: { refusal?: boolean; onlyDone?: boolean; annotations?: Json[]; stopAfterDeltas?: boolean } = {}) => {
    const item_id = id("msg");
    const output_index = output.length;
    emit("response.output_item.added", { item: { id: item_id, type: "message", status: "in_progress", content: [], role: "assistant" }, output_index });
    const at = { content_index: 0, item_id, output_index };
    const emptyPart = opts.refusal ? { type: "refusal", refusal: "" } : { type: "output_text", annotations: [], logprobs: [], text: "" };
    emit("response.content_part.added", { ...at, part: emptyPart });
    for (const d of opts.onlyDone ? [] : pieces(body)) {
      if (opts.refusal) emit("response.refusal.delta", { ...at, delta: d });
      else emit("response.output_text.delta", { ...at, delta: d, logprobs: [], obfuscation: obfuscation() });
    }
    if (opts.stopAfterDeltas) return;
    const annotations = opts.annotations ?? [];
    annotations.forEach((annotation, annotation_index) => emit("response.output_text.annotation.added", { annotation, annotation_index, ...at }));
    const part = opts.refusal ? { type: "refusal", refusal: body } : { type: "output_text", annotations, logprobs: [], text: body };
    if (opts.refusal) {
      if (!opts.onlyDone) emit("response.refusal.done", { ...at, refusal: body });
    }
    else emit("response.output_text.done", { ...at, logprobs: [], text: body });
    emit("response.content_part.done", { ...at, part });
    const done = { id: item_id, type: "message", status: "completed", content: [part], role: "assistant" };
    emit("response.output_item.done", { item: done, output_index });
    output.push(done);
  };
  const callItem = (c: FakeCallSpec) => {
    const item_id = id("fc");
    const call_id = c.id ?? id("call");
    const output_index = output.length;
    const args = argsText(c);
    emit("response.output_item.added", { item: { id: item_id, type: "function_call", status: "in_progress", arguments: "", call_id, name: c.name }, output_index });
    for (const d of pieces(args, c.chunk ?? 5)) emit("response.function_call_arguments.delta", { delta: d, item_id, obfuscation: obfuscation(), output_index });
    emit("response.function_call_arguments.done", { arguments: args, item_id, name: c.name, output_index });
    const done = { id: item_id, type: "function_call", status: "completed", arguments: args, call_id, name: c.name };
    emit("response.output_item.done", { item: done, output_index });
    output.push(done);
  };
  const webSearchItem = (query: string, urls: string[]) => {
    const item_id = id("ws");
    const output_index = output.length;
    emit("response.output_item.added", { item: { id: item_id, type: "web_search_call", status: "in_progress", action: { type: "search" } }, output_index });
    for (const phase of ["in_progress", "searching", "completed"]) emit(`response.web_search_call.${phase}`, { item_id, output_index });
    const done = { id: item_id, type: "web_search_call", status: "completed", action: { type: "search", queries: [query], query, sources: urls.map((url) => ({ type: "url", url })) } };
    emit("response.output_item.done", { item: done, output_index });
    output.push(done);
  };
  const completed = (u: FakeUsage | undefined, outText: string) =>
    emit("response.completed", { response: response("completed", { completed_at: Math.floor(Date.now() / 1000), output, usage: usage(u, outText) }) });

  emit("response.created", { response: response("in_progress") });
  emit("response.in_progress", { response: response("in_progress") });
  switch (reply.kind) {
    case "text":
      if (reply.reasoning) reasoningItem(reply.reasoning);
      messageItem(reply.text);
      completed(reply.usage, reply.text);
      if (reply.done) frames.push("data: [DONE]\n\n");
      break;
    case "tool_calls":
      if (reply.reasoning) reasoningItem(reply.reasoning);
      if (reply.text) messageItem(reply.text);
      for (const c of reply.calls) callItem(c);
      completed(reply.usage, (reply.text ?? "") + reply.calls.map(argsText).join(""));
      break;
    case "refusal":
      messageItem(reply.refusal, { refusal: true, onlyDone: reply.only_done });
      completed(reply.usage, reply.refusal);
      break;
    case "citations": {
      webSearchItem(reply.query ?? "search", reply.citations.map((c) => c.url));
      const annotations = reply.citations.map((c) => {
        const at = reply.text.indexOf(c.url);
        const [start_index, end_index] = at >= 0 ? [at, at + c.url.length] : [0, reply.text.length];
        return { type: "url_citation", end_index, start_index, title: c.title ?? c.url, url: c.url };
      });
      messageItem(reply.text, { annotations });
      completed(reply.usage, reply.text);
      break;
    }
    case "cut":
    case "hang":
      if (reply.text) messageItem(reply.text, { stopAfterDeltas: true });
      return { frames, end: reply.kind === "cut" ? "close" : "hang", reasoning: issued };
    case "stall":
      return { frames, end: "hang", reasoning: issued };
    case "failed":
      emit("response.failed", { response: response("failed", { error: { code: reply.code, message: reply.message }, usage: null }) });
      break;
    case "incomplete": {
      messageItem(reply.text);
      const reason = reply.reason ?? "max_output_tokens";
      emit("response.incomplete", { response: response("incomplete", { incomplete_details: { reason }, output, usage: usage(undefined, reply.text) }) });
      break;
    }
    case "mid_stream_error":
      if (reply.text) messageItem(reply.text, { stopAfterDeltas: true });
      emit("error", { code: reply.code ?? "server_error", message: reply.message ?? "The server had an error while processing your request. Sorry about that!", param: null });
      break;
  }
  return { frames, end: "close", reasoning: issued };
}

// ---------------- Chat Completions ----------------

export function renderChat(reply: StreamReply, request: Json): Rendered {
  const includeUsage = (request.stream_options as Json | undefined)?.include_usage === true;
  const base = { id: id("chatcmpl"), object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: request.model, service_tier: "default", system_fingerprint: "fp_fake" };
  const frames: string[] = [];
  const data = (payload: Json) => frames.push(`data: ${JSON.stringify(payload)}\n\n`);
  const chunk = (delta: Json, finish_reason: string | null = null) =>
    data({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason }], ...(includeUsage ? { usage: null } : {}), obfuscation: obfuscation() });
  const finish = (reason: string, u: FakeUsage | undefined, outText: string) => {
    chunk({}, reason);
    if (includeUsage) {
      const n = usageNumbers(u, request, outText);
      data({
        ...base, choices: [],
        usage: {
          prompt_tokens: n.input, completion_tokens: n.output, total_tokens: n.input + n.output,
          prompt_tokens_details: { cached_tokens: n.cached, audio_tokens: 0 },
          completion_tokens_details: { reasoning_tokens: n.reasoning, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
        },
        obfuscation: obfuscation(),
      });
    }
    frames.push("data: [DONE]\n\n");
  };
  const textDeltas = (body: string) => {
    chunk({ role: "assistant", content: "", refusal: null });
    for (const d of pieces(body)) chunk({ content: d });
  };
  const errorChunk = (err: Json) => data({ error: { message: "", type: "server_error", param: null, code: null, ...err } });

  switch (reply.kind) {
    case "text":
    case "citations": // hosted search is Responses-only; Chat just gets the text
      // Reasoning servers on the Chat API (DeepSeek, vLLM) stream their thinking as delta.reasoning_content.
      if (reply.kind === "text" && typeof reply.reasoning === "string") for (const d of pieces(reply.reasoning)) chunk({ reasoning_content: d });
      textDeltas(reply.text);
      finish("stop", reply.usage, reply.text);
      break;
    case "tool_calls": {
      if (reply.text) textDeltas(reply.text);
      reply.calls.forEach((c, index) => {
        const opener = { index, id: c.id ?? id("call"), type: "function", function: { name: c.name, arguments: "" } };
        if (index === 0 && !reply.text) chunk({ role: "assistant", content: null, tool_calls: [opener], refusal: null });
        else chunk({ tool_calls: [opener] });
        for (const d of pieces(argsText(c), c.chunk ?? 5)) chunk({ tool_calls: [{ index, function: { arguments: d } }] });
      });
      finish("tool_calls", reply.usage, (reply.text ?? "") + reply.calls.map(argsText).join(""));
      break;
    }
    case "refusal":
      chunk({ role: "assistant", content: null, refusal: "" });
      for (const d of pieces(reply.refusal)) chunk({ refusal: d });
      finish("stop", reply.usage, reply.refusal);
      break;
    case "cut":
    case "hang":
      if (reply.text) textDeltas(reply.text);
      else chunk({ role: "assistant", content: "", refusal: null });
      return { frames, end: reply.kind === "cut" ? "close" : "hang", reasoning: [] };
    case "stall":
      chunk({ role: "assistant", content: "", refusal: null });
      return { frames, end: "hang", reasoning: [] };
    case "failed":
      errorChunk({ code: reply.code, message: reply.message });
      break;
    case "incomplete":
      textDeltas(reply.text);
      finish(reply.reason === "content_filter" ? "content_filter" : "length", undefined, reply.text);
      break;
    case "mid_stream_error":
      if (reply.text) textDeltas(reply.text);
      errorChunk({
        code: reply.code ?? "server_error",
        type: reply.type ?? "server_error",
        message: reply.message ?? "The server had an error while processing your request. Sorry about that!",
      });
      break;
  }
  return { frames, end: "close", reasoning: [] };
}

// ---------------- Non-streamed answers ----------------

/** One JSON body as a server that ignores `stream: true` sends it (reference §1.5 and §2). */
export function renderJson(reply: JsonReply, request: Json, responses: boolean): Json {
  const outText = (reply.text ?? reply.refusal ?? "") + (reply.calls ?? []).map(argsText).join("");
  const n = usageNumbers(reply.usage, request, outText);
  if (responses) {
    const output: Json[] = [];
    if (reply.text !== undefined || reply.refusal !== undefined) {
      const part = reply.refusal !== undefined ? { type: "refusal", refusal: reply.refusal } : { type: "output_text", annotations: [], logprobs: [], text: reply.text };
      output.push({ id: id("msg"), type: "message", status: "completed", role: "assistant", content: [part] });
    }
    for (const c of reply.calls ?? []) output.push({ id: id("fc"), type: "function_call", status: "completed", arguments: argsText(c), call_id: c.id ?? id("call"), name: c.name });
    return {
      id: id("resp"), object: "response", created_at: Math.floor(Date.now() / 1000), status: "completed", error: null, incomplete_details: null,
      model: request.model, output, store: false,
      usage: { input_tokens: n.input, input_tokens_details: { cached_tokens: n.cached }, output_tokens: n.output, output_tokens_details: { reasoning_tokens: n.reasoning }, total_tokens: n.input + n.output },
    };
  }
  const tool_calls = (reply.calls ?? []).map((c) => ({ id: c.id ?? id("call"), type: "function", function: { name: c.name, arguments: argsText(c) } }));
  return {
    id: id("chatcmpl"), object: "chat.completion", created: Math.floor(Date.now() / 1000), model: request.model,
    choices: [{
      index: 0,
      message: { role: "assistant", content: reply.text ?? null, refusal: reply.refusal ?? null, annotations: [], ...(tool_calls.length ? { tool_calls } : {}) },
      logprobs: null,
      finish_reason: tool_calls.length ? "tool_calls" : "stop",
    }],
    usage: { prompt_tokens: n.input, completion_tokens: n.output, total_tokens: n.input + n.output, prompt_tokens_details: { cached_tokens: n.cached }, completion_tokens_details: { reasoning_tokens: n.reasoning } },
  };
}
