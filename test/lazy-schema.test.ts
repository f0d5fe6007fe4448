import { expect, test } from "bun:test";
import { z } from "zod";
import { lazySchema } from "../src/lazy-schema";

test("a lazy schema is built at its first use, once, and then behaves as the schema itself", () => {
  let builds = 0;
  const Inner = lazySchema(() => {
    builds++;
    return z.strictObject({ a: z.string().min(1), n: z.number().int().default(3) }).describe("an inner thing");
  });
  const Outer = lazySchema(() => z.object({ inner: Inner.optional(), list: z.array(Inner).default([]), rec: z.record(z.string(), Inner).optional() }));
  expect(builds).toBe(0);

  expect(Outer.parse({ inner: { a: "x" } })).toEqual({ inner: { a: "x", n: 3 }, list: [] });
  expect(builds).toBe(1);
  const bad = Outer.safeParse({ inner: { a: "", extra: 1 } });
  expect(bad.success).toBe(false);
  expect(bad.error!.issues.map((i) => i.path.join("."))).toEqual(["inner.a", "inner"]);
  expect(Object.keys(Inner.shape)).toEqual(["a", "n"]);
  expect(Inner instanceof z.ZodObject).toBe(true);
  expect(Inner instanceof z.ZodString).toBe(false);
  expect(Inner.extend({ b: z.boolean() }).parse({ a: "y", b: true })).toEqual({ a: "y", n: 3, b: true });
  expect(Inner.description).toBe("an inner thing");
  // The protocol docs and the tools' JSON Schemas read descriptions through the stand-in.
  expect((z.toJSONSchema(Inner) as { description?: string }).description).toBe("an inner thing");
  expect(builds).toBe(1);
});

test("a lazy schema works inside discriminated unions and records", () => {
  const A = lazySchema(() => z.object({ k: z.literal("a") }));
  const U = z.discriminatedUnion("k", [A, z.object({ k: z.literal("b"), v: z.number() })]);
  expect(U.parse({ k: "a" })).toEqual({ k: "a" });
  expect(U.safeParse({ k: "c" }).success).toBe(false);
});

test("a schema that uses itself while being built says to use z.lazy", () => {
  const Node: z.ZodType = lazySchema(() => z.object({ next: Node.optional() }));
  expect(() => Node.parse({})).toThrow("write the recursive reference as z.lazy(() => Schema)");
  const Tree: z.ZodType<{ next?: unknown }> = lazySchema(() => z.object({ next: z.lazy(() => Tree).optional() }));
  expect(Tree.parse({ next: { next: {} } })).toEqual({ next: { next: {} } });
});
