// Delegated agents over ACP get the user's servers marked share_with_agents in session/new (stdio always, HTTP
// only for an agent that declares mcpCapabilities.http); the others stay SCV's own.
import { describe, expect, test } from "bun:test";
import { McpServerConfig } from "../../src/config/schema";
import { acpCall, acpFixtures, script } from "../fake/acp-harness";

const setup = acpFixtures();

describe("share_with_agents", () => {
  test("session/new carries the shared stdio servers with their resolved environment; unshared and project servers stay out", async () => {
    const servers = {
      tools: McpServerConfig.parse({ command: "/usr/bin/tool-mcp", args: ["--stdio"], env: { TOOL_TOKEN: "tok-1234" }, share_with_agents: true }),
      mine: McpServerConfig.parse({ command: "/usr/bin/mine" }),
      remote: McpServerConfig.parse({ url: "https://mcp.example.com/mcp", share_with_agents: true }),
      repo: { ...McpServerConfig.parse({ command: "./repo-mcp" }), share_with_agents: true, project: "/ws/.scv/config.toml" },
    };
    const { f, tool } = setup({ servers: ["claude"], config: { mcp: { max_message_bytes: 16 * 1024 * 1024, servers } } as never });
    const done = await acpCall(f, tool, { agent: "claude", prompt: script([{ say: "ok" }]) });
    expect(done.json).toMatchObject({ status: "completed", reply: "ok" });
    const created = f.servers()[0]!.received.find((m) => m.method === "session/new") as any;
    expect(created.params.mcpServers).toHaveLength(1);
    const [shared] = created.params.mcpServers;
    expect(shared).toMatchObject({ name: "tools", command: "/usr/bin/tool-mcp", args: ["--stdio"] });
    expect(shared.env).toContainEqual({ name: "TOOL_TOKEN", value: "tok-1234" });
    expect(shared.type).toBeUndefined();
  });
});
