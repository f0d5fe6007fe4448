// `scv agents login|logout|status` run as `bun src/cli/main.ts agents …`, with every agent CLI replaced by the
// committed fake (`[agents.<name>] command` = bash, `args` = the fake script) or a missing executable.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BASH, readInvocations } from "../fake/agent-harness";
import { MAIN, ROOT } from "../daemon/fixtures/helpers";
import { needs } from "../fake/needs";

const FAKE = join(import.meta.dir, "../fake/agent-login-fake.sh");
const EMAIL = "alice@example.com";
const KEY_PART = "Zq9X";
const SCRIPT = Bun.which("script"); // present where needs("script") lets its test run

const roots: string[] = [];
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

function setup(missing: string[] = []) {
  const root = mkdtempSync(join(tmpdir(), "scv-cli-login-"));
  roots.push(root);
  const scvHome = join(root, "scv");
  const log = join(root, "log");
  mkdirSync(scvHome, { recursive: true });
  mkdirSync(log);
  const tables = ["claude", "codex", "grok", "dsh", "pi"].map((name) =>
    missing.includes(name)
      ? `[agents.${name}]\ncommand = "/nonexistent/${name}"\n`
      : `[agents.${name}]\ncommand = ${JSON.stringify(BASH)}\nargs = [${JSON.stringify(FAKE)}]\n`,
  );
  // The nested SCV is never installed here, whatever PATH holds.
  writeFileSync(join(scvHome, "config.toml"), [...tables, '[agents.scv]\ncommand = "/nonexistent/scv"\n'].join("\n"));
  const env = {
    SCV_HOME: scvHome,
    FAKE_LOGIN_LOG: log,
    ANTHROPIC_API_KEY: "sk-ant-parent-secret",
    OPENAI_API_KEY: "sk-openai-parent-secret",
    GROK_HOME: "/parent/grok",
  };
  return { env, log, home: (a: string) => join(scvHome, "agents", a) };
}

async function scv(args: string[], env: Record<string, string>, stdin?: string, cwd = ROOT) {
  const proc = Bun.spawn(["bun", MAIN, "agents", ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdin: stdin === undefined ? "ignore" : new Blob([stdin]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr, all: stdout + stderr };
}

describe("scv agents login / logout for CLIs that sign themselves in", () => {
  test("codex login runs `codex login` in the private home, scrubbed, with -- arguments appended", async () => {
    const { env, log, home } = setup();
    const r = await scv(["login", "codex", "--", "--device-auth"], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("fake sign-in command: login --device-auth");
    const [inv] = readInvocations(log);
    expect(inv!.args).toEqual(["login", "--device-auth"]);
    expect(inv!.env.HOME).toBe(home("codex"));
    expect(inv!.env.CODEX_HOME).toBe(home("codex"));
    expect(inv!.env.SCV_HOME).toBe(join(home("codex"), ".scv"));
    expect(inv!.env.ANTHROPIC_API_KEY).toBeUndefined();
    expect(inv!.env.OPENAI_API_KEY).toBeUndefined();
    expect(statSync(home("codex")).mode & 0o777).toBe(0o700);
  });

  test("the exit status follows the CLI's; claude uses `auth login`", async () => {
    const { env, log } = setup();
    const r = await scv(["login", "claude"], { ...env, FAKE_LOGIN_EXIT: "4" });
    expect(r.code).toBe(4);
    expect(readInvocations(log)[0]!.args).toEqual(["auth", "login"]);
  });

  test("grok login, status, logout: its credential lands in the private GROK_HOME", async () => {
    const { env, home } = setup();
    expect((await scv(["login", "grok"], env)).code).toBe(0);
    expect(existsSync(join(home("grok"), ".grok", "auth.json"))).toBe(true);
    expect((await scv(["status"], env)).stdout).toMatch(/grok\s+Grok Build\s+signed in \(grok login\)/);
    expect((await scv(["logout", "grok"], env)).code).toBe(0);
    expect(existsSync(join(home("grok"), ".grok", "auth.json"))).toBe(false);
    expect((await scv(["status"], env)).stdout).toMatch(/grok\s+Grok Build\s+signed out/);
  });

  test("sign-in commands work from any directory: /, and a project whose .scv/config.toml is broken", async () => {
    const { env, home } = setup();
    const project = mkdtempSync(join(tmpdir(), "scv-cli-login-cwd-"));
    roots.push(project);
    mkdirSync(join(project, ".scv"));
    writeFileSync(join(project, ".scv", "config.toml"), '[provider]\nactive = "elsewhere"\nnot toml at all ===\n');
    for (const cwd of ["/", project]) {
      const login = await scv(["login", "grok"], env, undefined, cwd);
      expect(login.code).toBe(0);
      expect(existsSync(join(home("grok"), ".grok", "auth.json"))).toBe(true);
      expect((await scv(["status"], env, undefined, cwd)).stdout).toMatch(/grok\s+Grok Build\s+signed in/);
      expect((await scv(["logout", "grok"], env, undefined, cwd)).code).toBe(0);
      expect(existsSync(join(home("grok"), ".grok", "auth.json"))).toBe(false);
    }
  });

  test("options before -- are refused, and an unknown agent lists the names", async () => {
    const { env, log } = setup();
    const stray = await scv(["login", "codex", "--device-auth"], env);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain("after --");
    const unknown = await scv(["login", "gemini"], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("the agents are: claude, codex, grok, dsh, pi");
    expect(readdirSync(log)).toEqual([]);
  });

  test("a missing CLI is reported, not run", async () => {
    const { env } = setup(["claude"]);
    const r = await scv(["login", "claude"], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("claude (Claude Code) is not installed");
  });
});

describe("scv agents login dsh", () => {
  test("a key piped on stdin is stored 0600 as refs.DEEPSEEK_API_KEY and never echoed", async () => {
    const { env, home } = setup();
    const key = "sk-deep-piped-7f3a";
    const r = await scv(["login", "dsh"], env, `${key}\n`);
    expect(r.code).toBe(0);
    expect(r.all).not.toContain(key);
    const file = join(home("dsh"), ".dsh", ".credentials.yaml");
    expect(readFileSync(file, "utf8")).toBe(`refs:\n  DEEPSEEK_API_KEY: "${key}"\n`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect((await scv(["status"], env)).stdout).toMatch(/dsh\s+DeepSeek Harness\s+signed in \(API key stored\)/);
    expect((await scv(["logout", "dsh"], env)).code).toBe(0);
    expect(existsSync(file)).toBe(false);
  });

  test("a key given as an argument is refused and not repeated", async () => {
    const { env, home } = setup();
    for (const args of [["login", "dsh", "sk-deep-arg-1"], ["login", "dsh", "--", "sk-deep-arg-1"]]) {
      const r = await scv(args, env, "");
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("never accepted as an argument");
      expect(r.all).not.toContain("sk-deep-arg-1");
    }
    expect(existsSync(join(home("dsh"), ".dsh", ".credentials.yaml"))).toBe(false);
  });

  test("empty stdin is an error that says how to give the key", async () => {
    const { env } = setup();
    const r = await scv(["login", "dsh"], env, "");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("no key given");
  });

  test.skipIf(!needs("script"))("on a terminal the key is read without echo", async () => {
    const { env, home } = setup();
    const key = "sk-deep-typed-5e1c";
    // `script` gives the command a pseudo-terminal; anything echoed would come back in its output.
    const proc = Bun.spawn([SCRIPT!, "-qefc", `${JSON.stringify(process.execPath)} ${JSON.stringify(MAIN)} agents login dsh`, "/dev/null"], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    let out = "";
    const reading = (async () => {
      const dec = new TextDecoder();
      for await (const chunk of proc.stdout) out += dec.decode(chunk);
    })();
    const start = Date.now();
    while (!out.includes("input hidden") && Date.now() - start < 10_000) await Bun.sleep(20);
    proc.stdin.write(`${key}\r`);
    await proc.stdin.flush();
    expect(await proc.exited).toBe(0);
    await reading;
    expect(out).toContain("API key stored");
    expect(out).not.toContain(key);
    expect(readFileSync(join(home("dsh"), ".dsh", ".credentials.yaml"), "utf8")).toContain(`"${key}"`);
  });
});

describe("scv agents login / logout pi", () => {
  test("login opens pi in its private home; logout removes auth.json", async () => {
    const { env, log, home } = setup();
    const r = await scv(["login", "pi"], env);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("run /login");
    const [inv] = readInvocations(log);
    expect(inv!.args).toEqual([]);
    expect(inv!.env.PI_CODING_AGENT_DIR).toBe(join(home("pi"), ".pi", "agent"));
    const auth = join(home("pi"), ".pi", "agent", "auth.json");
    writeFileSync(auth, '{"anthropic":{"type":"api_key","key":"pi-secret-key"}}');
    const status = await scv(["status"], env);
    expect(status.stdout).toMatch(/pi\s+pi\s+signed in \(no default provider, stored sign-ins: anthropic\)/);
    expect(status.stdout).not.toContain("pi-secret-key");
    expect((await scv(["logout", "pi"], env)).code).toBe(0);
    expect(existsSync(auth)).toBe(false);
  });
});

describe("scv agents status", () => {
  test("summaries only: the CLIs' email and key fragment never appear, in text or JSON", async () => {
    const { env } = setup(["pi"]);
    const text = await scv(["status"], env);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/claude\s+Claude Code\s+signed in \(Claude account, max\)/);
    expect(text.stdout).toMatch(/codex\s+Codex\s+signed in \(API key\)/);
    expect(text.stdout).toMatch(/pi\s+pi\s+not installed/);
    const json = await scv(["status", "--json"], env);
    const rows = JSON.parse(json.stdout).agents as { name: string; state: string }[];
    expect(rows.map((r) => [r.name, r.state])).toEqual([
      ["claude", "signed_in"],
      ["codex", "signed_in"],
      ["grok", "signed_out"],
      ["dsh", "signed_out"],
      ["pi", "not_installed"],
      ["scv", "not_installed"],
    ]);
    for (const out of [text.all, json.all]) {
      expect(out).not.toContain(EMAIL);
      expect(out).not.toContain(KEY_PART);
    }
  });

  test("signed-out CLIs read signed out with the login command", async () => {
    const { env } = setup();
    const r = await scv(["status"], { ...env, FAKE_LOGIN_STATE: "out", FAKE_LOGIN_METHOD: "chatgpt" });
    expect(r.stdout).toMatch(/claude\s+Claude Code\s+signed out\s+\(scv agents login claude\)/);
    expect(r.stdout).toMatch(/codex\s+Codex\s+signed out\s+\(scv agents login codex\)/);
  });
});
