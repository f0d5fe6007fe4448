// The login environment once per session (src/tools/bash-login.ts): one `bash -l` captures what the user's
// profile sets, and every command runs in a plain `bash -c` that reads the snapshot through BASH_ENV. Real
// processes and real profile files in the test's own HOME (test/preload.ts isolates it).
import { afterEach, expect, test } from "bun:test";
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runProcess } from "../../src/process";
import { createBashTool } from "../../src/tools/bash";
import { LoginShell } from "../../src/tools/bash-login";
import { invokeTool, makeCallContext, makeScope, type FakeScope } from "../fake/scope";

const homes: string[] = [];
const scopes: FakeScope[] = [];
afterEach(async () => {
  for (const s of scopes.splice(0)) await s.close();
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
});

/**
 * A home of its own with a .profile; `counter` gets a line each time the profile runs. A sandboxed command sees
 * its own /tmp, so a home it must read lives in /var/tmp.
 */
function homeWith(profile: string, outsideTmp = false): { home: string } {
  const home = mkdtempSync(join(outsideTmp ? "/var/tmp" : tmpdir(), "scv-login-home-"));
  homes.push(home);
  // Counted in the working directory (the workspace), which a sandboxed profile may write.
  writeFileSync(join(home, ".profile"), `echo ran >> .profile-runs\n${profile}\n`);
  return { home };
}

function setup(home: string, opts: { sandbox?: "off"; env?: Record<string, string>; bindings?: object[] } = {}) {
  const scope = makeScope({
    env: { HOME: home, XDG_CACHE_HOME: join(home, ".cache"), ...opts.env },
    config: { ...(opts.sandbox ? { sandbox: { mode: "off" } } : {}), ...(opts.bindings ? { tools: { secret_bindings: opts.bindings } } : {}) } as never,
  });
  scopes.push(scope);
  const ctx = makeCallContext(scope);
  const tool = createBashTool(scope);
  return { scope, bash: async (command: string, extra: object = {}) => (await invokeTool(tool, { command, ...extra }, ctx)).result };
}

const runs = (workspace: string) => readFileSync(join(workspace, ".profile-runs"), "utf8").split("\n").filter(Boolean).length;
const PROFILE = [
  "export FROM_PROFILE='it is \"quoted\" and it'\\''s here'",
  'export PATH="$HOME/bin:$PATH"',
  "greet() { echo \"hello $1\"; }",
  "alias hi='echo aliased'",
  "shopt -s expand_aliases",
  "echo 'welcome banner'",
].join("\n");

for (const mode of ["sandboxed", "unsandboxed"] as const) {
  test(`${mode}: variables, functions and aliases of the login profile reach a plain shell; the profile runs once; its banner is left out and told once`, async () => {
    const { home } = homeWith(PROFILE, mode === "sandboxed");
    const { bash, scope } = setup(home, mode === "unsandboxed" ? { sandbox: "off" } : {});
    const first = await bash('echo "$FROM_PROFILE"; greet you; hi; echo "${PATH%%:*}"; shopt -q login_shell || echo plain; echo "${BASH_ENV-unset}"');
    expect(first.output).toBe(
      `exit 0\n[your login profile (bash -l) printed 15 bytes, left out of command output (commands run with a snapshot of its environment)]\n` +
        `it is "quoted" and it's here\nhello you\naliased\n${home}/bin\nplain\nunset\n`,
    );
    expect(first.event?.sandbox).toBe(mode === "sandboxed" ? "workspace-write" : "none");
    const second = await bash("greet again");
    expect(second.output).toBe("exit 0\nhello again\n");
    await bash("true");
    expect(runs(scope.workspace)).toBe(1);
    // A changed profile is captured again.
    appendFileSync(join(home, ".profile"), "export LATER=yes\n");
    expect((await bash('echo "$LATER"')).output).toBe("exit 0\nyes\n");
    expect(runs(scope.workspace)).toBe(2);
  }, 30_000);
}

test("the snapshot is private and holds no secret: no binding's name or source, no key-shaped value; a bound secret wins", async () => {
  const key = "ghp_0123456789abcdefSECRETvalue0123";
  const { home } = homeWith(`export GH_TOKEN=from-profile\nexport LOOKS_LIKE_KEY=${key}\nexport PLAIN=kept`);
  const { bash } = setup(home, { sandbox: "off", env: { GITHUB_TOKEN: "bound-value-123456" }, bindings: [{ source: "env:GITHUB_TOKEN", target: "GH_TOKEN" }] });
  expect((await bash('echo "$PLAIN ${LOOKS_LIKE_KEY-unset}"')).output).toBe("exit 0\nkept unset\n");
  const dir = join(home, ".cache", "scv", "shell");
  expect(statSync(dir).mode & 0o777).toBe(0o700);
  const files = readdirSync(dir);
  expect(files.length).toBe(1);
  const file = join(dir, files[0]!);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  const text = readFileSync(file, "utf8");
  expect(text).toContain("PLAIN");
  expect(text).not.toContain("GH_TOKEN");
  expect(text).not.toContain("GITHUB_TOKEN");
  expect(text).not.toContain(key);
  const bound = await invokeTool(createBashTool(scopes[0]!), { command: 'echo "$GH_TOKEN"', secrets: ["GH_TOKEN"] }, makeCallContext(scopes[0]!, {}));
  expect(bound.result.output).toBe("exit 0\n<redacted:GH_TOKEN>\n");
  // The session's close removes its snapshot.
  await scopes[0]!.close();
  expect(readdirSync(dir)).toEqual([]);
});

test("a profile that exits early is told once; commands still run, in a plain shell", async () => {
  const { home } = homeWith("exit 3");
  const { bash } = setup(home, { sandbox: "off" });
  const first = await bash("echo ok");
  expect(first.output).toBe("exit 0\n[your login profile (bash -l) ended (exit 3) before it printed its environment; commands run in a plain bash -c without it until a profile file changes]\nok\n");
  expect((await bash("echo again")).output).toBe("exit 0\nagain\n");
});

test("a profile that hangs is bounded by the capture's deadline, and the command runs without it", async () => {
  const { home } = homeWith("sleep 30");
  const cwd = mkdtempSync(join(tmpdir(), "scv-login-ws-"));
  homes.push(cwd);
  const login = new LoginShell({ home, cacheDir: join(home, ".cache"), exclude: [], captureTimeoutMs: 500 });
  const began = performance.now();
  const shell = await login.command("echo hi", { cwd, env: { HOME: home, PATH: process.env.PATH! }, placement: "host", capture: runProcess });
  expect(performance.now() - began).toBeLessThan(20_000); // the 0.5 s deadline, not the 30 s profile
  expect(shell.note).toMatch(/did not finish within 0.5 s/);
  expect(shell.argv).toEqual(["/bin/bash", "-c", "echo hi"]);
  expect(shell.env.BASH_ENV).toBeUndefined();
  const again = await login.command("echo hi", { cwd, env: { HOME: home, PATH: process.env.PATH! }, placement: "host", capture: runProcess });
  expect(again.note).toBeUndefined();
  login.close();
});
