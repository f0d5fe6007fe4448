// A bundle-time macro (rpc.ts imports it `with { type: "macro" }`): the JSON Schemas of the request envelope
// and of every request's params, made from schema.ts and inlined into the binary as plain data for
// fast-check.ts. A node whose zod schema checks or changes more than JSON Schema can state (a refinement, a
// format, a transform) is marked, so the fast check leaves it to zod.
import { z } from "zod";
import { useZod } from "../lazy-schema";
import { type JsonSchema, ZOD_DECIDES } from "./fast-check";
import { JsonRpcRequest, type RequestMethod, requests } from "./schema";

/** zod schema types whose JSON Schema says all that zod checks and returns. */
const STATED_TYPES = new Set(["object", "string", "number", "boolean", "null", "enum", "literal", "optional", "nullable", "array", "union", "unknown", "default"]);
/** zod checks whose JSON Schema keywords fast-check.ts applies the same way. */
const STATED_CHECKS = new Set(["less_than", "greater_than", "multiple_of", "number_format", "min_length", "max_length", "length_equals"]);

export function jsonSchemaForFastCheck(schema: z.ZodType): JsonSchema {
  return z.toJSONSchema(schema, {
    io: "input",
    unrepresentable: "any",
    override(ctx) {
      const def = ctx.zodSchema._zod.def as { type: string; checks?: { _zod: { def: { check: string } } }[] };
      const stated = STATED_TYPES.has(def.type) && (def.checks ?? []).every((c) => STATED_CHECKS.has(c._zod.def.check));
      if (!stated) ctx.jsonSchema[ZOD_DECIDES] = true;
    },
  }) as JsonSchema;
}

export function prebuiltRequestSchemas(): { envelope: JsonSchema; params: Record<RequestMethod, JsonSchema> } {
  useZod(z);
  const params = Object.fromEntries(Object.entries(requests).map(([method, spec]) => [method, jsonSchemaForFastCheck(spec.params)]));
  return { envelope: jsonSchemaForFastCheck(JsonRpcRequest), params: params as Record<RequestMethod, JsonSchema> };
}
