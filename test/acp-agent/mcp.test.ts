// The editor's MCP servers: `mcpServers` in session/new reach SCV's MCP room. The connection is approved by the
// editor (a session/request_permission), then the server's tools are offered and run (server-everything, the
// reference server from npm, over stdio).
import { afterEach, expect, test } from "bun:test";
import { fakeHome, fakeModelForFile } from "../fake/binary";
import { type Editor, initialize, startEditor } from "../fake/acp-editor";
import { EVERYTHING, JS_RUNTIME } from "../fake/mcp-servers";
import { text, toolCalls } from "../fake/model-server";

const fake = fakeModelForFile();
const editors: Editor[] = [];
afterEach(async () => {
  await Promise.all(editors.splice(0).map((e) => e.stop()));
  fake.clear();
});

test("an editor's stdio MCP server is connected after the editor approves, and its tools run", async () => {
  const home = fakeHome(fake.url);
  const e = startEditor({ env: home.env, cwd: home.workspace, answer: () => "allow-once" });
  editors.push(e);
  await initialize(e);
  const init = await e.request("initialize", { protocolVersion: 1 });
  expect(init.agentCapabilities.mcpCapabilities).toEqual({ http: true, sse: false });
  const s = await e.request("session/new", {
    cwd: home.workspace,
    mcpServers: [
      { name: "everything", command: JS_RUNTIME, args: [EVERYTHING], env: [{ name: "EDITOR_TOKEN", value: "from-the-editor" }] },
      { name: "has space", command: JS_RUNTIME, args: [], env: [] },
    ],
  });
  fake.queue(toolCalls([{ id: "m1", name: "everything__echo", arguments: { message: "hello from the editor's server" } }]), text("echoed"));
  const r = await e.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "use the server" }] });
  expect(r.stopReason).toBe("end_turn");
  // The first request offered the server's tools beside the built-ins.
  const offered = (fake.requests.at(-2)!.body.tools as any[]).map((t) => t.name);
  expect(offered).toContain("everything__echo");
  expect(offered).toContain("read");
  // Connecting was the editor's decision.
  expect(e.permissions.some((p) => JSON.stringify(p.toolCall).includes("everything"))).toBe(true);
  const done = e.updates.filter((u) => u.update.toolCallId === "m1").at(-1)!.update;
  expect(done.status).toBe("completed");
  expect(JSON.stringify(done.content)).toContain("Echo: hello from the editor's server");
  const stderr = e.stderr();
  await e.stop();
  expect(await stderr).toContain('MCP server "has space" is not used');
}, 30_000);

test("two editor servers are asked for in one permission request offering each alone; 'allow only' connects that one", async () => {
  const home = fakeHome(fake.url);
  const e = startEditor({ env: home.env, cwd: home.workspace, answer: (p) => (p.options.some((o: any) => o.optionId === "allow-only:second") ? "allow-only:second" : "reject-once") });
  editors.push(e);
  await initialize(e);
  const s = await e.request("session/new", {
    cwd: home.workspace,
    mcpServers: ["first", "second"].map((name) => ({ name, command: JS_RUNTIME, args: [EVERYTHING], env: [] })),
  });
  fake.queue(text("connected one"));
  expect((await e.request("session/prompt", { sessionId: s.sessionId, prompt: [{ type: "text", text: "hi" }] })).stopReason).toBe("end_turn");
  expect(e.permissions).toHaveLength(1);
  const [asked] = e.permissions;
  expect(asked.toolCall.title).toBe("mcp.connect");
  expect(asked.options.map((o: any) => [o.optionId, o.name])).toEqual([
    ["allow-once", "Allow all for this session"],
    ["allow-always", "Allow all for this workspace"],
    ["allow-only:first", "Allow only first for this session"],
    ["allow-only:second", "Allow only second for this session"],
    ["reject-once", "Reject"],
  ]);
  const offered = (fake.requests.at(-1)!.body.tools as any[]).map((t) => t.name);
  expect(offered).toContain("second__echo");
  expect(offered.some((n) => n.startsWith("first__"))).toBe(false);
}, 30_000);
