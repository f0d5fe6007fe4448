// Sign-in commands and status summaries, with the agent CLIs replaced by the committed fake run through bash.
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { descriptorFor } from "../../src/agents/descriptors";
import { checkKey, type Io, type LoginContext, LoginError } from "../../src/accounts/login-io";
import { storeDshKey, withDshKey } from "../../src/accounts/dsh-key";
import { agentLogout, launcherArgs, refuseStray, requireAgent, runAttached, signInCommand, splitArgs } from "../../src/accounts/login";
import { agentsSignInStatus, summarizeClaudeStatus, summarizeCodexStatus, summaryLine } from "../../src/accounts/status";
import { dshSignedIn } from "../../src/agents/signin";
import { loadConfig } from "../../src/config/load";
import { BASH, readInvocations } from "../fake/agent-harness";

const FAKE = join(import.meta.dir, "../fake/agent-login-fake.sh");
const EMAIL = "alice@example.com";
const KEY_PART = "Zq9X";

function setup(opts: { missing?: string[]; env?: Record<string, string> } = {}) {
  const root = mkdtempSync(join(tmpdir(), "scv-login-"));
  const scvHome = join(root, "scv");
  const log = join(root, "log");
  mkdirSync(log, { recursive: true });
  // An SCV_HOME without a config file gives the built-in defaults.
  const config = loadConfig({ env: { SCV_HOME: scvHome, HOME: join(root, "home") } }).config;
  for (const name of ["claude", "codex", "grok", "dsh", "pi"] as const) {
    const fixed = descriptorFor(name)!.fixedArgs;
    config.agents[name] = opts.missing?.includes(name)
      ? { command: `/nonexistent/${name}`, permissions: "default", transport: "auto" }
      : { command: BASH, args: [FAKE, ...fixed], permissions: "default", transport: "auto" };
  }
  const env: Record<string, string | undefined> = {
    HOME: join(root, "home"),
    PATH: "/usr/bin:/bin",
    FAKE_LOGIN_LOG: log,
    ANTHROPIC_API_KEY: "sk-ant-parent",
    OPENAI_API_KEY: "sk-openai-parent",
    CODEX_HOME: "/parent/codex",
    BUN_OPTIONS: "--smol",
    ...opts.env,
  };
  const ctx: LoginContext = { scvHome, config, env };
  return { ctx, root, scvHome, log, home: (a: string) => join(scvHome, "agents", a) };
}

function io(): Io & { text(): string } {
  let text = "";
  const sink = { write: (s: string) => (text += s) };
  return { stdin: process.stdin, stdout: sink, stderr: sink, text: () => text };
}

describe("arguments", () => {
  test("extra arguments after -- are split from the name; strays are refused without repeating them", () => {
    expect(splitArgs(["codex", "--", "--device-auth"])).toEqual({ name: "codex", stray: [], extra: ["--device-auth"] });
    expect(splitArgs(["dsh", "sk-secret"])).toEqual({ name: "dsh", stray: ["sk-secret"], extra: [] });
    const dsh = (() => {
      try {
        refuseStray(requireAgent("dsh"), "login", ["sk-secret"]);
      } catch (e) {
        return e as LoginError;
      }
    })();
    expect(dsh?.message).toContain("never accepted as an argument");
    expect(dsh?.message).not.toContain("sk-secret");
    expect(dsh?.exitCode).toBe(2);
    expect(() => refuseStray(requireAgent("codex"), "login", ["--device-auth"])).toThrow("after --");
  });

  test("an unknown agent names the known ones", () => {
    expect(() => requireAgent("gemini")).toThrow('unknown agent "gemini"; the agents are: claude, codex, grok, dsh, pi');
    expect(() => requireAgent(undefined)).toThrow("name an agent");
  });

  test("only an interpreter's leading script path is kept from [agents.<name>] args", () => {
    expect(launcherArgs(["/opt/fake.sh", "exec", "--skip-git-repo-check"])).toEqual(["/opt/fake.sh"]);
    expect(launcherArgs(["exec", "/x"])).toEqual([]);
    expect(launcherArgs(["-p"])).toEqual([]);
    expect(launcherArgs(undefined)).toEqual([]);
  });
});

describe("login and logout through the agent's own command", () => {
  test("the command gets the private home and scrubbed environment, with extra arguments appended", async () => {
    const { ctx, log, home } = setup();
    const cmd = signInCommand(ctx, requireAgent("codex"), ["login"], ["--device-auth"]);
    expect(await runAttached(cmd)).toBe(0);
    const [inv] = readInvocations(log);
    expect(inv!.args).toEqual(["login", "--device-auth"]);
    expect(inv!.cwd).toBe(home("codex"));
    expect(inv!.env.HOME).toBe(home("codex"));
    expect(inv!.env.CODEX_HOME).toBe(home("codex"));
    expect(inv!.env.XDG_CONFIG_HOME).toBe(join(home("codex"), ".config"));
    for (const gone of ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "BUN_OPTIONS"]) expect(inv!.env[gone]).toBeUndefined();
    expect(statSync(home("codex")).mode & 0o777).toBe(0o700);
  });

  test("the exit status follows the CLI's", async () => {
    const { ctx } = setup({ env: { FAKE_LOGIN_EXIT: "7" } });
    expect(await runAttached(signInCommand(ctx, requireAgent("claude"), ["auth", "logout"], []))).toBe(7);
  });

  test("a missing executable is a clear error", () => {
    const { ctx } = setup({ missing: ["grok"] });
    expect(() => signInCommand(ctx, requireAgent("grok"), ["login"], [])).toThrow("grok (Grok Build) is not installed");
  });

  test("dsh and pi logout remove their credential files", async () => {
    const { ctx, home } = setup();
    storeDshKey(home("dsh"), "sk-deep-1");
    mkdirSync(join(home("pi"), ".pi", "agent"), { recursive: true });
    writeFileSync(join(home("pi"), ".pi", "agent", "auth.json"), '{"anthropic":{"type":"api_key","key":"k"}}');
    const out = io();
    expect(await agentLogout(ctx, ["dsh"], out)).toBe(0);
    expect(await agentLogout(ctx, ["pi"], out)).toBe(0);
    expect(readdirSync(join(home("dsh"), ".dsh"))).toEqual([]);
    expect(readdirSync(join(home("pi"), ".pi", "agent"))).toEqual([]);
    expect(out.text()).toContain("dsh: signed out");
    expect(await agentLogout(ctx, ["dsh"], out)).toBe(0);
    expect(out.text()).toContain("nothing to remove");
  });
});

describe("the DeepSeek Harness key file", () => {
  test("is written atomically with mode 0600 and read back as signed in", () => {
    const { home } = setup();
    const file = storeDshKey(home("dsh"), "sk-deep-abc");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8")).toBe('refs:\n  DEEPSEEK_API_KEY: "sk-deep-abc"\n');
    expect(readdirSync(join(home("dsh"), ".dsh"))).toEqual([".credentials.yaml"]);
    expect(dshSignedIn({ home: home("dsh"), env: {} })).toBe(true);
    storeDshKey(home("dsh"), "sk-deep-new");
    expect(readFileSync(file, "utf8")).toBe('refs:\n  DEEPSEEK_API_KEY: "sk-deep-new"\n');
  });

  test("other entries are kept", () => {
    expect(withDshKey("refs:\n    OTHER: x\n", "k1")).toBe('refs:\n    DEEPSEEK_API_KEY: "k1"\n    OTHER: x\n');
    expect(withDshKey("refs:\n  DEEPSEEK_API_KEY: old\n  OTHER: x\nmodel: m\n", "k2")).toBe('refs:\n  DEEPSEEK_API_KEY: "k2"\n  OTHER: x\nmodel: m\n');
    expect(withDshKey("model: m\n", "k3")).toBe('model: m\nrefs:\n  DEEPSEEK_API_KEY: "k3"\n');
    expect(() => withDshKey("refs: {}\n", "k4")).toThrow("logout dsh");
  });

  test("a malformed key is refused without being repeated", () => {
    for (const bad of ["", "sk has spaces", "sk-\u00e9", "x".repeat(2000)]) {
      let err: Error | undefined;
      try {
        checkKey(bad);
      } catch (e) {
        err = e as Error;
      }
      expect(err).toBeInstanceOf(LoginError);
      if (bad) expect(err!.message).not.toContain(bad);
    }
    expect(() => checkKey("sk-0123456789abcdef")).not.toThrow();
  });
});

describe("status summaries", () => {
  test("claude's JSON becomes a summary without the email", () => {
    const out = JSON.stringify({ loggedIn: true, authMethod: "claude.ai", email: EMAIL, orgName: EMAIL, subscriptionType: "max" });
    expect(summaryLine(summarizeClaudeStatus(0, out))).toBe("signed in (Claude account, max)");
    expect(summaryLine(summarizeClaudeStatus(0, JSON.stringify({ loggedIn: true, authMethod: "api_key", email: EMAIL })))).toBe("signed in (API key)");
    expect(summaryLine(summarizeClaudeStatus(1, '{"loggedIn": false}'))).toBe("signed out");
    const odd = summaryLine(summarizeClaudeStatus(0, JSON.stringify({ loggedIn: true, authMethod: "claude.ai", subscriptionType: EMAIL })));
    expect(odd).toBe("signed in (Claude account)");
  });

  test("codex's text becomes a summary without the key fragment", () => {
    expect(summaryLine(summarizeCodexStatus(0, `Logged in using an API key - sk-proj-***${KEY_PART}\n`))).toBe("signed in (API key)");
    expect(summaryLine(summarizeCodexStatus(0, "Logged in using ChatGPT\n"))).toBe("signed in (ChatGPT account)");
    expect(summaryLine(summarizeCodexStatus(1, "Not logged in\n"))).toBe("signed out");
    expect(summaryLine(summarizeCodexStatus(3, `sk-proj-***${KEY_PART}`))).toBe("unknown (unrecognized status output, exit 3)");
  });

  test("codex 0.171.0's 'API key configured' (stderr, exit 0) reads as signed in with an API key", () => {
    // Verbatim shape from `codex login status` 0.171.0 with a key in auth.json.
    const out = `API key configured - sk-proj-***${KEY_PART}\nAuthentication is checked when you send a request.\n`;
    const summary = summaryLine(summarizeCodexStatus(0, out));
    expect(summary).toBe("signed in (API key)");
    expect(summary).not.toContain(KEY_PART);
    expect(summaryLine(summarizeCodexStatus(0, "Not logged in\n"))).toBe("signed out");
  });

  test("every agent is reported; the CLIs run in their private environment; nothing sensitive appears", async () => {
    const { ctx, log, home } = setup({ missing: ["pi"] });
    storeDshKey(home("dsh"), "sk-deep-zzz");
    const rows = await agentsSignInStatus(ctx);
    expect(rows.map((r) => [r.name, r.summary])).toEqual([
      ["claude", "signed in (Claude account, max)"],
      ["codex", "signed in (API key)"],
      ["grok", "signed out"],
      ["dsh", "signed in (API key stored)"],
      ["pi", 'not installed ([agents.pi] command "/nonexistent/pi" is not an executable file)'],
      ["scv", 'not installed (no "scv" on PATH or in ~/.cargo/bin)'],
    ]);
    const text = JSON.stringify(rows);
    for (const secret of [EMAIL, KEY_PART, "sk-deep-zzz"]) expect(text).not.toContain(secret);
    const runs = readInvocations(log);
    expect(runs.map((r) => r.args.join(" ")).sort()).toEqual(["auth status", "login status"]);
    for (const r of runs) {
      expect(r.env.ANTHROPIC_API_KEY).toBeUndefined();
      expect(r.env.OPENAI_API_KEY).toBeUndefined();
    }
    expect(runs.find((r) => r.args[0] === "login")!.env.CODEX_HOME).toBe(home("codex"));
  });

  test("a status command that hangs or prints something else gives unknown, without its output", async () => {
    const hang = await agentsSignInStatus(setup({ env: { FAKE_LOGIN_STATE: "hang" } }).ctx, { timeoutMs: 300 });
    expect(hang.find((r) => r.name === "claude")!.summary).toBe("unknown (its status command did not answer within 300 ms)");
    const garbage = await agentsSignInStatus(setup({ env: { FAKE_LOGIN_STATE: "garbage" } }).ctx);
    const claude = garbage.find((r) => r.name === "claude")!;
    expect(claude.state).toBe("unknown");
    expect(JSON.stringify(garbage)).not.toContain(EMAIL);
    expect(JSON.stringify(garbage)).not.toContain(KEY_PART);
  });
});
