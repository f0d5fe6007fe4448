import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { certainlyValid } from "../../src/fast-check/check";
import { jsonSchemaForFastCheck } from "../../src/fast-check/json-schema";
import { prebuiltRequestSchemas } from "../../src/protocol/request-schemas";
import { JsonRpcRequest, type RequestMethod, requests } from "../../src/protocol/schema";
import { variants } from "./variants";

const built = prebuiltRequestSchemas();

const samples: Record<RequestMethod, Record<string, unknown>[]> = {
  initialize: [{ protocol_version: 3 }, { protocol_version: 3, client: { name: "t", version: "1" } }],
  "session.start": [
    { cwd: "/tmp", delegation_depth: 1, questions: true },
    { cwd: "/w", auto_approve: true, tools: false, model: "m", reasoning_effort: "high", channel: { kind: "dir", account: "a", conversation: "c", log: "/l" } },
  ],
  "session.resume": [{ session_id: "s-1", delegation_depth: 0, auto_approve: false, model: "m" }],
  "turn.start": [{ session_id: "s-1", prompt: "hello" }],
  "turn.cancel": [{ session_id: "s-1", turn_id: "t1" }],
  "approval.resolve": [{ session_id: "s-1", approval_id: "a1", approved: true }],
  "clarify.answer": [{ session_id: "s-1", clarify_id: "q-1", answer: "the blue one" }, { session_id: "s-1", clarify_id: "q-1" }],
  "session.configure": [{ session_id: "s-1", model: "m" }, { session_id: "s-1", provider: "local", model: "m", reasoning_effort: "low" }],
  "session.compact": [{ session_id: "s-1" }],
  "session.close": [{ session_id: "s-1" }],
  "session.checkpoints": [{ session_id: "s-1" }],
  "session.rewind": [{ session_id: "s-1", to_turn: "t1", files: true, conversation: false, apply: true, overwrite: ["a.txt"] }, { session_id: "s-1", undo: true }],
};

/** What the fast check accepts, zod accepts and returns unchanged. */
function expectAgreement(schema: z.ZodType, json: ReturnType<typeof jsonSchemaForFastCheck>, value: unknown) {
  if (!certainlyValid(json, value)) return false;
  const parsed = schema.safeParse(value);
  expect({ value, success: parsed.success }).toEqual({ value, success: true });
  expect(parsed.data).toEqual(value as never);
  return true;
}

describe("the fast check never accepts what zod refuses or changes", () => {
  for (const method of Object.keys(requests) as RequestMethod[]) {
    test(method, () => {
      let accepted = 0;
      for (const base of samples[method]) for (const v of variants(base)) if (expectAgreement(requests[method].params, built.params[method], v)) accepted++;
      // The common, well-formed requests take the fast path.
      for (const base of samples[method]) expect(certainlyValid(built.params[method], base)).toBe(true);
      expect(accepted).toBeGreaterThanOrEqual(samples[method].length);
    });
  }

  test("the envelope", () => {
    const base = { jsonrpc: "2.0", id: 1, method: "turn.start", params: { session_id: "s", prompt: "p" } };
    for (const v of variants(base)) expectAgreement(JsonRpcRequest, built.envelope, v);
    for (const id of [1, "a", 2 ** 60, -3]) expect(certainlyValid(built.envelope, { ...base, id })).toBe(true);
    expect(certainlyValid(built.envelope, { ...base, id: 1.5 })).toBe(false);
  });
});

describe("what the fast check leaves to zod", () => {
  const check = (schema: z.ZodType, value: unknown) => certainlyValid(jsonSchemaForFastCheck(schema), value);

  test("refinements, formats, transforms and trims", () => {
    expect(check(z.string().refine((s) => s !== "x"), "x")).toBe(false);
    expect(check(z.email(), "not an address")).toBe(false);
    expect(check(z.string().regex(/^a$/), "b")).toBe(false);
    expect(check(z.string().trim(), " a ")).toBe(false);
    expect(check(z.string().transform((s) => s.length), "abc")).toBe(false);
    expect(check(z.strictObject({ a: z.string().refine(() => false).optional() }), { a: "x" })).toBe(false);
  });

  test("defaults zod would fill in and keys it would strip", () => {
    expect(check(z.object({ n: z.number().default(3) }), {})).toBe(false);
    expect(check(z.object({ n: z.number().default(3) }), { n: 4 })).toBe(true);
    expect(check(z.object({ a: z.string() }), { a: "x", b: 1 })).toBe(false);
    expect(check(z.looseObject({ a: z.string() }), { a: "x", b: 1 })).toBe(true);
  });

  test("a union whose branches change values is left to zod even where a plain branch matches", () => {
    const schema = z.union([z.string().transform((s) => s.toUpperCase()), z.string()]);
    expect(check(schema, "abc")).toBe(false);
    expect(schema.parse("abc")).toBe("ABC");
    expect(check(z.union([z.string(), z.number()]), 3)).toBe(true);
  });

  test("a union of objects (an ACP prompt block) is taken when one branch takes the value whole", () => {
    const block = z.union([z.looseObject({ type: z.literal("text"), text: z.string() }), z.looseObject({ type: z.literal("link"), uri: z.string() })]);
    expect(check(block, { type: "text", text: "hi" })).toBe(true);
    expect(check(block, { type: "link", uri: "file:///a", name: "a" })).toBe(true);
    expect(check(block, { type: "text" })).toBe(false);
    expect(block.safeParse({ type: "text" }).success).toBe(false);
    // A plain (stripping) branch that would drop a key is still left to zod.
    const strips = z.union([z.object({ type: z.literal("text") }), z.object({ type: z.literal("link") })]);
    expect(check(strips, { type: "text", extra: 1 })).toBe(false);
  });

  test("records and unknown keywords", () => {
    expect(check(z.record(z.string(), z.number()), { a: 1 })).toBe(false);
    expect(certainlyValid({ type: "string", format: "email" }, "a@b")).toBe(false);
  });
});
