// The tool extension contract: unique names, JSON Schema from zod, declared risk and summary, an executor whose
// failures (invalid arguments, thrown errors, cancellation) become results the model reads, and output limits.
import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { buildTools } from "../../src/tools/index";
import { PREBUILT_PARAMETERS } from "../../src/tools/parameters";
import { ToolError } from "../../src/errors";
import { TOOL_RISKS } from "../../src/scope";
import { cutUtf8, limitText } from "../../src/text/cut";
import { defineTool, jsonSchemaOf, ToolRegistry } from "../../src/tools/tool";
import { invokeTool, makeCallContext, makeScope } from "../fake/scope";

function echoTool(name = "echo", execute?: (args: { text: string; times?: number }) => Promise<string>) {
  return defineTool({
    name,
    description: "Repeats text",
    parameters: z.strictObject({ text: z.string().describe("what to repeat"), times: z.number().int().min(1).optional() }),
    risk: (args) => (args.text.includes("danger") ? "process" : "read_only"),
    summary: (args) => `echo ${args.text}`,
    execute: execute ?? (async (args) => args.text.repeat(args.times ?? 1)),
  });
}

describe("definition", () => {
  test("the JSON Schema comes from the zod parameters", () => {
    const schema = echoTool().jsonSchema;
    expect(schema.type).toBe("object");
    expect(schema.required).toEqual(["text"]);
    expect(schema.additionalProperties).toBe(false);
    expect((schema.properties as Record<string, { description?: string }>).text!.description).toBe("what to repeat");
    expect(schema.$schema).toBeUndefined();
  });

  test("the stable risk values", () => {
    expect([...TOOL_RISKS]).toEqual(["read_only", "filesystem", "process", "delegate", "network"]);
  });

  test("a name that is not a lower-case identifier is refused at definition", () => {
    expect(() => echoTool("Bad Name")).toThrow(/tool name "Bad Name" must match/);
  });

  test("registration rejects a duplicate name", () => {
    const registry = new ToolRegistry();
    registry.register(echoTool());
    expect(() => registry.register(echoTool())).toThrow('a tool named "echo" is already registered');
    expect(registry.list().map((t) => t.name)).toEqual(["echo"]);
  });

  test("the built-in tools register without clashing and each declares a schema", () => {
    const tools = buildTools(makeScope(), { enabled: true }).list();
    const names = tools.map((t) => t.name);
    expect(names).toContain("read");
    expect(names).toContain("write");
    expect(names).toContain("bash");
    expect(new Set(names).size).toBe(names.length);
    for (const t of tools) expect(t.jsonSchema.type).toBe("object");
    expect(buildTools(makeScope(), { enabled: false }).list()).toEqual([]);
  });

  test("the JSON Schemas made at build time are exactly what converting the parameters gives", () => {
    for (const [name, parameters] of Object.entries(PREBUILT_PARAMETERS)) {
      const converted = z.toJSONSchema(parameters, { io: "input" }) as Record<string, unknown>;
      delete converted.$schema;
      // The seeded schema (tools/index.ts loaded above), compared as text so key order counts too.
      expect(`${name} ${JSON.stringify(jsonSchemaOf(parameters))}`).toBe(`${name} ${JSON.stringify(converted)}`);
    }
    expect(Object.keys(PREBUILT_PARAMETERS)).toContain("read");
  });
});

describe("calls", () => {
  test("risk and summary are decided from the arguments before the call runs", async () => {
    const scope = makeScope();
    const ctx = makeCallContext(scope);
    expect(await invokeTool(echoTool(), { text: "hi", times: 2 }, ctx)).toMatchObject({ risk: "read_only", summary: "echo hi", result: { ok: true, output: "hihi" } });
    expect((await invokeTool(echoTool(), { text: "danger" }, ctx)).risk).toBe("process");
  });

  test("arguments of the wrong shape become a model-facing error naming each field, and nothing runs", async () => {
    let ran = false;
    const tool = echoTool("echo", async () => ((ran = true), ""));
    const ctx = makeCallContext(makeScope());
    for (const raw of [{ text: 5 }, { text: "x", times: 0 }, { text: "x", extra: 1 }, [], "text", null, 7]) {
      const assessed = await tool.assess(raw, ctx);
      expect(assessed.ok).toBe(false);
      if (assessed.ok) continue;
      expect(assessed.result.ok).toBe(false);
      expect(assessed.result.output).toContain("The echo tool was called with invalid arguments");
      expect(assessed.result.output).toContain("Rewrite the input");
    }
    const bad = await tool.assess({ text: 5, times: 1.5 }, ctx);
    expect(!bad.ok && bad.result.output).toMatch(/text: .*string.*; times: /);
    expect(ran).toBe(false);
  });

  test("a thrown ToolError is the result text; other errors say what they were; a cancelled call says so", async () => {
    const ctx = makeCallContext(makeScope());
    const toolError = echoTool("a", async () => {
      throw new ToolError("the file is gone; read it again");
    });
    expect((await invokeTool(toolError, { text: "x" }, ctx)).result).toEqual({ ok: false, output: "the file is gone; read it again" });
    const typeError = echoTool("b", async () => {
      throw new TypeError("x is not a function");
    });
    expect((await invokeTool(typeError, { text: "x" }, ctx)).result).toEqual({ ok: false, output: "TypeError: x is not a function" });
    const cancelled = makeCallContext(makeScope());
    cancelled.cancel();
    const aborted = echoTool("c", async () => {
      throw new Error("aborted");
    });
    expect((await invokeTool(aborted, { text: "x" }, cancelled)).result).toEqual({ ok: false, output: "cancelled" });
  });

  test("a result longer than the output limit is cut on a character boundary with a note", async () => {
    const ctx = makeCallContext(makeScope(), { outputLimitBytes: 1024 });
    const { result } = await invokeTool(echoTool(), { text: "é", times: 5000 }, ctx);
    expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(1024);
    expect(result.output).toEndWith("[output truncated to 1024 bytes]");
    expect(result.output).not.toContain("\uFFFD");
  });
});

describe("text limits", () => {
  test("limitText leaves short text alone and never exceeds the limit", () => {
    expect(limitText("short", 100)).toBe("short");
    for (const limit of [40, 41, 42, 43, 100]) expect(Buffer.byteLength(limitText("€".repeat(200), limit))).toBeLessThanOrEqual(limit);
  });
  test("cutUtf8 never splits a character", () => {
    expect(cutUtf8("a€b", 1)).toBe("a");
    expect(cutUtf8("a€b", 2)).toBe("a");
    expect(cutUtf8("a€b", 3)).toBe("a");
    expect(cutUtf8("a€b", 4)).toBe("a€");
    expect(cutUtf8("a€b", 5)).toBe("a€b");
  });
});
