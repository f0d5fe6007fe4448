// [mcp.servers.<name>] in the user and project files: what each may set, and the errors when they overstep.
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load";
import { configErrorOf, configHome, removeConfigHomes } from "../config/config-homes";

afterEach(removeConfigHomes);

const USER = `[mcp.servers.gh]\ncommand = "gh-mcp"\nargs = ["--stdio"]\nenv = ["GITHUB_TOKEN"]\n`;

describe("the user file", () => {
  test("a command server gets the defaults; a url server takes headers and private addresses", () => {
    const { env, ws } = configHome(`${USER}[mcp.servers.web]\nurl = "http://127.0.0.1:9/mcp"\nallow_private_addresses = true\nheaders = { X-Team = "core" }\n`);
    const { config } = loadConfig({ cwd: ws, env });
    expect(config.mcp.servers.gh).toMatchObject({ command: "gh-mcp", args: ["--stdio"], env: ["GITHUB_TOKEN"], enabled: true, startup_timeout_seconds: 30, trust_read_only_hints: false, share_with_agents: false });
    expect(config.mcp.servers.gh!.project).toBeUndefined();
    expect(config.mcp.servers.web).toMatchObject({ url: "http://127.0.0.1:9/mcp", allow_private_addresses: true, headers: { "X-Team": "core" } });
    expect(config.mcp.max_message_bytes).toBe(16 * 1024 * 1024);
  });

  test("neither or both of command and url, or a url key on a command server, is refused saying what to set", () => {
    const { env: e1, ws: w1 } = configHome(`[mcp.servers.x]\nargs = ["a"]\n`);
    expect(configErrorOf(() => loadConfig({ cwd: w1, env: e1 }))).toContain("mcp.servers.x: set either command (a program to start) or url");
    const { env: e2, ws: w2 } = configHome(`[mcp.servers.x]\ncommand = "a"\nallow_private_addresses = true\n`);
    expect(configErrorOf(() => loadConfig({ cwd: w2, env: e2 }))).toContain("apply only to a url server");
  });

  test("a server name with __ (the tool separator) or other characters is refused", () => {
    const { env, ws, home } = configHome(`[mcp.servers.a__b]\ncommand = "x"\n`);
    const msg = configErrorOf(() => loadConfig({ cwd: ws, env }));
    expect(msg).toContain(join(home, "config.toml"));
    expect(msg).toContain("<server>__<tool>");
  });
});

describe("the project file", () => {
  test("may narrow a user server (enabled, tools, timeouts)", () => {
    const { env, ws } = configHome(USER, `[mcp.servers.gh]\nenabled = false\ndisabled_tools = ["delete_repo"]\n`);
    const { config } = loadConfig({ cwd: ws, env });
    expect(config.mcp.servers.gh).toMatchObject({ command: "gh-mcp", enabled: false, disabled_tools: ["delete_repo"] });
    expect(config.mcp.servers.gh!.project).toBeUndefined();
  });

  test("may not change what a user server runs", () => {
    const { env, ws } = configHome(USER, `[mcp.servers.gh]\ncommand = "evil"\n`);
    const msg = configErrorOf(() => loadConfig({ cwd: ws, env }));
    expect(msg).toContain(join(ws, ".scv", "config.toml"));
    expect(msg).toContain("mcp.servers.gh.command");
    expect(msg).toContain('defines server "gh"');
  });

  test("may list a new server, marked as the project's (its connect then needs a person)", () => {
    const { env, ws } = configHome(USER, `[mcp.servers.local]\ncommand = "./tools/mcp"\n`);
    const { config } = loadConfig({ cwd: ws, env });
    expect(config.mcp.servers.local!.project).toBe(join(ws, ".scv", "config.toml"));
  });

  test("may never widen trust: risk, read-only hints, private addresses, sharing", () => {
    for (const key of ["risk = \"read_only\"", "trust_read_only_hints = true", "share_with_agents = true"]) {
      const { env, ws } = configHome(USER, `[mcp.servers.local]\ncommand = "x"\n${key}\n`);
      expect(configErrorOf(() => loadConfig({ cwd: ws, env }))).toContain("a project file cannot set mcp.servers.*.");
    }
  });
});
