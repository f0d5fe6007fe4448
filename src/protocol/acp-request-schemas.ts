// A bundle-time macro (src/acp-agent/methods.ts imports it `with { type: "macro" }`): the JSON Schemas of the ACP
// requests `scv acp` serves, made from acp.ts and inlined as plain data for fast-check/check.ts, so the requests before
// the first model request (session/new, session/prompt) are checked without zod, as `server --stdio` does.
import { z } from "zod";
import { useZod } from "../lazy-schema";
import { AgentInitializeParams, ListSessionsParams, LoadSessionParams, NewSessionParams, PromptParams, SessionIdParams } from "./acp";
import type { JsonSchema } from "../fast-check/check";
import { jsonSchemaForFastCheck } from "../fast-check/json-schema";

export function prebuiltAcpSchemas(): Record<string, JsonSchema> {
  useZod(z);
  return {
    initialize: jsonSchemaForFastCheck(AgentInitializeParams),
    "session/new": jsonSchemaForFastCheck(NewSessionParams),
    "session/load": jsonSchemaForFastCheck(LoadSessionParams),
    "session/resume": jsonSchemaForFastCheck(LoadSessionParams),
    "session/list": jsonSchemaForFastCheck(ListSessionsParams),
    "session/close": jsonSchemaForFastCheck(SessionIdParams),
    "session/prompt": jsonSchemaForFastCheck(PromptParams),
  };
}
