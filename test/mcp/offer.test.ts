// How MCP tools are named and offered beside the built-ins: sanitised names, and collisions that refuse the
// later offer whole, naming both sides.
import { describe, expect, test } from "bun:test";
import { offeredName } from "../../src/mcp/names";
import { JsonLineReader, type LineEvent } from "../../src/mcp/lines";
import { failure, ToolRegistry, type Tool } from "../../src/tools/tool";

const tool = (name: string): Tool => ({
  name,
  description: name,
  jsonSchema: { type: "object" },
  assess: async () => ({ ok: false, result: failure("unused") }),
  run: async () => failure("unused"),
});
const ctx = { signal: new AbortController().signal, approve: async () => ({ approved: true, reason: "" }), progress() {} };

describe("offered names", () => {
  test("<server>__<tool>, with characters providers refuse replaced", () => {
    expect(offeredName("github", "create_issue")).toBe("github__create_issue");
    expect(offeredName("fs", "read.file/v2")).toBe("fs__read_file_v2");
  });
  test("capped at 64 characters, ending in a digest so long names stay apart", () => {
    const a = offeredName("server", `${"x".repeat(80)}a`);
    const b = offeredName("server", `${"x".repeat(80)}b`);
    expect(a.length).toBe(64);
    expect(b.length).toBe(64);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[A-Za-z0-9_-]+$/);
  });
});

describe("collisions", () => {
  test("a server's tool named like a built-in refuses that server's offer, naming both", async () => {
    const registry = new ToolRegistry();
    registry.register(tool("read"));
    registry.addSource({ offers: async () => ({ offers: [{ source: 'MCP server "x" (user config)', tools: [tool("x__ok"), tool("read")] }], notices: [] }) });
    const notices = await registry.refresh(ctx);
    expect(notices[0]).toContain('MCP server "x" (user config) is not offered: its tool name "read" collides with the built-in tool');
    expect(registry.list().map((t) => t.name)).toEqual(["read"]);
  });

  test("two servers offering the same name: the second is refused, naming the first", async () => {
    const registry = new ToolRegistry();
    registry.addSource({
      offers: async () => ({
        offers: [
          { source: 'MCP server "a_" (user)', tools: [tool("a___b")] },
          { source: 'MCP server "a" (project)', tools: [tool("a___b"), tool("a__c")] },
        ],
        notices: [],
      }),
    });
    const notices = await registry.refresh(ctx);
    expect(notices[0]).toContain('MCP server "a" (project) is not offered');
    expect(notices[0]).toContain('a tool of MCP server "a_" (user)');
    expect(registry.list().map((t) => t.name)).toEqual(["a___b"]);
    expect(registry.get("a__c")).toBeUndefined();
  });
});

describe("the line reader", () => {
  test("a message over the bound is reported once, without buffering it whole", () => {
    const got: LineEvent[] = [];
    const reader = new JsonLineReader(1024, (e) => got.push(e));
    reader.push(new TextEncoder().encode('{"jsonrpc":"2.0","method":"a"}\n'));
    for (let i = 0; i < 100; i++) reader.push(new Uint8Array(512).fill(120));
    expect(got.map((e) => e.kind)).toEqual(["message", "oversized"]);
  });
  test("a line split across chunks is joined; an invalid line stops the reader", () => {
    const got: LineEvent[] = [];
    const reader = new JsonLineReader(1024, (e) => got.push(e));
    const enc = new TextEncoder();
    reader.push(enc.encode('{"id":1,'));
    reader.push(enc.encode('"result":{}}\nnot json\n{"id":2}\n'));
    expect(got[0]).toEqual({ kind: "message", value: { id: 1, result: {} } });
    expect(got[1]).toEqual({ kind: "invalid", sample: "not json" });
    expect(got).toHaveLength(2);
  });
});
