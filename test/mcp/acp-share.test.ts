// Delegated agents over ACP get the user's servers marked share_with_agents in session/new (stdio always, HTTP
// only for an agent that declares mcpCapabilities.http); the others stay SCV's own. Through the compiled binary,
// with the ACP stand-in found in ~/.local/bin.
import { expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { fakeHome, fakeModelForFile, requireBinary } from "../fake/binary";
import { ACP_AGENT, ACP_SERVER, script } from "../fake/acp-harness";
import { text, toolCalls } from "../fake/model-server";
import { hostile, serverToml } from "../fake/mcp-servers";

const fake = fakeModelForFile();

test("session/new carries the shared stdio server with its resolved environment; unshared ones and HTTP ones (no mcpCapabilities.http) stay out", async () => {
  const shared = hostile("well", { env: { TOOL_TOKEN: "tok-1234" }, share_with_agents: true });
  const extra = serverToml("tools", shared) + serverToml("mine", hostile("well")) + serverToml("remote", { url: "http://127.0.0.1:9/mcp", share_with_agents: true });
  const { env, workspace, home } = fakeHome(fake.url, extra);
  const logDir = join(home, "acp-log");
  mkdirSync(logDir);
  const bin = join(env.HOME!, ".local", "bin");
  mkdirSync(bin, { recursive: true });
  symlinkSync(ACP_AGENT, join(bin, "claude-agent-acp"));
  fake.queue(toolCalls([{ name: "agent", arguments: { agent: "claude", prompt: script([{ say: "ok" }]) } }]), text("done"));
  const proc = Bun.spawn([requireBinary(), "exec", "--yes", "--json", "delegate"], {
    cwd: workspace,
    env: { ...env, FAKE_ACP_SERVER: ACP_SERVER, FAKE_ACP_BUN: process.execPath, FAKE_ACP_LOG: logDir, PATH: dirname(process.execPath) + ":/usr/bin:/bin" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  expect(code, stderr).toBe(0);
  const log = readdirSync(logDir).find((n) => n.endsWith(".jsonl"))!;
  const created = readFileSync(join(logDir, log), "utf8").trim().split("\n").map((l) => JSON.parse(l)).find((m) => m.method === "session/new");
  expect(created.params.mcpServers).toHaveLength(1);
  const [server] = created.params.mcpServers;
  expect(server).toMatchObject({ name: "tools", command: process.execPath, args: shared.args });
  expect(server.env).toContainEqual({ name: "TOOL_TOKEN", value: "tok-1234" });
  expect(server.type).toBeUndefined();
}, 30_000);
