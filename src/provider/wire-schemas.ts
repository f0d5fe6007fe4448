// A bundle-time macro (wire-check.ts imports it `with { type: "macro" }`): the JSON Schemas of the shapes SCV
// reads from a model's stream (wire.ts), made by the fast check's converter and inlined into the binary as plain
// data. Each Responses event gets its own schema, keyed by its `type`, so an event is checked against the one
// shape its type names, as zod's discriminated union does.
import { z } from "zod";
import type { JsonSchema } from "../fast-check/check";
import { jsonSchemaForFastCheck } from "../fast-check/json-schema";
import { useZod } from "../lazy-schema";
import { ChatChunk, ChatCompletion, ErrorBody, FunctionCallItem, MessageItem, ReasoningOutputItem, ResponseObject, ResponsesEvent, UrlCitation } from "./wire";
import { AnthropicEvent, AnthropicMessageObject } from "./wire-anthropic";

export interface PrebuiltWireSchemas {
  /** Each Responses stream event's schema, by its `type`. */
  events: Record<string, JsonSchema>;
  /** The output items SCV interprets, by their `type`. */
  items: Record<"function_call" | "message" | "reasoning", JsonSchema>;
  urlCitation: JsonSchema;
  errorBody: JsonSchema;
  responseObject: JsonSchema;
  chatChunk: JsonSchema;
  chatCompletion: JsonSchema;
  /** Each Anthropic Messages stream event's schema, by its `type`. */
  anthropicEvents: Record<string, JsonSchema>;
  anthropicMessage: JsonSchema;
}

export function prebuiltWireSchemas(): PrebuiltWireSchemas {
  useZod(z);
  const byType = (options: readonly z.ZodObject[]) => {
    const out: Record<string, JsonSchema> = {};
    for (const option of options) out[(option.shape.type as z.ZodLiteral<string>).value] = jsonSchemaForFastCheck(option);
    return out;
  };
  const events = byType(ResponsesEvent.options);
  return {
    events,
    items: { function_call: jsonSchemaForFastCheck(FunctionCallItem), message: jsonSchemaForFastCheck(MessageItem), reasoning: jsonSchemaForFastCheck(ReasoningOutputItem) },
    urlCitation: jsonSchemaForFastCheck(UrlCitation),
    errorBody: jsonSchemaForFastCheck(ErrorBody),
    responseObject: jsonSchemaForFastCheck(ResponseObject),
    chatChunk: jsonSchemaForFastCheck(ChatChunk),
    chatCompletion: jsonSchemaForFastCheck(ChatCompletion),
    anthropicEvents: byType(AnthropicEvent.options),
    anthropicMessage: jsonSchemaForFastCheck(AnthropicMessageObject),
  };
}
