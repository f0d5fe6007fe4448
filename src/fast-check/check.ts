// Checking a value against its schema without zod, where zod's cost would land on every run: the protocol
// requests before a nested SCV child's first model request, and the model's stream events (provider/). zod's
// first parses in a fresh process cost milliseconds (its code runs for the first time, and loading it about
// 13 ms more), more than the rest of the handling together.
//
// The JSON Schemas checked here are made from the zod schemas at build time (./json-schema.ts, run by bun
// macros), so zod stays the one source. `certainlyValid` answers true only when zod would accept the value and
// return it unchanged; anything it is not sure of (a keyword it does not know, a check JSON Schema cannot state,
// a default zod would fill in, a key zod would strip) is false, and the caller then asks zod, which also words
// the error.

export type JsonSchema = { [keyword: string]: unknown };

/** Marks a node whose zod schema checks or changes more than its JSON Schema says (request-schemas.ts). */
export const ZOD_DECIDES = "x-zod-decides";

const IGNORED = new Set(["$schema", "description", "title", "default"]);
const KNOWN = new Set([
  ...IGNORED,
  "type",
  "properties",
  "required",
  "additionalProperties",
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "enum",
  "const",
  "anyOf",
  "items",
  "minItems",
  "maxItems",
]);

export function certainlyValid(schema: JsonSchema, value: unknown): boolean {
  const keywords = Object.keys(schema);
  for (const keyword of keywords) if (!KNOWN.has(keyword)) return false;
  // No constraint at all (z.unknown()): zod takes any value as it is.
  if (keywords.every((k) => IGNORED.has(k))) return value !== undefined;
  if ("anyOf" in schema) {
    // zod returns the first branch that accepts the value; that is the value itself only if no branch changes
    // what it accepts, so every branch must be one this check fully understands.
    const branches = schema.anyOf as JsonSchema[];
    if (!branches.every(pure)) return false;
    if (!branches.some((b) => certainlyValid(b, value))) return false;
    // A union and nothing else (z.union of objects): the branch that accepted the value said all there is.
    if (keywords.every((k) => k === "anyOf" || IGNORED.has(k))) return true;
  }
  if ("const" in schema && value !== schema.const) return false;
  if ("enum" in schema && !(schema.enum as unknown[]).includes(value)) return false;
  if ("type" in schema && !ofType(schema, value)) return false;
  if (typeof value === "string") return stringOk(schema, value);
  if (typeof value === "number") return numberOk(schema, value);
  if (Array.isArray(value)) return arrayOk(schema, value);
  if (value !== null && typeof value === "object") return objectOk(schema, value as Record<string, unknown>);
  return true;
}

function ofType(schema: JsonSchema, value: unknown): boolean {
  // zod writes a union of plain types as a list of types.
  if (Array.isArray(schema.type)) return schema.type.some((type) => ofType({ type }, value));
  switch (schema.type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return Number.isSafeInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "null":
      return value === null;
    case "array":
      return Array.isArray(value);
    case "object":
      return value !== null && typeof value === "object" && !Array.isArray(value);
    default:
      return false;
  }
}

function stringOk(s: JsonSchema, v: string): boolean {
  // zod counts UTF-16 code units (String#length), and so does this check.
  if (typeof s.minLength === "number" && v.length < s.minLength) return false;
  if (typeof s.maxLength === "number" && v.length > s.maxLength) return false;
  return true;
}

function numberOk(s: JsonSchema, v: number): boolean {
  if (typeof s.minimum === "number" && v < s.minimum) return false;
  if (typeof s.maximum === "number" && v > s.maximum) return false;
  if (typeof s.exclusiveMinimum === "number" && v <= s.exclusiveMinimum) return false;
  if (typeof s.exclusiveMaximum === "number" && v >= s.exclusiveMaximum) return false;
  if ("multipleOf" in s && !(s.multipleOf === 1 && Number.isInteger(v))) return false;
  return true;
}

function arrayOk(s: JsonSchema, v: unknown[]): boolean {
  if (typeof s.minItems === "number" && v.length < s.minItems) return false;
  if (typeof s.maxItems === "number" && v.length > s.maxItems) return false;
  if (!s.items) return false;
  return v.every((item) => certainlyValid(s.items as JsonSchema, item));
}

function objectOk(s: JsonSchema, v: Record<string, unknown>): boolean {
  const properties = (s.properties ?? {}) as Record<string, JsonSchema>;
  const open = isEmptySchema(s.additionalProperties);
  for (const key of Object.keys(v)) {
    const property = Object.hasOwn(properties, key) ? properties[key] : undefined;
    // A key the schema does not name: a strict object refuses it and a plain one strips it; only a loose one
    // (additionalProperties: {}) keeps it as it is.
    if (!property) {
      if (!open) return false;
      continue;
    }
    if (v[key] === undefined) return false; // JSON has no undefined; zod's handling of it is its own
    if (!certainlyValid(property, v[key])) return false;
  }
  for (const key of (s.required ?? []) as string[]) if (!Object.hasOwn(v, key)) return false;
  // A missing key whose schema has a default: zod would add it.
  for (const [key, property] of Object.entries(properties)) if (!Object.hasOwn(v, key) && "default" in property) return false;
  return true;
}

function isEmptySchema(s: unknown): boolean {
  return !!s && typeof s === "object" && Object.keys(s).length === 0;
}

/** No node here is one zod decides, and every keyword is known: what this check accepts, zod returns unchanged. */
function pure(schema: JsonSchema): boolean {
  return Object.entries(schema).every(([k, v]) => {
    if (!KNOWN.has(k)) return false;
    if (k === "properties") return Object.values(v as Record<string, JsonSchema>).every(pure);
    if (k === "anyOf") return (v as JsonSchema[]).every(pure);
    if (k === "items" || k === "additionalProperties") return typeof v !== "object" || v === null || pure(v as JsonSchema);
    return true;
  });
}
