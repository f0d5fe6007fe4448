// `[sandbox]`: user config only; bad writable_roots and hidden_paths entries are errors naming the key.
import { afterEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load";
import { configErrorOf, configHome, removeConfigHomes } from "../config/config-homes";

afterEach(removeConfigHomes);

test("defaults: workspace-write, no network, auto_run, not required", () => {
  const { env, ws } = configHome();
  expect(loadConfig({ cwd: ws, env }).config.sandbox).toEqual({ mode: "workspace-write", writable_roots: [], hidden_paths: [], network: false, auto_run: true, required: false, allow_unix_sockets: [] });
});

test("a project file cannot set [checkpoints] (a command could write one to turn rewind off)", () => {
  const { env, ws } = configHome(undefined, `[checkpoints]\nenabled = false\n`);
  const msg = configErrorOf(() => loadConfig({ cwd: ws, env }));
  expect(msg).toContain("cannot set checkpoints");
});

test('auto_run takes "always" (run unasked even where only part of the sandbox is enforced)', () => {
  const { env, ws } = configHome(`[sandbox]\nauto_run = "always"\n`);
  expect(loadConfig({ cwd: ws, env }).config.sandbox.auto_run).toBe("always");
});

test("a project file cannot set [sandbox]", () => {
  const { env, ws } = configHome(undefined, `[sandbox]\nmode = "off"\n`);
  const msg = configErrorOf(() => loadConfig({ cwd: ws, env }));
  expect(msg).toContain("cannot set sandbox");
  expect(msg).toContain(join(ws, ".scv", "config.toml"));
});

for (const [toml, key, why] of [
  [`writable_roots = ["build"]`, "sandbox.writable_roots", /absolute path/],
  [`writable_roots = ["~/cache"]`, "sandbox.writable_roots", /absolute path/],
  [`hidden_paths = ["secrets"]`, "sandbox.hidden_paths", /absolute path/],
  [`writable_roots = ["/"]`, "sandbox.writable_roots", /whole machine/],
  [`writable_roots = ["//"]`, "sandbox.writable_roots", /whole machine/],
  [`mode = "danger"`, "sandbox.mode", /workspace-write, read-only, off/],
  [`network = "yes"`, "sandbox.network", /true or false/],
  [`auto_run = "sometimes"`, "sandbox.auto_run", /true, false or "always"/],
  [`allow_unix_sockets = ["docker.sock"]`, "sandbox.allow_unix_sockets", /absolute path/],
] as const) {
  test(`bad input: ${toml}`, () => {
    const { env, ws, home } = configHome(`[sandbox]\n${toml}\n`);
    const msg = configErrorOf(() => loadConfig({ cwd: ws, env }));
    expect(msg).toContain(join(home, "config.toml"));
    expect(msg).toContain(key);
    expect(msg).toMatch(why);
  });
}

test("writable_roots naming the home, a parent of it, or SCV_HOME is refused", () => {
  for (const [pick, why] of [
    [(r: { root: string; home: string }) => r.root, /home directory/], // HOME is the root here
    [(r: { root: string; home: string }) => join(r.root, ".."), /home directory/],
    [(r: { root: string; home: string }) => r.home, /SCV's own files/], // SCV_HOME
  ] as const) {
    const made = configHome();
    writeFileSync(join(made.home, "config.toml"), `[sandbox]\nwritable_roots = ["${pick(made)}"]\n`);
    const msg = configErrorOf(() => loadConfig({ cwd: made.ws, env: made.env }));
    expect(msg).toContain("sandbox.writable_roots");
    expect(msg).toMatch(why);
  }
});

test("a hidden path that does not exist is fine; a good writable root loads", () => {
  const { env, ws } = configHome(`[sandbox]\nhidden_paths = ["/nonexistent/secret"]\nwritable_roots = ["/var/cache/scv-build"]\n`);
  const { config } = loadConfig({ cwd: ws, env });
  expect(config.sandbox.hidden_paths).toEqual(["/nonexistent/secret"]);
  expect(config.sandbox.writable_roots).toEqual(["/var/cache/scv-build"]);
});

test("[sandbox.network] as a table: allow, deny, presets and mode load, defaults filled", () => {
  const { env, ws } = configHome(`[sandbox.network]\nallow = ["example.org", "*.example.net:443", "93.184.216.34"]\ndeny = ["bad.example.org"]\npresets = ["npm", "github"]\nmode = "read"\n`);
  expect(loadConfig({ cwd: ws, env }).config.sandbox.network).toEqual({ allow: ["example.org", "*.example.net:443", "93.184.216.34"], deny: ["bad.example.org"], presets: ["npm", "github"], mode: "read", allow_private: false });
});

for (const [toml, key, why] of [
  [`allow = ["exa mple.org"]`, "sandbox.network.allow", /not a host pattern/],
  [`allow = ["*.org"]`, "sandbox.network.allow", /whole top-level domain/],
  [`deny = ["example.org:http"]`, "sandbox.network.deny", /no valid port/],
  [`allow = ["example.org:70000"]`, "sandbox.network.allow", /1 to 65535/],
  [`presets = ["cpan"]`, "sandbox.network.presets", /npm, pypi, crates, go, rubygems, maven, debian, github, gitlab/],
  [`allow = ["10.0.0.5"]`, "sandbox.network.allow", /allow_private = true/],
  [`allow = ["127.0.0.1:8080"]`, "sandbox.network.allow", /allow_private = true/],
  [`allow = ["[fe80::1]"]`, "sandbox.network.allow", /allow_private = true/],
  [`mode = "write"`, "sandbox.network.mode", /"read"/],
] as const) {
  test(`bad [sandbox.network] input: ${toml}`, () => {
    const { env, ws } = configHome(`[sandbox.network]\n${toml}\n`);
    const msg = configErrorOf(() => loadConfig({ cwd: ws, env }));
    expect(msg).toContain(key);
    expect(msg).toMatch(why);
  });
}

test("a private address listed with allow_private = true loads", () => {
  const { env, ws } = configHome(`[sandbox.network]\nallow = ["127.0.0.1:8080"]\nallow_private = true\n`);
  expect(loadConfig({ cwd: ws, env }).config.sandbox.network).toMatchObject({ allow: ["127.0.0.1:8080"], allow_private: true });
});
