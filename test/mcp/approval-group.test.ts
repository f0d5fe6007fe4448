// One approval for the MCP servers a session is about to connect: through `scv server --stdio` with two real
// stdio servers (the stand-in, behaving), the request lists both with `choices`; approving one of them connects
// only that one (the other is noted and stays unstarted), and "always" keeps only the approved one for this
// workspace. A single server is still asked alone, as mcp.connect:<name>.
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, fakeModelForFile } from "../fake/binary";
import { text } from "../fake/model-server";
import { hostile, serverToml } from "../fake/mcp-servers";
import { startStdioServer, type StdioServer } from "../fake/stdio-client";

const fake = fakeModelForFile();
setDefaultTimeout(30_000);
let server: StdioServer | undefined;
afterEach(async () => {
  await server?.kill();
  server = undefined;
  fake.clear();
});
const offered = (request: any): string[] => (request?.body?.tools ?? []).map((t: any) => t.name ?? t.function?.name);

async function twoServers() {
  const h = fakeHome(fake.url);
  const pid = (n: string) => join(h.workspace, `${n}.pid`);
  writeFileSync(join(h.home, "config.toml"), readFileSync(join(h.home, "config.toml"), "utf8") + serverToml("alpha", hostile("well", { args: ["--pid", pid("alpha")] })) + serverToml("beta", hostile("well", { args: ["--pid", pid("beta")] })));
  server = startStdioServer(h.env, h.workspace);
  await server.call("initialize", { protocol_version: 3 });
  const sid = (await server.call("session.start", { cwd: h.workspace })).result.session_id as string;
  return { h, sid, pid };
}

describe("one approval for the servers about to connect", () => {
  test("both listed in one request; approving one connects only it, and always keeps only it for this workspace", async () => {
    const { h, sid, pid } = await twoServers();
    fake.queue(text("hello"));
    const before = fake.requests.length;
    await server!.call("turn.start", { session_id: sid, prompt: "hi" });
    const ask = await server!.waitFor((m) => m.method === "approval.requested");
    expect(ask.params.tool).toBe("mcp.connect");
    expect(ask.params.choices).toEqual(["alpha", "beta"]);
    expect(ask.params.rememberable).toBe(true);
    expect(ask.params.summary).toContain('connect to 2 MCP servers:');
    expect(ask.params.summary).toContain('connect to MCP server "alpha"');
    expect(ask.params.summary).toContain('connect to MCP server "beta"');
    expect(server!.messages.filter((m) => m.method === "approval.requested")).toHaveLength(1);
    await server!.call("approval.resolve", { session_id: sid, approval_id: ask.params.approval_id, approved: true, remember: "workspace", chosen: ["alpha"] });
    const notice = await server!.waitFor((m) => m.method === "model.notice" && m.params.message.includes('"beta"'));
    expect(notice.params.message).toContain('MCP server "beta" is not connected: left out when the others were approved');
    await server!.waitFor((m) => m.method === "turn.ended");
    const names = offered(fake.requests[before]);
    expect(names).toContain("alpha__hello");
    expect(names.some((n) => n.startsWith("beta__"))).toBe(false);
    expect(existsSync(pid("alpha"))).toBe(true);
    expect(existsSync(pid("beta"))).toBe(false);
    const grants = JSON.parse(readFileSync(join(h.home, "state", "mcp-approvals.json"), "utf8")).grants;
    expect(grants.map((g: any) => [g.server, g.workspace])).toEqual([["alpha", realpathSync(h.workspace)]]);
  });

  test("denied as a whole, none connects, and each is noted with the reason", async () => {
    const { sid, pid } = await twoServers();
    fake.queue(text("without"));
    await server!.call("turn.start", { session_id: sid, prompt: "hi" });
    const ask = await server!.waitFor((m) => m.method === "approval.requested");
    await server!.call("approval.resolve", { session_id: sid, approval_id: ask.params.approval_id, approved: false });
    await server!.waitFor((m) => m.method === "turn.ended");
    expect(existsSync(pid("alpha")) || existsSync(pid("beta"))).toBe(false);
    const notices = server!.messages.filter((m) => m.method === "model.notice").map((m) => m.params.message).join("\n");
    expect(notices).toContain('MCP server "alpha" is not connected: the user denied this request');
    expect(notices).toContain('MCP server "beta" is not connected: the user denied this request');
  });
});
