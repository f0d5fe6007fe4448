import { describe, expect, test } from "bun:test";
import { listRecords } from "../../../src/process/delegations";
import { acpCall, acpFixtures, script } from "../../fake/acp-harness";

const setup = acpFixtures();

describe("conversation over ACP", () => {
  test("one server per conversation: initialize, session/new, prompt per call on the same session", async () => {
    const { f, tool } = setup({ servers: ["claude"] });
    const first = await acpCall(f, tool, { agent: "claude", prompt: script([{ informational: "Using a custom gateway\n" }, { say: "Hello " }, { say: "there" }], { usage: { inputTokens: 10, outputTokens: 4, cachedReadTokens: 2 } }) });
    expect(first.json).toMatchObject({ agent: "claude", status: "completed", reply: "Hello there", session: "claude-1", turn: 1, usage: { input_tokens: 12, output_tokens: 4 } });
    // Between turns the server is recorded and listed as idle.
    const records = listRecords(f.scvHome);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ agent: "claude", conversation: "claude-1", turn: 1 });
    expect(records[0]!.idle_since_unix).toBeNumber();

    const second = await acpCall(f, tool, { session: "claude-1", prompt: script([{ say: "again" }]) });
    expect(second.json).toMatchObject({ status: "completed", reply: "again", session: "claude-1", turn: 2 });
    const servers = f.servers();
    expect(servers).toHaveLength(1);
    const methods = servers[0]!.received.map((m) => m.method);
    expect(methods).toEqual(["initialize", "session/new", "session/prompt", "session/prompt"]);
    const init = servers[0]!.received[0] as any;
    expect(init.params).toMatchObject({ protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false }, clientInfo: { name: "scv" } });
    const created = servers[0]!.received[1] as any;
    expect(created.params).toEqual({ cwd: f.scope.workspace, mcpServers: [] });
    // The private home and a private TMPDIR inside it.
    expect(servers[0]!.env.HOME).toBe(`${f.scvHome}/agents/claude`);
    expect(servers[0]!.env.TMPDIR).toStartWith(`${f.scvHome}/agents/claude/tmp/`);
  });

  test("grok and dsh run their built-in servers and take session over ACP", async () => {
    const { f, tool } = setup({ servers: ["grok", "dsh"] });
    const schema = tool.jsonSchema as { properties: Record<string, unknown> };
    expect(Object.keys(schema.properties)).toContain("session");
    const g = await acpCall(f, tool, { agent: "grok", prompt: script([{ say: "from grok" }]) });
    expect(g.json).toMatchObject({ status: "completed", reply: "from grok", session: "grok-1" });
    const d = await acpCall(f, tool, { agent: "dsh", prompt: script([{ say: "from dsh" }]) });
    expect(d.json).toMatchObject({ status: "completed", reply: "from dsh", session: "dsh-1" });
    const byFlavour = Object.fromEntries(f.servers().map((s) => [s.flavour, s.args]));
    expect(byFlavour.grok).toEqual(["agent", "stdio"]);
    expect(byFlavour.dsh).toEqual(["--profile", "acp"]);
    const refused = await acpCall(f, tool, { agent: "dsh", model: "x", prompt: "hi" });
    expect(refused.result.output).toContain("dsh does not take model");
  });
});
