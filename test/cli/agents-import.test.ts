// `scv agents import`, `login pi --openai-compatible`, `agents status` and `config show` through the real
// command line: digests reported as up to date, then as changed with the command to re-run, and no command
// ever prints a key (in text or JSON, on stdout or stderr).
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAIN, ROOT } from "../daemon/fixtures/helpers";

const root = mkdtempSync(join(tmpdir(), "scv-cli-import-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const KEYS = ["sk-relay-cli-secret-1", "sk-codex-cli-secret-2", "sk-typed-cli-secret-3", "sk-relay-cli-rotated-4"];

async function scv(args: string[], env: Record<string, string>, stdin?: string) {
  const proc = Bun.spawn(["bun", MAIN, ...args], {
    cwd: ROOT,
    env,
    stdin: stdin === undefined ? "ignore" : new Blob([stdin]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  for (const k of KEYS) {
    expect(stdout).not.toContain(k);
    expect(stderr).not.toContain(k);
  }
  return { code, stdout, stderr };
}

test("imports, pi's endpoint login, status and config show: digests up to date then changed; no key printed", async () => {
  const scvHome = join(root, "scv");
  const codexDir = join(root, "codex-src");
  mkdirSync(scvHome, { recursive: true });
  mkdirSync(codexDir, { recursive: true });
  writeFileSync(
    join(scvHome, "config.toml"),
    `[provider]\nactive = "relay"\n[providers.relay]\nbase_url = "https://relay.example.com/v1"\nmodel = "relay-model"\napi_key_env = "RELAY_TOKEN"\n` +
      `[agents.pi]\ncommand = "/bin/sh"\n[agents.scv]\ncommand = "/bin/sh"\n[agents.codex]\ncommand = "/nonexistent/codex"\n`,
  );
  writeFileSync(join(codexDir, "config.toml"), 'model = "gpt-5.5"\n');
  writeFileSync(join(codexDir, "auth.json"), JSON.stringify({ OPENAI_API_KEY: "sk-codex-cli-secret-2" }));
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: join(root, "home"), SCV_HOME: scvHome, RELAY_TOKEN: "sk-relay-cli-secret-1" };

  expect((await scv(["agents", "import", "scv"], env)).code).toBe(0);
  expect((await scv(["agents", "import", "pi", "--from-scv-provider"], env)).code).toBe(0);
  expect((await scv(["agents", "import", "codex", "--from", codexDir], env)).code).toBe(0);

  const status = await scv(["agents", "status"], env);
  expect(status.code).toBe(0);
  expect(status.stdout).toMatch(/scv\s+SCV\s+signed in \(provider "scv", model "relay-model", endpoint relay\.example\.com\)/);
  expect(status.stdout).toContain(`imported from SCV's provider "relay": up to date`);
  expect(status.stdout).toContain(`imported from ${codexDir}: up to date`);
  const shown = await scv(["config", "show"], env);
  expect(shown.stdout).toContain(`#   scv: imported from SCV's provider "relay": up to date`);
  expect(shown.stdout).toContain(`#   codex: imported from ${codexDir}: up to date`);

  // The source changes: the key rotates, and the Codex config is edited.
  const rotated = { ...env, RELAY_TOKEN: "sk-relay-cli-rotated-4" };
  writeFileSync(join(codexDir, "config.toml"), 'model = "gpt-5.6"\n');
  const after = await scv(["agents", "status", "--json"], rotated);
  const rows = JSON.parse(after.stdout).agents as { name: string; import?: string }[];
  const byName = Object.fromEntries(rows.map((r) => [r.name, r.import]));
  expect(byName.scv).toBe(`imported from SCV's provider "relay": the source has changed since; run \`scv agents import scv\``);
  expect(byName.pi).toContain("run `scv agents import pi --from-scv-provider`");
  expect(byName.codex).toContain(`run \`scv agents import codex --from ${codexDir}\``);
  const changedShow = await scv(["config", "show", "--json"], rotated);
  expect(JSON.parse(changedShow.stdout).imports.map((i: { state: string }) => i.state)).toEqual(["changed", "changed", "changed"]);

  // pi on another endpoint, the key on stdin; a wrong option is refused without echo.
  const login = await scv(["agents", "login", "pi", "--openai-compatible", "--base-url", "http://127.0.0.1:9/v1", "--wire-api", "chat", "--model", "m1"], env, "sk-typed-cli-secret-3\n");
  expect(login.code).toBe(0);
  expect(login.stdout).toContain('pi: provider "scv" (chat API, endpoint 127.0.0.1:9)');
  const refused = await scv(["agents", "login", "pi", "--openai-compatible", "sk-typed-cli-secret-3"], env, "");
  expect(refused.code).toBe(2);
  const piStatus = await scv(["agents", "status"], env);
  expect(piStatus.stdout).toMatch(/pi\s+pi\s+signed in \(default provider scv \(openai-completions, endpoint 127\.0\.0\.1:9\), model m1, stored sign-ins: scv\)/);
  expect((await scv(["agents", "logout", "pi"], env)).code).toBe(0);
  expect((await scv(["agents", "status"], env)).stdout).toMatch(/pi\s+pi\s+signed out/);
}, 60_000);
