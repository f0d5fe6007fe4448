// The Anthropic Messages API (docs/anthropic-wire.md): POST /v1/messages with `stream: true`, answered by typed
// SSE events (message_start, content_block_start/delta/stop, message_delta, message_stop, ping, error). Stateless:
// the whole conversation every request, with cache_control breakpoints so the unchanged prefix is read from the
// prompt cache; thinking blocks are kept with their signatures and sent back exactly as they came.
import type { ProviderProfile } from "../config/schema";
import { cutShort, parseJson, withRawField, type WireAdapter, type WireItem } from "./adapter";
import { classifyErrorBody } from "./errors";
import { carriesImages, type ImageRef, preparedImage } from "./images";
import { maxOutputTokensFor } from "./models";
import type { SseEvent } from "./sse";
import { imagesIntro, summaryMessage } from "./summary";
import type { HistoryItem, ModelRequest, ReasoningItem, Usage } from "./types";
import type { AnthropicContentBlock, AnthropicRequest } from "./wire-anthropic";
import { readAnthropicEvent, readAnthropicMessage } from "./wire-check";

export const ANTHROPIC_VERSION = "2023-06-01";

type Role = "user" | "assistant";
type Block = AnthropicContentBlock;

/** A tool_use id as the API accepts it (`^[A-Za-z0-9_-]+$`); an OpenAI call id from a switched session may hold others. */
export function toolUseId(id: string): string {
  const clean = id.replace(/[^A-Za-z0-9_-]/g, "_");
  return clean === "" ? "toolu_empty" : clean;
}

/** A call's arguments as the object `input` must be; text that is not a JSON object becomes {} (its result says why). */
function inputOf(args: string): Record<string, unknown> {
  try {
    const v = JSON.parse(args || "{}");
    return v && typeof v === "object" && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

function imageBlocks(images: ImageRef[] | undefined): Block[] {
  return (images ?? []).map((ref): Block => {
    const ready = preparedImage(ref);
    if ("missing" in ready) return { type: "text", text: `[${ready.missing}]` };
    const [, mime, data] = /^data:([^;]+);base64,(.*)$/s.exec(ready.url) ?? [];
    return { type: "image", source: { type: "base64", media_type: mime as "image/png", data: data ?? "" } };
  });
}

const textBlock = (text: string): Block[] => (text === "" ? [] : [{ type: "text", text }]);

/** The role and content blocks one history item adds; reasoning of another API has no form here (left out). */
function blocksOf(item: HistoryItem): { role: Role; blocks: Block[] } {
  switch (item.role) {
    case "user":
      return { role: "user", blocks: [...textBlock(item.content), ...imageBlocks(item.images)] };
    case "images":
      return { role: "user", blocks: [...textBlock(imagesIntro(item.about)), ...imageBlocks(item.images)] };
    case "summary":
      return { role: "user", blocks: textBlock(summaryMessage(item.content)) };
    case "tool":
      return { role: "user", blocks: [{ type: "tool_result", tool_use_id: toolUseId(item.callId), ...(item.output ? { content: item.output } : {}) }] };
    case "assistant":
      return {
        role: "assistant",
        blocks: [...textBlock(item.content), ...(item.toolCalls ?? []).map((c): Block => ({ type: "tool_use", id: toolUseId(c.id), name: c.name, input: inputOf(c.arguments) }))],
      };
    case "reasoning":
      if (item.origin !== "anthropic") return { role: "assistant", blocks: [] };
      return {
        role: "assistant",
        blocks: [item.redacted ? { type: "redacted_thinking", data: item.encryptedContent } : { type: "thinking", thinking: item.summary[0] ?? "", signature: item.encryptedContent }],
      };
  }
}

/** Each item's blocks as JSON texts, cached by identity (items never change; ones with images are read afresh). */
const blockJson = new WeakMap<HistoryItem, { role: Role; blocks: string[] }>();
function renderedBlocks(item: HistoryItem): { role: Role; blocks: string[] } {
  let r = blockJson.get(item);
  if (!r) {
    const { role, blocks } = blocksOf(item);
    r = { role, blocks: blocks.map((b) => JSON.stringify(b)) };
    if (!carriesImages(item)) blockJson.set(item, r);
  }
  return r;
}

/** `{...}` with `"cache_control":…` added as its last field. */
function withCacheControl(json: string, cc: string): string {
  return `${json.slice(0, -1)},"cache_control":${cc}}`;
}

/**
 * The messages as JSON text: consecutive items of one role form one message, an assistant message of thinking
 * alone is left out (the API refuses one), and the last block of the last message and of the user message before
 * it carry `cc` (the breakpoint the previous request wrote, and the one this request writes).
 */
export function messagesJson(history: readonly HistoryItem[], cc: string | undefined): string {
  const messages: { role: Role; blocks: string[] }[] = [];
  for (const item of history) {
    const r = renderedBlocks(item);
    if (r.blocks.length === 0) continue;
    const last = messages.at(-1);
    if (last?.role === r.role) last.blocks.push(...r.blocks);
    else messages.push({ role: r.role, blocks: [...r.blocks] });
  }
  const kept = messages.filter((m) => m.role === "user" || m.blocks.some((b) => !b.startsWith('{"type":"thinking"') && !b.startsWith('{"type":"redacted_thinking"')));
  // Dropping a thinking-only message may leave two user messages side by side: join them.
  const joined: typeof kept = [];
  for (const m of kept) {
    const last = joined.at(-1);
    if (last?.role === m.role) last.blocks.push(...m.blocks);
    else joined.push(m);
  }
  if (cc) {
    const users = joined.flatMap((m, i) => (m.role === "user" ? [i] : []));
    for (const i of users.slice(-2)) {
      const m = joined[i]!;
      m.blocks[m.blocks.length - 1] = withCacheControl(m.blocks.at(-1)!, cc);
    }
  }
  return `[${joined.map((m) => `{"role":"${m.role}","content":[${m.blocks.join(",")}]}`).join(",")}]`;
}

/** The request's max_tokens: the profile's, else the model family's, raised above a thinking budget when unset. */
function maxTokens(profile: ProviderProfile, model: string): number {
  if (profile.max_tokens) return profile.max_tokens;
  const budget = profile.thinking && "budget_tokens" in profile.thinking ? profile.thinking.budget_tokens : 0;
  return Math.max(maxOutputTokensFor(model), budget + 4096);
}

function bodyText(profile: ProviderProfile, request: ModelRequest, model: string): string {
  const cache = profile.prompt_cache === "off" ? undefined : profile.prompt_cache === "1h" ? { type: "ephemeral" as const, ttl: "1h" as const } : { type: "ephemeral" as const };
  const tools: NonNullable<AnthropicRequest["tools"]> = request.tools.map((t, i) => ({
    name: t.name,
    description: t.description,
    input_schema: t.parameters,
    ...(cache && i === request.tools.length - 1 ? { cache_control: cache } : {}),
  }));
  const thinking = profile.thinking ? ("budget_tokens" in profile.thinking ? { type: "enabled" as const, budget_tokens: profile.thinking.budget_tokens } : { type: "adaptive" as const }) : undefined;
  const fields: Omit<AnthropicRequest, "messages"> = {
    model,
    max_tokens: maxTokens(profile, model),
    ...(request.system ? { system: [{ type: "text" as const, text: request.system, ...(cache ? { cache_control: cache } : {}) }] } : {}),
    ...(tools.length ? { tools, tool_choice: { type: "auto" as const } } : {}),
    ...(thinking ? { thinking } : {}),
    stream: true,
  };
  return withRawField(fields, "messages", messagesJson(request.history, cache ? JSON.stringify(cache) : undefined));
}

/** The request as an object (tests and schema checks); the client sends the text. */
export function anthropicBody(profile: ProviderProfile, request: ModelRequest, model: string): AnthropicRequest {
  return JSON.parse(bodyText(profile, request, model));
}

interface OpenBlock {
  type: string;
  id: string;
  name: string;
  json: string;
  /** The input content_block_start carried (a non-streamed answer has it whole). */
  input?: unknown;
  thinking: string;
  signature: string;
  data: string;
}

type AnthropicUsageRead = {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation?: { ephemeral_1h_input_tokens?: number | null } | null;
};

/** SCV's usage from the API's: input_tokens there excludes the cache's part, here it includes it. */
function usageOf(u: AnthropicUsageRead, thinkingChars: number): Usage {
  const read = u.cache_read_input_tokens ?? 0;
  const write = u.cache_creation_input_tokens ?? 0;
  const output = u.output_tokens ?? 0;
  return {
    input_tokens: (u.input_tokens ?? 0) + read + write,
    output_tokens: output,
    cached_input_tokens: read,
    // The API does not count thinking apart: about four characters a token, never more than the output.
    reasoning_tokens: Math.min(output, Math.ceil(thinkingChars / 4)),
    cache_write_tokens: write,
    ...(u.cache_creation?.ephemeral_1h_input_tokens ? { cache_write_1h_tokens: u.cache_creation.ephemeral_1h_input_tokens } : {}),
  };
}

/** The outcome a stop_reason means: max_tokens and pause_turn are incomplete (the loop continues them). */
function outcomeOf(stop: string | undefined, usage: Usage): WireItem {
  if (stop === "max_tokens" || stop === "pause_turn" || stop === "model_context_window_exceeded") return { type: "done", status: "incomplete", reason: stop, usage };
  return { type: "done", status: "completed", usage };
}

async function* parseAnthropic(events: AsyncIterable<SseEvent>): AsyncGenerator<WireItem> {
  const blocks = new Map<number, OpenBlock>();
  const counts: AnthropicUsageRead = {};
  const unknown = new Map<string, number>();
  let thinkingChars = 0;
  let stop: string | undefined;
  let textSeen = false;
  let started = false;
  const merge = (u: AnthropicUsageRead | null | undefined) => {
    for (const [k, v] of Object.entries(u ?? {})) if (typeof v === "number" || (k === "cache_creation" && v)) (counts as Record<string, unknown>)[k] = v;
  };
  const unknownNotice = (): WireItem[] => {
    if (unknown.size === 0) return [];
    const n = [...unknown.values()].reduce((a, b) => a + b, 0);
    const names = [...unknown.keys()].slice(0, 5).join(", ");
    return [{ type: "notice", message: `skipped ${n} stream ${n === 1 ? "event" : "events"} of a type SCV does not know (${names})` }];
  };

  function* finish(b: OpenBlock): Generator<WireItem> {
    if (b.type === "tool_use") {
      const args = b.json !== "" ? b.json : b.input && typeof b.input === "object" && Object.keys(b.input).length ? JSON.stringify(b.input) : "";
      yield { type: "tool_call", call: { id: b.id, name: b.name, arguments: args } };
    } else if (b.type === "thinking") {
      if (!b.signature) {
        yield { type: "notice", message: "the model sent a thinking block without a signature; it is shown but left out of the conversation (the API accepts thinking back only signed)" };
        return;
      }
      const item: ReasoningItem = { role: "reasoning", origin: "anthropic", encryptedContent: b.signature, summary: [b.thinking] };
      yield { type: "reasoning_item", item };
    } else if (b.type === "redacted_thinking" && b.data) {
      yield { type: "reasoning_item", item: { role: "reasoning", origin: "anthropic", redacted: true, encryptedContent: b.data, summary: [] } };
    }
  }

  for await (const sse of events) {
    const json = parseJson(sse.data);
    if (json === undefined) continue;
    const parsed = readAnthropicEvent(json);
    if (!parsed.success) {
      const type = json && typeof json === "object" && typeof (json as { type?: unknown }).type === "string" ? (json as { type: string }).type : sse.event;
      unknown.set(type, (unknown.get(type) ?? 0) + 1);
      continue;
    }
    const ev = parsed.data;
    switch (ev.type) {
      case "message_start":
        started = true;
        merge(ev.message.usage);
        break;
      case "content_block_start": {
        const c = ev.content_block;
        const b: OpenBlock = { type: c.type, id: c.id ?? "", name: c.name ?? "", json: "", input: c.input, thinking: c.thinking ?? "", signature: c.signature ?? "", data: c.data ?? "" };
        blocks.set(ev.index, b);
        if (c.type === "text" && c.text) {
          textSeen = true;
          yield { type: "text", delta: c.text };
        }
        if (c.type === "thinking" && c.thinking) {
          thinkingChars += c.thinking.length;
          yield { type: "reasoning", delta: c.thinking };
        }
        if (!["text", "tool_use", "thinking", "redacted_thinking"].includes(c.type)) unknown.set(`content block ${c.type}`, (unknown.get(`content block ${c.type}`) ?? 0) + 1);
        break;
      }
      case "content_block_delta": {
        const b = blocks.get(ev.index);
        const d = ev.delta;
        if (d.type === "text_delta" && d.text) {
          textSeen = true;
          yield { type: "text", delta: d.text };
        } else if (d.type === "input_json_delta" && b) b.json += d.partial_json ?? "";
        else if (d.type === "thinking_delta" && d.thinking) {
          if (b) b.thinking += d.thinking;
          thinkingChars += d.thinking.length;
          yield { type: "reasoning", delta: d.thinking };
        } else if (d.type === "signature_delta" && b) b.signature += d.signature ?? "";
        else if (!["text_delta", "input_json_delta", "thinking_delta", "signature_delta", "citations_delta"].includes(d.type)) unknown.set(`delta ${d.type}`, (unknown.get(`delta ${d.type}`) ?? 0) + 1);
        break;
      }
      case "content_block_stop": {
        const b = blocks.get(ev.index);
        if (b) {
          blocks.delete(ev.index);
          yield* finish(b);
        }
        break;
      }
      case "message_delta":
        merge(ev.usage);
        if (ev.delta?.stop_reason) stop = ev.delta.stop_reason;
        break;
      case "message_stop":
        if (stop === "refusal") yield { type: "refusal", delta: textSeen ? "" : "[the model declined to answer (stop_reason refusal)]" };
        yield* unknownNotice();
        yield outcomeOf(stop, usageOf(counts, thinkingChars));
        return;
      case "ping":
        break;
      case "error":
        yield* unknownNotice();
        yield { type: "fail", classified: classifyErrorBody({ type: ev.error?.type ?? "api_error", message: ev.error?.message ?? "the stream sent an error without details" }) };
        return;
    }
  }
  // EOF: a message that said how it stopped is complete even if message_stop was lost.
  if (started && stop) {
    if (stop === "refusal") yield { type: "refusal", delta: textSeen ? "" : "[the model declined to answer (stop_reason refusal)]" };
    yield* unknownNotice();
    yield outcomeOf(stop, usageOf(counts, thinkingChars));
    return;
  }
  yield cutShort("message_stop");
}

/** A non-streamed message object as the events a stream of it has. */
function replayMessageJson(json: unknown): SseEvent[] | undefined {
  const parsed = readAnthropicMessage(json);
  if (!parsed.success) return undefined;
  const m = parsed.data;
  const event = (data: Record<string, unknown>): SseEvent => ({ event: String(data.type), data: JSON.stringify(data) });
  const out = [event({ type: "message_start", message: { usage: m.usage ?? {} } })];
  m.content.forEach((block, index) => {
    out.push(event({ type: "content_block_start", index, content_block: block }));
    out.push(event({ type: "content_block_stop", index }));
  });
  out.push(event({ type: "message_delta", delta: { stop_reason: m.stop_reason ?? "end_turn" }, usage: m.usage ?? {} }));
  out.push(event({ type: "message_stop" }));
  return out;
}

/** The adapter for a kind = "anthropic" profile (its thinking, output limit and caching are in the body). */
export function anthropicAdapter(profile: ProviderProfile): WireAdapter {
  return {
    path: "/v1/messages",
    optionalFields: [],
    body: (request, model) => bodyText(profile, request, model),
    parse: parseAnthropic,
    replayJson: replayMessageJson,
    authHeaders: (apiKey) => ({ "anthropic-version": ANTHROPIC_VERSION, ...(apiKey ? { "x-api-key": apiKey } : {}) }),
    apiName: "Anthropic Messages",
  };
}
