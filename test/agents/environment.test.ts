import { describe, expect, test } from "bun:test";
import { agentEnvironment, isWithheld, scrubbedEnv } from "../../src/agents/environment";
import { DESCRIPTORS, descriptorFor } from "../../src/agents/descriptors";

describe("environment scrubbing", () => {
  test("every *_API_KEY, SCV selectors and each adapter's variables are withheld from every agent", () => {
    for (const name of [
      "OPENAI_API_KEY", "ANYTHING_API_KEY", "SCV_PROVIDER", "SCV_MODEL", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL",
      "CLAUDE_CODE_OAUTH_TOKEN", "CLAUDE_CONFIG_DIR", "OPENAI_BASE_URL", "CODEX_BASE_URL", "CODEX_HOME", "GROK_HOME",
      "GROK_XAI_API_BASE_URL", "DSH_HOME", "DSH_PERMISSION_MODE", "DEEPSEEK_BASE_URL", "PI_CODING_AGENT_DIR", "PI_OFFLINE",
    ]) {
      expect([name, isWithheld(name)]).toEqual([name, true]);
    }
    for (const name of ["PATH", "LANG", "TERM", "SCV_PARENT", "SCV_DELEGATION_DEPTH", "CLAUDE_CODE_MAX_RETRIES", "API_KEYS_URL"]) {
      expect([name, isWithheld(name)]).toEqual([name, false]);
    }
    expect(scrubbedEnv({ A: "1", B_API_KEY: "x", C: undefined })).toEqual({ A: "1" });
  });

  test("private home and state variables per agent", () => {
    const home = "/s/agents";
    for (const d of DESCRIPTORS) {
      const e = agentEnvironment(d, { scvHome: "/s", env: { GROK_HOME: "/u/.grok", CODEX_HOME: "/u/.codex" }, full: false });
      expect(e.env.HOME).toBe(`${home}/${d.name}`);
      expect(e.env.GROK_HOME as string | undefined).toBe(d.name === "grok" ? `${home}/grok/.grok` : undefined);
      expect(e.env.CODEX_HOME as string | undefined).toBe(d.name === "codex" ? `${home}/codex` : undefined);
    }
    const dsh = agentEnvironment(descriptorFor("dsh")!, { scvHome: "/s", env: {}, full: true });
    expect(dsh.env.DSH_PERMISSION_MODE).toBe("danger-full-access");
    expect(dsh.env.DSH_HOME).toBe("/s/agents/dsh/.dsh");
  });
});
