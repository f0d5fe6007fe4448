// Many MCP tools do not swell every request: through the compiled binary and the scripted model, a real stdio
// server with 60 tools (built with the SDK, test/fake/mcp-many-tools.ts) adds less than the schema budget to the
// first request; a deferred tool is found with load_tools, offered whole from the next request, and called.
// Below the budget (server-everything, or a budget raised over the set) every schema is offered as before.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { fakeHome, fakeModelForFile, runBinary } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";
import { everythingStdio, serverToml } from "../fake/mcp-servers";

const fake = fakeModelForFile();
setDefaultTimeout(60_000);
const MANY = join(import.meta.dir, "..", "fake", "mcp-many-tools.ts");
const many = serverToml("many", { command: process.execPath, args: [MANY, "60"] });
const offered = (request: any): string[] => (request?.body?.tools ?? []).map((t: any) => t.name ?? t.function?.name);
const bodyBytes = (request: any) => Buffer.byteLength(JSON.stringify(request.body));

async function firstRequest(extra: string, prompt = "hi") {
  const h = fakeHome(fake.url, extra);
  fake.queue(text("hi"));
  const before = fake.requests.length;
  const r = await runBinary(["exec", "--yes", prompt], h.env, h.workspace);
  expect(r.code).toBe(0);
  return { h, request: fake.requests[before]! };
}

describe("the MCP schema budget", () => {
  test("60 tools: the first request grows by less than the 8 KB budget; a deferred tool is found, loaded and called", async () => {
    const none = await firstRequest("");
    const { h, request } = await firstRequest(many);
    const grown = bodyBytes(request) - bodyBytes(none.request);
    const whole = await firstRequest(`[mcp]\nschema_budget_bytes = 100000\n${many}`);
    console.log(`first request: ${bodyBytes(none.request)} bytes with no MCP server; with 60 MCP tools ${bodyBytes(request)} (+${grown}) by name, ${bodyBytes(whole.request)} (+${bodyBytes(whole.request) - bodyBytes(none.request)}) whole`);
    expect(grown).toBeGreaterThan(0);
    expect(grown).toBeLessThan(8192);
    const names = offered(request);
    expect(names).toContain("load_tools");
    expect(names.filter((n) => n.startsWith("many__"))).toEqual([]);
    const loader = request.body.tools.find((t: any) => (t.name ?? t.function?.name) === "load_tools");
    expect(JSON.stringify(loader)).toContain("many__customer_export_25: Export a customer record in the billing system.");

    fake.queue(
      toolCalls([{ name: "load_tools", arguments: { query: "customer export" } }]),
      toolCalls([{ name: "many__customer_export_25", arguments: { id: "CUS-7" } }]),
      text("exported"),
    );
    const before = fake.requests.length;
    const r = await runBinary(["exec", "--yes", "--json", "export customer CUS-7"], h.env, h.workspace);
    expect(r.code).toBe(0);
    const [ask, afterLoad, afterCall] = fake.requests.slice(before);
    expect(offered(ask)).not.toContain("many__customer_export_25");
    expect(JSON.stringify(afterLoad!.body.input)).toContain('"name\\":\\"many__customer_export_25\\"');
    const loaded = afterLoad!.body.tools.find((t: any) => (t.name ?? t.function?.name) === "many__customer_export_25");
    expect(JSON.stringify(loaded)).toContain("audit log");
    expect(offered(afterLoad).filter((n) => n.startsWith("many__"))).toEqual(["many__customer_export_25"]);
    expect(JSON.stringify(afterCall!.body.input)).toContain("\"customer_export_25 done: CUS-7");
  });

  test("below the budget nothing changes: server-everything's tools, and 60 tools under a raised budget, are offered whole", async () => {
    const { request } = await firstRequest(serverToml("everything", everythingStdio()));
    expect(offered(request)).toContain("everything__echo");
    expect(offered(request)).not.toContain("load_tools");
    const raised = await firstRequest(`[mcp]\nschema_budget_bytes = 100000\n${many}`);
    expect(offered(raised.request).filter((n) => n.startsWith("many__"))).toHaveLength(60);
    expect(offered(raised.request)).not.toContain("load_tools");
    expect(raised.request.body.tools.find((t: any) => (t.name ?? t.function?.name) === "many__customer_export_25").parameters.required).toEqual(["id"]);
  });
});
