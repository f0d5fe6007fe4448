import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { capabilitiesOf } from "../../src/agents/descriptors";
import { loadConfig } from "../../src/config/load";

function load(userToml: string, projectToml?: string) {
  const home = mkdtempSync(join(tmpdir(), "scv-cfg-"));
  writeFileSync(join(home, "config.toml"), userToml);
  const ws = mkdtempSync(join(tmpdir(), "scv-cfg-ws-"));
  if (projectToml) {
    mkdirSync(join(ws, ".scv"));
    writeFileSync(join(ws, ".scv", "config.toml"), projectToml);
  }
  return () => loadConfig({ cwd: ws, env: { SCV_HOME: home, HOME: home } });
}

describe("[agent] and [agents.*] validation", () => {
  test("the seed's example configuration loads", () => {
    const c = load(`
[agent]
prefer = ["codex", "claude"]
[agents.claude]
use_for = "coding"
model = "opus-5.5"
effort = "xhigh"
[agents.grok]
use_for = "current events, and anything that needs posts on X"
[agents.codex]
permissions = "full"
transport = "resume"
command = "~/bin/codex"
args = ["exec", "--skip-git-repo-check"]
`)().config;
    expect(c.agent.prefer).toEqual(["codex", "claude"]);
    expect(c.agents.codex?.permissions).toBe("full");
  });

  test("a model or effort on an agent that does not take it is a configuration error", () => {
    expect(load('[agents.dsh]\nmodel = "deepseek-v4"\n')).toThrow("agents.dsh.model: dsh does not take a model selection; remove it");
    expect(load('[agents.dsh]\neffort = "high"\n')).toThrow("agents.dsh.effort: dsh does not take an effort selection");
    expect(load('[agents.scv]\neffort = "high"\n')).toThrow("agents.scv.effort");
    expect(load('[agents.scv]\nmodel = "gpt-5.5"\n')).not.toThrow();
  });

  test("transport acp is refused only for agents without an ACP server", () => {
    expect(load('[agents.pi]\ntransport = "acp"\n')).toThrow("agents.pi.transport: pi has no Agent Client Protocol server");
    expect(load('[agents.codex]\ntransport = "acp"\n')).not.toThrow();
    expect(load('[agents.codex]\ntransport = "auto"\n')).not.toThrow();
  });

  test("unknown prefer names, duplicates, long use_for, bad model syntax and relative commands are refused", () => {
    expect(load('[agent]\nprefer = ["zcode"]\n')).toThrow("agent.prefer.0");
    expect(load('[agent]\nprefer = ["codex", "codex"]\n')).toThrow("codex is listed twice");
    expect(load(`[agents.codex]\nuse_for = "${"x".repeat(501)}"\n`)).toThrow("at most 500 bytes");
    expect(load('[agents.codex]\nmodel = "-m"\n')).toThrow("agents.codex.model");
    expect(load('[agents.codex]\ncommand = "bin/codex"\n')).toThrow("is a relative path");
  });

  test("every [agent] and [agents.*] key is user-only", () => {
    expect(load("", '[agents.codex]\ncommand = "/tmp/evil"\n')).toThrow("a project file cannot set agents");
    expect(load("", '[agent]\nprefer = ["codex"]\n')).toThrow("a project file cannot set agent");
  });

  test("capabilities come from the registry", () => {
    expect(capabilitiesOf("codex")).toEqual({ model: true, effort: true, session: true });
    expect(capabilitiesOf("grok")).toEqual({ model: true, effort: true, session: true });
    expect(capabilitiesOf("dsh")).toEqual({ model: false, effort: false, session: false });
  });
});
