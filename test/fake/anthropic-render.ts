// Renders a scripted reply as the Anthropic Messages API's SSE frames (docs/anthropic-wire.md), byte for byte as
// the API writes them: `event: <type>\ndata: <json>\n\n`, message_start, a ping, content blocks (text, tool_use
// with input_json_delta, thinking with thinking_delta and signature_delta, redacted_thinking), message_delta with
// the stop_reason and cumulative usage, message_stop. Thinking blocks are signed so the server can check that a
// later request sends them back unchanged.
import type { FakeCallSpec, FakeReply, FakeUsage } from "./model-replies";
import { pieces, type JsonReply, type Rendered, type StreamReply } from "./model-render";

type Json = Record<string, unknown>;
let serial = 0;
const id = (prefix: string) => `${prefix}_01fake${(++serial).toString(16).padStart(6, "0")}${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;

const SIGNING_KEY = "fake-anthropic-signing-key";
/** The signature the fake gives a thinking text; a request whose thinking does not match its signature is refused. */
export function signThinking(thinking: string): string {
  return `Er${new Bun.CryptoHasher("sha256", SIGNING_KEY).update(thinking).digest("base64")}`;
}

/** The input token counts of a request as the fake's prompt cache priced them (anthropic-checks.ts). */
export interface CacheCounts {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

const argsText = (c: FakeCallSpec) => (typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments));

export function renderAnthropic(reply: StreamReply, request: Json, cache: CacheCounts): Rendered {
  const frames: string[] = [];
  const emit = (type: string, payload: Json = {}) => frames.push(`event: ${type}\ndata: ${JSON.stringify({ type, ...payload })}\n\n`);
  let index = 0;
  let outChars = 0;
  const counts = (u: FakeUsage | undefined) => ({
    input_tokens: u?.input_tokens !== undefined ? u.input_tokens - (u.cached_tokens ?? 0) : cache.input_tokens,
    cache_creation_input_tokens: u?.input_tokens !== undefined ? 0 : cache.cache_creation_input_tokens,
    cache_read_input_tokens: u?.cached_tokens ?? cache.cache_read_input_tokens,
  });
  const start = (u: FakeUsage | undefined) => {
    emit("message_start", {
      message: { id: id("msg"), type: "message", role: "assistant", model: request.model, content: [], stop_reason: null, stop_sequence: null, usage: { ...counts(u), output_tokens: 1, service_tier: "standard" } },
    });
    emit("ping");
  };
  const textBlock = (text: string, open = false) => {
    const at = index++;
    emit("content_block_start", { index: at, content_block: { type: "text", text: "" } });
    for (const d of pieces(text)) emit("content_block_delta", { index: at, delta: { type: "text_delta", text: d } });
    outChars += text.length;
    if (!open) emit("content_block_stop", { index: at });
  };
  const thinkingBlock = (spec: boolean | string) => {
    const at = index++;
    if (spec === true) {
      emit("content_block_start", { index: at, content_block: { type: "redacted_thinking", data: `EmwK${crypto.randomUUID().replaceAll("-", "")}` } });
      emit("content_block_stop", { index: at });
      return;
    }
    const thinking = typeof spec === "string" ? spec : "";
    emit("content_block_start", { index: at, content_block: { type: "thinking", thinking: "", signature: "" } });
    for (const d of pieces(thinking, 6)) emit("content_block_delta", { index: at, delta: { type: "thinking_delta", thinking: d } });
    emit("content_block_delta", { index: at, delta: { type: "signature_delta", signature: signThinking(thinking) } });
    emit("content_block_stop", { index: at });
    outChars += thinking.length;
  };
  const toolUse = (c: FakeCallSpec) => {
    const at = index++;
    emit("content_block_start", { index: at, content_block: { type: "tool_use", id: c.id ?? id("toolu"), name: c.name, input: {} } });
    emit("content_block_delta", { index: at, delta: { type: "input_json_delta", partial_json: "" } });
    const args = argsText(c);
    for (const d of pieces(args, c.chunk ?? 5)) emit("content_block_delta", { index: at, delta: { type: "input_json_delta", partial_json: d } });
    emit("content_block_stop", { index: at });
    outChars += args.length;
  };
  const end = (stop: string, u: FakeUsage | undefined) => {
    const output_tokens = u?.output_tokens ?? Math.ceil(outChars / 4) + 1;
    emit("message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage: { ...counts(u), output_tokens } });
    emit("message_stop");
  };
  const error = (type: string, message: string) => emit("error", { error: { type, message } });

  switch (reply.kind) {
    case "text":
      start(reply.usage);
      if (reply.reasoning) thinkingBlock(reply.reasoning);
      textBlock(reply.text);
      end("end_turn", reply.usage);
      break;
    case "tool_calls":
      start(reply.usage);
      if (reply.reasoning) thinkingBlock(reply.reasoning);
      if (reply.text) textBlock(reply.text);
      for (const c of reply.calls) toolUse(c);
      end("tool_use", reply.usage);
      break;
    case "refusal":
      start(reply.usage);
      textBlock(reply.refusal);
      end("refusal", reply.usage);
      break;
    case "citations":
      start(reply.usage);
      textBlock(reply.text);
      end("end_turn", reply.usage);
      break;
    case "cut":
    case "hang":
      start(undefined);
      if (reply.text) textBlock(reply.text, true);
      return { frames, end: reply.kind === "cut" ? "close" : "hang", reasoning: [] };
    case "stall":
      start(undefined);
      return { frames, end: "hang", reasoning: [] };
    case "failed":
      start(undefined);
      error(reply.code, reply.message);
      break;
    case "incomplete":
      start(undefined);
      textBlock(reply.text);
      end("max_tokens", undefined);
      break;
    case "mid_stream_error":
      start(undefined);
      if (reply.text) textBlock(reply.text, true);
      error(reply.type ?? reply.code ?? "overloaded_error", reply.message ?? "Overloaded");
      break;
  }
  return { frames, end: "close", reasoning: [] };
}

/** A non-streamed message object (an endpoint that ignored `stream: true`). */
export function renderAnthropicJson(reply: JsonReply, request: Json, cache: CacheCounts): Json {
  const content: Json[] = [];
  if (reply.text ?? reply.refusal) content.push({ type: "text", text: reply.text ?? reply.refusal });
  for (const c of reply.calls ?? []) content.push({ type: "tool_use", id: c.id ?? id("toolu"), name: c.name, input: typeof c.arguments === "string" ? JSON.parse(c.arguments) : c.arguments });
  const stop_reason = reply.refusal ? "refusal" : reply.calls?.length ? "tool_use" : "end_turn";
  return { id: id("msg"), type: "message", role: "assistant", model: request.model, content, stop_reason, stop_sequence: null, usage: { ...cache, output_tokens: reply.usage?.output_tokens ?? 5 } };
}

/** `{"type":"error","error":{"type":…,"message":…}}`, the API's error body. */
export function anthropicErrorBody(type: string, message: string) {
  return { type: "error", error: { type, message } };
}

/** An HTTP error answer in the API's shape, e.g. `anthropicError(529, "overloaded_error", "Overloaded")`. */
export function anthropicError(status: number, type: string, message: string, headers?: Record<string, string>): FakeReply {
  return { kind: "http_error", status, body: anthropicErrorBody(type, message), ...(headers ? { headers } : {}) };
}

/** Frames sent verbatim (`event: x\ndata: {...}\n\n`): events SCV does not know, odd orders, a pause_turn. */
export function rawFrames(...events: [string, Json][]): FakeReply {
  return { kind: "raw", frames: events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`) };
}
