// A bundle-time macro (rpc.ts imports it `with { type: "macro" }`): the JSON Schemas of the request envelope
// and of every request's params, made from schema.ts and inlined into the binary as plain data for
// fast-check/check.ts. A node whose zod schema checks or changes more than JSON Schema can state (a refinement, a
// format, a transform) is marked, so the fast check leaves it to zod.
import { z } from "zod";
import type { JsonSchema } from "../fast-check/check";
import { jsonSchemaForFastCheck } from "../fast-check/json-schema";
import { useZod } from "../lazy-schema";
import { JsonRpcRequest, type RequestMethod, requests } from "./schema";

export function prebuiltRequestSchemas(): { envelope: JsonSchema; params: Record<RequestMethod, JsonSchema> } {
  useZod(z);
  const params = Object.fromEntries(Object.entries(requests).map(([method, spec]) => [method, jsonSchemaForFastCheck(spec.params)]));
  return { envelope: jsonSchemaForFastCheck(JsonRpcRequest), params: params as Record<RequestMethod, JsonSchema> };
}
