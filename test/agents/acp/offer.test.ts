// Which transport an agent runs on: `auto` prefers an installed ACP server (with the built-in command), falls
// back to the CLI, `acp` hides the agent when its server is missing, `resume` always uses the CLI.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../../src/config/load";
import { offeredAgents, takesOption } from "../../../src/agents/offer";
import { buildArgv, planCall } from "../../../src/agents/plan";
import { ConversationStore } from "../../../src/agents/conversations";

const root = mkdtempSync(join(tmpdir(), "scv-acp-offer-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
function world(installed: string[], agentsToml = "") {
  const dir = join(root, String(++n));
  const home = join(dir, "home");
  const bin = join(home, ".local", "bin");
  const scvHome = join(dir, "scv");
  mkdirSync(bin, { recursive: true });
  mkdirSync(scvHome, { recursive: true });
  // Never executed: only found.
  for (const name of installed) writeFileSync(join(bin, name), "#!/bin/sh\nexit 99\n", { mode: 0o755 });
  mkdirSync(join(scvHome, "agents", "grok", ".grok"), { recursive: true });
  writeFileSync(join(scvHome, "agents", "grok", ".grok", "auth.json"), '{"x":{"token":"t"}}');
  writeFileSync(join(scvHome, "config.toml"), agentsToml);
  const env = { HOME: home, PATH: "/nonexistent", SCV_HOME: scvHome };
  const config = loadConfig({ env }).config;
  const offered = offeredAgents({ config, env, scvHome });
  return { offered, bin, config, scvHome, by: (name: string) => offered.find((o) => o.descriptor.name === name) };
}

describe("transport", () => {
  test("auto prefers an installed server, and falls back to the CLI without one", () => {
    const w = world(["claude", "claude-agent-acp", "codex"]);
    expect(w.by("claude")).toMatchObject({ transport: "acp", executable: join(w.bin, "claude-agent-acp") });
    expect(w.by("codex")!.transport).toBeUndefined();
    expect(w.by("codex")!.executable).toBe(join(w.bin, "codex"));
    expect(takesOption(w.by("codex")!, "session")).toBe(true);
  });

  test("grok's server is its own CLI; over ACP it takes session, over resume too (-s/-r)", () => {
    const w = world(["grok"]);
    expect(w.by("grok")).toMatchObject({ transport: "acp", executable: join(w.bin, "grok") });
    const resume = world(["grok"], '[agents.grok]\ntransport = "resume"\n');
    expect(resume.by("grok")!.transport).toBeUndefined();
  });

  test("acp hides the agent when its server is missing; resume always runs the CLI", () => {
    const w = world(["claude", "codex", "codex-acp"], '[agents.claude]\ntransport = "acp"\n[agents.codex]\ntransport = "resume"\n');
    expect(w.by("claude")).toBeUndefined();
    expect(w.by("codex")!.transport).toBeUndefined();
  });

  test("a custom command keeps auto on the CLI; custom args do not matter", () => {
    const w = world(["claude", "claude-agent-acp", "codex", "codex-acp"], `[agents.claude]\ncommand = "claude"\n[agents.codex]\nargs = ["exec", "--skip-git-repo-check"]\n`);
    expect(w.by("claude")!.transport).toBeUndefined();
    expect(w.by("codex")!.transport).toBe("acp");
  });

  test("with acp, a custom command for grok or dsh names the CLI that serves ACP", () => {
    const w = world(["my-grok", "grok"], '[agents.grok]\ntransport = "acp"\ncommand = "my-grok"\n');
    expect(w.by("grok")).toMatchObject({ transport: "acp", executable: join(w.bin, "my-grok") });
  });

  test("the plan of an ACP call is the server's command line and always starts a conversation", () => {
    const w = world(["grok"], '[agents.grok]\npermissions = "full"\n');
    const ws = mkdtempSync(join(root, "ws-"));
    const conversations = new ConversationStore({ scvHome: w.scvHome, sessionId: "s", maxConversations: 8, idleSeconds: 60 });
    const plan = planCall({ offered: w.offered, conversations, config: w.config, workspace: ws, scvHome: w.scvHome }, { agent: "grok", prompt: "hi", model: "grok-4" });
    expect(plan.startsConversation).toBe(true);
    expect(plan.outputFile).toBeUndefined();
    expect(buildArgv(plan)).toEqual([join(w.bin, "grok"), "agent", "--always-approve", "stdio"]);
  });

  test("transport acp is a configuration error only for agents without a server", () => {
    expect(() => world([], '[agents.pi]\ntransport = "acp"\n')).toThrow('agents.pi.transport: pi has no Agent Client Protocol server; use "auto" or "resume"');
    expect(() => world([], '[agents.dsh]\ntransport = "acp"\n')).not.toThrow();
  });
});
