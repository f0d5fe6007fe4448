// Reading what a model sends, checked against wire.ts without zod when the value certainly passes (the fast
// check, src/fast-check): a run's stream events would otherwise load zod (about 13 ms) and build and run its
// schemas (several ms more) in every `scv exec` and nested child. What the check is not sure of goes to zod,
// which decides as before; the schemas stay in wire.ts, their JSON Schemas made from them at build time.
import type { z } from "zod";
import { certainlyValid, type JsonSchema } from "../fast-check/check";
import { ChatChunk, ChatCompletion, ErrorBody, FunctionCallItem, MessageItem, ReasoningOutputItem, ResponseObject, ResponsesEvent, UrlCitation } from "./wire";
import { AnthropicEvent, AnthropicMessageObject } from "./wire-anthropic";
import { prebuiltWireSchemas } from "./wire-schemas" with { type: "macro" };

const FAST = prebuiltWireSchemas();

export type WireRead<T> = { success: true; data: T } | { success: false };

function read<S extends z.ZodType>(schema: S, fast: JsonSchema, value: unknown): WireRead<z.infer<S>> {
  if (certainlyValid(fast, value)) return { success: true, data: value as z.infer<S> };
  const parsed = schema.safeParse(value);
  return parsed.success ? { success: true, data: parsed.data } : { success: false };
}

/** The `type` of a JSON object, if it has a string one. */
function typeOf(value: unknown): string | undefined {
  const type = value !== null && typeof value === "object" ? (value as { type?: unknown }).type : undefined;
  return typeof type === "string" ? type : undefined;
}

/**
 * A Responses stream event. Like zod's discriminated union, an event whose `type` names no known event is
 * refused without looking further (the stream ignores it); a known one is checked against its own shape.
 */
export function readResponsesEvent(json: unknown): WireRead<z.infer<typeof ResponsesEvent>> {
  const type = typeOf(json);
  if (type === undefined || !Object.hasOwn(FAST.events, type)) return { success: false };
  return read(ResponsesEvent, FAST.events[type]!, json);
}

const ITEMS = { function_call: FunctionCallItem, message: MessageItem, reasoning: ReasoningOutputItem };
type ItemKind = keyof typeof ITEMS;
export type OutputItemRead = { [K in ItemKind]: { type: K; item: z.infer<(typeof ITEMS)[K]> } }[ItemKind];

/** A finished output item SCV interprets (a function call, a message, reasoning), or undefined for any other. */
export function readOutputItem(raw: unknown): OutputItemRead | undefined {
  const type = typeOf(raw);
  if (type !== "function_call" && type !== "message" && type !== "reasoning") return undefined;
  const r = read(ITEMS[type], FAST.items[type], raw);
  return r.success ? ({ type, item: r.data } as OutputItemRead) : undefined;
}

export const readUrlCitation = (raw: unknown) => read(UrlCitation, FAST.urlCitation, raw);
export const readErrorBody = (raw: unknown) => read(ErrorBody, FAST.errorBody, raw);
export const readResponseObject = (json: unknown) => read(ResponseObject, FAST.responseObject, json);
export const readChatChunk = (json: unknown) => read(ChatChunk, FAST.chatChunk, json);
export const readChatCompletion = (json: unknown) => read(ChatCompletion, FAST.chatCompletion, json);

/** An Anthropic Messages stream event; one whose `type` names no known event is refused at once (and counted by the parser). */
export function readAnthropicEvent(json: unknown): WireRead<z.infer<typeof AnthropicEvent>> {
  const type = typeOf(json);
  if (type === undefined || !Object.hasOwn(FAST.anthropicEvents, type)) return { success: false };
  return read(AnthropicEvent, FAST.anthropicEvents[type]!, json);
}
export const readAnthropicMessage = (json: unknown) => read(AnthropicMessageObject, FAST.anthropicMessage, json);
