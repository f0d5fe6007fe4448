// Build time only (bun macros import it): the JSON Schema of a zod schema for the fast check (./check.ts), with
// every node whose zod schema checks or changes more than JSON Schema can state (a refinement, a format, a
// transform, a default) marked, so the check leaves that node to zod. zod stays the one source of each shape.
import { z } from "zod";
import { type JsonSchema, ZOD_DECIDES } from "./check";

/** zod schema types whose JSON Schema says all that zod checks and returns. */
const STATED_TYPES = new Set(["object", "string", "number", "boolean", "null", "enum", "literal", "optional", "nullable", "array", "union", "unknown", "default"]);
/** zod checks whose JSON Schema keywords ./check.ts applies the same way. */
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
