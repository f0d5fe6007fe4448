// Executable resolution and sign-in checks. The executables here are written with mode 0755 but never run.
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { descriptorFor } from "../../src/agents/descriptors";
import { agentEnvironment, agentHome } from "../../src/agents/environment";
import { defaultAgent, offeredAgents, resolveExecutable } from "../../src/agents/offer";
import { dshSignedIn, grokSignedIn, piSignedIn } from "../../src/agents/signin";
import type { Config } from "../../src/config/schema";
import { makeScope } from "../fake/scope";
import { signIn } from "../fake/agent-harness";

function tree() {
  const root = mkdtempSync(join(tmpdir(), "scv-offer-"));
  const home = join(root, "home");
  const scvHome = join(root, "scv");
  const pathDir = join(root, "usr-bin");
  for (const d of [home, scvHome, pathDir]) mkdirSync(d, { recursive: true });
  const exe = (dir: string, name: string, mode = 0o755) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, name), "#!/bin/sh\nexit 99\n");
    chmodSync(join(dir, name), mode);
    return join(dir, name);
  };
  return { root, home, scvHome, pathDir, exe };
}

function offered(t: ReturnType<typeof tree>, config: Partial<Config> = {}) {
  const env = { HOME: t.home, PATH: t.pathDir, SCV_HOME: t.scvHome };
  const base = makeScope({ env }).config;
  return offeredAgents({ config: { ...base, ...config }, env, scvHome: t.scvHome }).map((o) => `${o.descriptor.name}=${o.executable}`);
}

describe("executable resolution", () => {
  test("~/.local/bin comes before PATH; ~/.grok/bin only for grok", () => {
    const t = tree();
    const inPath = t.exe(t.pathDir, "codex");
    const local = t.exe(join(t.home, ".local/bin"), "codex");
    const claudeInGrokBin = t.exe(join(t.home, ".grok/bin"), "claude");
    const grok = t.exe(join(t.home, ".grok/bin"), "grok");
    const opts = (name: string) => ({ userHome: t.home, installDirs: descriptorFor(name)!.installDirs, path: t.pathDir });
    expect(resolveExecutable("codex", opts("codex"))).toBe(local);
    expect(resolveExecutable("claude", opts("claude"))).toBeUndefined();
    expect(resolveExecutable("grok", opts("grok"))).toBe(grok);
    expect(inPath).not.toBe(local);
    expect(claudeInGrokBin).toContain(".grok/bin");
  });

  test("non-executable files, directories, empty PATH entries and relative entries are skipped", () => {
    const t = tree();
    t.exe(t.pathDir, "pi", 0o644);
    mkdirSync(join(t.pathDir, "dsh"));
    const opts = { userHome: t.home, installDirs: [".local/bin"], path: `:relative:${t.pathDir}` };
    expect(resolveExecutable("pi", opts)).toBeUndefined();
    expect(resolveExecutable("dsh", opts)).toBeUndefined();
  });

  test("a configured command may be an absolute or ~/ path", () => {
    const t = tree();
    const abs = t.exe(join(t.root, "opt"), "my-claude");
    const tilde = t.exe(join(t.home, "bin"), "my-codex");
    expect(resolveExecutable(abs, { userHome: t.home, installDirs: [] })).toBe(abs);
    expect(resolveExecutable("~/bin/my-codex", { userHome: t.home, installDirs: [] })).toBe(tilde);
    expect(resolveExecutable("bin/my-codex", { userHome: t.home, installDirs: [], path: t.home })).toBeUndefined();
  });
});

describe("offering", () => {
  test("uninstalled agents are not offered", () => {
    const t = tree();
    expect(offered(t)).toEqual([]);
    const codex = t.exe(t.pathDir, "codex");
    expect(offered(t)).toEqual([`codex=${codex}`]);
  });

  test("claude and codex stay offered; grok, dsh and pi only when their sign-in file says so", () => {
    const t = tree();
    const paths = ["claude", "codex", "grok", "dsh", "pi"].map((n) => t.exe(t.pathDir, n));
    expect(offered(t).map((s) => s.split("=")[0])).toEqual(["claude", "codex"]);
    signIn(t.scvHome, "dsh");
    signIn(t.scvHome, "pi");
    expect(offered(t).map((s) => s.split("=")[0])).toEqual(["claude", "codex", "dsh", "pi"]);
    signIn(t.scvHome, "grok");
    expect(offered(t)).toEqual(["claude", "codex", "grok", "dsh", "pi"].map((n, i) => `${n}=${paths[i]}`));
  });

  test("the default is the first preferred agent on offer", () => {
    const t = tree();
    t.exe(t.pathDir, "claude");
    t.exe(t.pathDir, "codex");
    const env = { HOME: t.home, PATH: t.pathDir, SCV_HOME: t.scvHome };
    const base = makeScope({ env }).config;
    const config = { ...base, agent: { ...base.agent, prefer: ["grok" as const, "claude" as const, "codex" as const] } };
    const list = offeredAgents({ config, env, scvHome: t.scvHome });
    expect(defaultAgent(config, list)?.descriptor.name).toBe("claude");
    expect(defaultAgent(base, list)).toBeUndefined();
  });
});

describe("sign-in files", () => {
  const home = () => mkdtempSync(join(tmpdir(), "scv-signin-"));
  const put = (dir: string, rel: string, text: string) => {
    mkdirSync(join(dir, rel, ".."), { recursive: true });
    writeFileSync(join(dir, rel), text);
  };

  test("dsh needs refs.DEEPSEEK_API_KEY in .dsh/.credentials.yaml", () => {
    const h = home();
    expect(dshSignedIn({ home: h, env: {} })).toBe(false);
    put(h, ".dsh/.credentials.yaml", "refs:\n  OTHER: x\n");
    expect(dshSignedIn({ home: h, env: {} })).toBe(false);
    put(h, ".dsh/.credentials.yaml", "refs:\n  DEEPSEEK_API_KEY: sk-1\n");
    expect(dshSignedIn({ home: h, env: {} })).toBe(true);
  });

  test("pi needs a stored credential in auth.json or a provider key in models.json", () => {
    const h = home();
    put(h, ".pi/agent/auth.json", "{}");
    expect(piSignedIn({ home: h, env: {} })).toBe(false);
    put(h, ".pi/agent/models.json", '{"providers":{"scv":{"baseUrl":"http://x","apiKey":"k"}}}');
    expect(piSignedIn({ home: h, env: {} })).toBe(true);
    const g = home();
    put(g, ".pi/agent/auth.json", '{"openai":{"type":"oauth","refresh":"r","access":"a","expires":1}}');
    expect(piSignedIn({ home: g, env: {} })).toBe(true);
  });

  test("grok: auth.json, or the default profile's api_key, or an env_key SCV passes on", () => {
    const h = home();
    expect(grokSignedIn({ home: h, env: {} })).toBe(false);
    put(h, ".grok/config.toml", '[models]\ndefault = "fast"\n\n[models.fast]\nid = "grok-code-fast-1"\n');
    expect(grokSignedIn({ home: h, env: {} })).toBe(false);
    put(h, ".grok/config.toml", '[models]\ndefault = "grok-code-fast-1"\n\n[models.fast]\nid = "grok-code-fast-1"\napi_key = "xai-1"\n');
    expect(grokSignedIn({ home: h, env: {} })).toBe(true);
    put(h, ".grok/config.toml", '[models]\ndefault = "fast"\n\n[models.fast]\nid = "grok-code-fast-1"\nenv_key = "RELAY_TOKEN"\n');
    expect(grokSignedIn({ home: h, env: {} })).toBe(false);
    expect(grokSignedIn({ home: h, env: { RELAY_TOKEN: "t" } })).toBe(true);
    const a = home();
    put(a, ".grok/auth.json", '{"grok.com":{"token":"x"}}');
    expect(grokSignedIn({ home: a, env: {} })).toBe(true);
  });

  test("grok: a custom endpoint in a [model.<key>] table made the default by [models] default", () => {
    // The layout Grok documents ("Add custom model endpoints in ~/.grok/config.toml under [model.<name>]").
    const h = home();
    put(h, ".grok/config.toml", '[models]\ndefault = "relay"\n\n[model.relay]\nbase_url = "http://127.0.0.1:9/v1"\napi_backend = "chat_completions"\n');
    expect(grokSignedIn({ home: h, env: {} })).toBe(false);
    put(h, ".grok/config.toml", '[models]\ndefault = "relay"\n\n[model.relay]\nbase_url = "http://127.0.0.1:9/v1"\napi_key = "xai-test"\napi_backend = "chat_completions"\n');
    expect(grokSignedIn({ home: h, env: {} })).toBe(true);
    put(h, ".grok/config.toml", '[models]\ndefault = "other"\n\n[model.relay]\napi_key = "xai-test"\n');
    expect(grokSignedIn({ home: h, env: {} })).toBe(false);
  });

  test("an env_key naming a variable SCV removes does not count", () => {
    const t = tree();
    t.exe(t.pathDir, "grok");
    put(join(t.scvHome, "agents/grok"), ".grok/config.toml", '[models]\ndefault = "m"\n[models.m]\nenv_key = "XAI_API_KEY"\n');
    const env = { HOME: t.home, PATH: t.pathDir, SCV_HOME: t.scvHome, XAI_API_KEY: "set-but-withheld" };
    const base = makeScope({ env: { HOME: t.home, SCV_HOME: t.scvHome } }).config;
    expect(offeredAgents({ config: base, env, scvHome: t.scvHome })).toEqual([]);
  });
});

describe("a nested SCV's own agents", () => {
  test("live under $SCV_HOME/agents/scv/agents and are signed out unless signed in there", () => {
    const t = tree();
    t.exe(t.pathDir, "grok");
    signIn(t.scvHome, "grok"); // the top-level SCV's Grok is signed in
    expect(offered(t).some((o) => o.startsWith("grok="))).toBe(true);
    const nested = agentEnvironment(descriptorFor("scv")!, { scvHome: t.scvHome, env: { HOME: t.home, PATH: t.pathDir }, full: false });
    const nestedHome = nested.env.SCV_HOME!;
    expect(nestedHome).toBe(join(t.scvHome, "agents", "scv"));
    expect(agentHome(nestedHome, "grok")).toBe(join(t.scvHome, "agents", "scv", "agents", "grok"));
    const config = makeScope({ env: nested.env }).config;
    const nestedOffer = () => offeredAgents({ config, env: nested.env, scvHome: nestedHome }).map((o) => o.descriptor.name);
    expect(nestedOffer()).not.toContain("grok");
    signIn(nestedHome, "grok");
    expect(nestedOffer()).toContain("grok");
  });
});

describe("installed between sessions", () => {
  test("an agent installed while the server runs is offered to the next session on the same connection", async () => {
    const t = tree();
    const { startHarness } = await import("../fake/harness");
    const h = await startHarness({ env: { HOME: t.home, PATH: t.pathDir } });
    try {
      await h.request("initialize", { protocol_version: 3 });
      const before = await h.request("session.start", { cwd: h.workspace });
      expect(before.tools).not.toContain("agent");
      t.exe(t.pathDir, "codex"); // installed now; never run
      const after = await h.request("session.start", { cwd: h.workspace });
      expect(after.tools).toContain("agent");
    } finally {
      await h.close();
    }
  });
});
