// `scv agents import codex|grok|pi|scv`, `login pi --openai-compatible`, import digests and pi's status and
// logout, against fake homes. Invalid sources leave nothing written, and no output ever holds a key.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { parse as parseToml } from "smol-toml";
import { agentImport, importStateOf } from "../../src/accounts/imports/index";
import { describeImport } from "../../src/accounts/imports/digest";
import { piStatusDetail } from "../../src/accounts/imports/pi";
import { type Io, type LoginContext } from "../../src/accounts/login-io";
import { agentLogin, agentLogout } from "../../src/accounts/login";
import { agentsSignInStatus } from "../../src/accounts/status";
import { piSignedIn, scvSignedIn } from "../../src/agents/signin";
import { loadConfig } from "../../src/config/load";
import { BASH } from "../fake/agent-harness";

const SECRETS = ["sk-relay-secret-123", "sk-codex-key-456", "xai-grok-key-789", "sk-pi-typed-key-000"];
const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

function setup(configToml = "", env: Record<string, string> = {}) {
  const root = mkdtempSync(join(tmpdir(), "scv-import-"));
  roots.push(root);
  const scvHome = join(root, "scv");
  const userHome = join(root, "home");
  mkdirSync(scvHome, { recursive: true });
  mkdirSync(userHome, { recursive: true });
  writeFileSync(join(scvHome, "config.toml"), configToml);
  const fullEnv = { SCV_HOME: scvHome, HOME: userHome, PATH: "/usr/bin:/bin", ...env };
  const config = loadConfig({ env: fullEnv }).config;
  // Every agent "installed" (bash stands in; status only reads files for these).
  for (const name of ["grok", "dsh", "pi", "scv"] as const) config.agents[name] = { command: BASH, permissions: "default", transport: "auto" };
  const ctx: LoginContext = { scvHome, config, env: fullEnv };
  return { root, ctx, scvHome, userHome, home: (a: string) => join(scvHome, "agents", a) };
}

function io(stdin = ""): Io & { text(): string } {
  let text = "";
  const sink = { write: (s: string) => (text += s) };
  const input = Readable.from([Buffer.from(stdin)]) as unknown as NodeJS.ReadStream;
  return { stdin: input, stdout: sink, stderr: sink, text: () => text };
}

const RELAY = `[provider]
active = "relay"
[providers.relay]
wire_api = "responses"
model = "relay-model"
base_url = "https://relay.example.com/v1"
api_key_env = "RELAY_TOKEN"
timeout_seconds = 120
headers = { "x-team" = "blue" }
[web]
search = "provider"
`;
/** The same relay on the Chat API (hosted search needs the Responses API, so none). */
const CHAT_RELAY = RELAY.replace('wire_api = "responses"', 'wire_api = "chat"').replace('[web]\nsearch = "provider"\n', "");

async function run(ctx: LoginContext, args: string[], stdin = "") {
  const out = io(stdin);
  let error: Error | undefined;
  let code: number | undefined;
  try {
    code = await agentImport(ctx, args, out);
  } catch (e) {
    error = e as Error;
  }
  return { code, error, text: out.text() };
}

const mode = (p: string) => statSync(p).mode & 0o777;
const noSecret = (text: string) => {
  for (const s of SECRETS) expect(text).not.toContain(s);
};

describe("import scv", () => {
  test("copies SCV's active provider with the key resolved now; other settings kept; digest up to date, then changed", async () => {
    const { ctx, home, scvHome } = setup(RELAY, { RELAY_TOKEN: "sk-relay-secret-123" });
    mkdirSync(home("scv"), { recursive: true });
    writeFileSync(join(home("scv"), "config.toml"), "[tools]\nmax_steps = 7\n");
    const r = await run(ctx, ["scv"]);
    expect(r.error).toBeUndefined();
    expect(r.text).toContain('provider "relay" (responses API, model relay-model, endpoint relay.example.com)');
    noSecret(r.text);
    const file = join(home("scv"), "config.toml");
    expect(mode(file)).toBe(0o600);
    const written = parseToml(readFileSync(file, "utf8")) as any;
    expect(written.provider.active).toBe("scv");
    expect(written.providers.scv).toEqual({
      kind: "openai",
      wire_api: "responses",
      model: "relay-model",
      base_url: "https://relay.example.com/v1",
      timeout_seconds: 120,
      headers: { "x-team": "blue" },
      api_key: "sk-relay-secret-123",
    });
    expect(written.web.search).toBe("provider");
    expect(written.tools.max_steps).toBe(7);
    expect(scvSignedIn({ home: home("scv"), env: {} })).toBe(true);

    const record = readFileSync(join(scvHome, "state", "imports", "scv.json"), "utf8");
    noSecret(record);
    expect(JSON.parse(record).digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(describeImport(importStateOf(ctx, "scv")!)).toBe(`imported from SCV's provider "relay": up to date`);
    const changed = { ...ctx, env: { ...ctx.env, RELAY_TOKEN: "sk-relay-rotated" } };
    expect(describeImport(importStateOf(changed, "scv")!)).toBe(
      "imported from SCV's provider \"relay\": the source has changed since; run `scv agents import scv`",
    );

    const rows = await agentsSignInStatus(ctx);
    const scv = rows.find((x) => x.name === "scv")!;
    expect(scv.summary).toBe('signed in (provider "scv", model "relay-model", endpoint relay.example.com)');
    expect(scv.import).toContain("up to date");
    noSecret(JSON.stringify(rows));

    const out = io();
    await agentLogout(ctx, ["scv"], out);
    expect(existsSync(file)).toBe(false);
    expect(importStateOf(ctx, "scv")).toBeUndefined();
  });

  test("no key to copy, or an unreadable existing file: nothing is written", async () => {
    const { ctx, home, scvHome } = setup(RELAY);
    const missing = await run(ctx, ["scv"]);
    expect(missing.error?.message).toContain("RELAY_TOKEN");
    expect(existsSync(home("scv"))).toBe(false);
    expect(existsSync(join(scvHome, "state", "imports"))).toBe(false);

    const withKey = { ...ctx, env: { ...ctx.env, RELAY_TOKEN: "sk-relay-secret-123" } };
    mkdirSync(home("scv"), { recursive: true });
    writeFileSync(join(home("scv"), "config.toml"), "this is = = not toml");
    const bad = await run(withKey, ["scv"]);
    expect(bad.error?.message).toContain("left untouched");
    expect(readFileSync(join(home("scv"), "config.toml"), "utf8")).toBe("this is = = not toml");
    noSecret(bad.error!.message);
  });

  test("a keyless profile (a local endpoint) is copied without a key, said so, and counts as signed in; pi still needs a key", async () => {
    const LOCAL = '[provider]\nactive = "local"\n[providers.local]\nbase_url = "http://127.0.0.1:8080/v1"\nwire_api = "chat"\nmodel = "my-model"\n';
    const { ctx, home } = setup(LOCAL);
    const r = await run(ctx, ["scv"]);
    expect(r.error).toBeUndefined();
    expect(r.text).toContain("no key: the profile sets none");
    const written = parseToml(readFileSync(join(home("scv"), "config.toml"), "utf8")) as any;
    expect(written.providers.scv).toMatchObject({ base_url: "http://127.0.0.1:8080/v1", wire_api: "chat", model: "my-model" });
    expect(written.providers.scv.api_key).toBeUndefined();
    expect(scvSignedIn({ home: home("scv"), env: {} })).toBe(true);
    expect(describeImport(importStateOf(ctx, "scv")!)).toContain("up to date");
    const pi = await run(ctx, ["pi", "--from-scv-provider"]);
    expect(pi.error?.message).toContain("has no key to copy");
  });

  test("login scv is import scv", async () => {
    const { ctx, home } = setup(RELAY, { RELAY_TOKEN: "sk-relay-secret-123" });
    const out = io();
    expect(await agentLogin(ctx, ["scv"], out)).toBe(0);
    expect(existsSync(join(home("scv"), "config.toml"))).toBe(true);
    noSecret(out.text());
  });
});

function codexSource(root: string, config: string, auth?: string): string {
  const dir = join(root, "my-codex");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "config.toml"), config);
  if (auth !== undefined) writeFileSync(join(dir, "auth.json"), auth);
  return dir;
}

const CODEX_CONFIG = `model = "gpt-5.5"
model_provider = "relay"
approval_policy = "never"
sandbox_mode = "danger-full-access"
[model_providers.relay]
base_url = "https://relay.example.com/v1"
wire_api = "responses"
env_key = "RELAY_OPENAI_API_KEY"
`;

describe("import codex", () => {
  test("config.toml whole, auth.json only with an API key; policies reported, env_key flagged, key never printed", async () => {
    const { ctx, root, home } = setup();
    const dir = codexSource(root, CODEX_CONFIG, JSON.stringify({ OPENAI_API_KEY: "sk-codex-key-456" }));
    const r = await run(ctx, ["codex", "--from", dir]);
    expect(r.error).toBeUndefined();
    expect(r.text).toContain("model gpt-5.5, provider relay, approval_policy never, sandbox_mode danger-full-access");
    expect(r.text).toContain("auth.json: API key copied");
    expect(r.text).toContain("env_key RELAY_OPENAI_API_KEY");
    noSecret(r.text);
    expect(readFileSync(join(home("codex"), "config.toml"), "utf8")).toBe(CODEX_CONFIG);
    expect(JSON.parse(readFileSync(join(home("codex"), "auth.json"), "utf8"))).toEqual({ OPENAI_API_KEY: "sk-codex-key-456" });
    expect(mode(join(home("codex"), "auth.json"))).toBe(0o600);
    expect(importStateOf(ctx, "codex")?.state).toBe("up_to_date");
    writeFileSync(join(dir, "config.toml"), CODEX_CONFIG.replace("gpt-5.5", "gpt-5.6"));
    expect(describeImport(importStateOf(ctx, "codex")!)).toBe(`imported from ${dir}: the source has changed since; run \`scv agents import codex --from ${dir}\``);
  });

  test("a ChatGPT sign-in is never copied; the default source is $CODEX_HOME", async () => {
    const { ctx, root, home } = setup();
    const dir = codexSource(root, 'model = "o5"\n', JSON.stringify({ auth_mode: "chatgpt", tokens: { refresh_token: "rt-secret" } }));
    const r = await run({ ...ctx, env: { ...ctx.env, CODEX_HOME: dir } }, ["codex"]);
    expect(r.text).toContain("ChatGPT sign-in, which is never copied");
    expect(existsSync(join(home("codex"), "auth.json"))).toBe(false);
    expect(existsSync(join(home("codex"), "config.toml"))).toBe(true);
    expect(r.text).not.toContain("rt-secret");
  });

  test("an invalid config.toml or auth.json writes neither", async () => {
    const { ctx, root, home, scvHome } = setup();
    const badAuth = codexSource(root, CODEX_CONFIG, "{not json");
    expect((await run(ctx, ["codex", "--from", badAuth])).error?.message).toContain("auth.json is not valid JSON");
    writeFileSync(join(badAuth, "config.toml"), "model = ");
    writeFileSync(join(badAuth, "auth.json"), "{}");
    expect((await run(ctx, ["codex", `--from=${badAuth}`])).error?.message).toContain("config.toml is not valid TOML");
    expect((await run(ctx, ["codex", "--from", join(root, "nowhere")])).error?.message).toContain("no config.toml");
    expect(existsSync(home("codex"))).toBe(false);
    expect(existsSync(join(scvHome, "state", "imports", "codex.json"))).toBe(false);
  });
});

describe("import grok", () => {
  const YOURS = `[model.relay]
base_url = "https://relay.example.com/v1"
api_key = "xai-grok-key-789"
[models]
default = "relay"
`;

  test("merges by top-level table: yours win, SCV-only tables stay; profiles and default printed, never the key", async () => {
    const { ctx, root, home } = setup();
    const dir = join(root, "my-grok");
    mkdirSync(dir);
    writeFileSync(join(dir, "config.toml"), YOURS);
    mkdirSync(join(home("grok"), ".grok"), { recursive: true });
    writeFileSync(join(home("grok"), ".grok", "config.toml"), '[marketplace]\ninstalled = ["x"]\n[models]\ndefault = "old"\n');
    writeFileSync(join(home("grok"), ".grok", "auth.json"), "{}");
    const r = await run({ ...ctx, env: { ...ctx.env, GROK_HOME: dir } }, ["grok"]);
    expect(r.error).toBeUndefined();
    expect(r.text).toContain("profiles: relay");
    expect(r.text).toContain("default model: relay");
    noSecret(r.text);
    const merged = parseToml(readFileSync(join(home("grok"), ".grok", "config.toml"), "utf8")) as any;
    expect(merged.marketplace).toEqual({ installed: ["x"] });
    expect(merged.models).toEqual({ default: "relay" });
    expect(merged.model.relay.api_key).toBe("xai-grok-key-789");
    expect(mode(join(home("grok"), ".grok", "config.toml"))).toBe(0o600);
    expect(readFileSync(join(home("grok"), ".grok", "auth.json"), "utf8")).toBe("{}");
    expect(importStateOf({ ...ctx, env: { ...ctx.env, GROK_HOME: dir } }, "grok")?.state).toBe("up_to_date");
    rmSync(join(dir, "config.toml"));
    expect(importStateOf(ctx, "grok")?.state).toBe("source_unreadable");
  });

  test("invalid TOML, or a default naming no profile, writes nothing", async () => {
    const { ctx, root, home } = setup();
    const dir = join(root, "my-grok");
    mkdirSync(dir);
    writeFileSync(join(dir, "config.toml"), "[models\n");
    expect((await run(ctx, ["grok", "--from", dir])).error?.message).toContain("not valid TOML");
    writeFileSync(join(dir, "config.toml"), '[models]\ndefault = "ghost"\n');
    expect((await run(ctx, ["grok", "--from", dir])).error?.message).toContain("names no profile");
    expect(existsSync(join(home("grok"), ".grok", "config.toml"))).toBe(false);
  });
});

describe("pi on any OpenAI-compatible endpoint", () => {
  function seedPi(dir: string) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "models.json"), JSON.stringify({ providers: { local: { baseUrl: "http://127.0.0.1:1/v1", api: "openai-completions" } } }));
    writeFileSync(join(dir, "auth.json"), JSON.stringify({ anthropic: { type: "api_key", key: "sk-ant-other" } }));
    writeFileSync(join(dir, "settings.json"), JSON.stringify({ defaultThinkingLevel: "off", defaultProvider: "anthropic" }));
  }

  test("login --openai-compatible writes provider scv (Responses, openai-nosession), its key and the default; others kept", async () => {
    const { ctx, home } = setup();
    const dir = join(home("pi"), ".pi", "agent");
    seedPi(dir);
    const out = io("sk-pi-typed-key-000\n");
    const code = await agentLogin(ctx, ["pi", "--openai-compatible", "--base-url", "https://relay.example.com/v1", "--wire-api=responses", "--model", "relay-1"], out);
    expect(code).toBe(0);
    noSecret(out.text());
    const models = JSON.parse(readFileSync(join(dir, "models.json"), "utf8"));
    expect(models.providers.local).toBeDefined();
    expect(models.providers.scv).toMatchObject({
      baseUrl: "https://relay.example.com/v1",
      api: "openai-responses",
      compat: { sessionAffinityFormat: "openai-nosession" },
      models: [{ id: "relay-1" }],
    });
    expect(models.providers.scv.apiKey).not.toContain("sk-");
    const auth = JSON.parse(readFileSync(join(dir, "auth.json"), "utf8"));
    expect(auth).toEqual({ anthropic: { type: "api_key", key: "sk-ant-other" }, scv: { type: "api_key", key: "sk-pi-typed-key-000" } });
    const settings = JSON.parse(readFileSync(join(dir, "settings.json"), "utf8"));
    expect(settings).toEqual({ defaultThinkingLevel: "off", defaultProvider: "scv", defaultModel: "relay-1" });
    for (const f of ["models.json", "auth.json", "settings.json"]) expect(mode(join(dir, f))).toBe(0o600);
    expect(piStatusDetail(dir)).toBe("default provider scv (openai-responses, endpoint relay.example.com), model relay-1, stored sign-ins: anthropic, scv");

    const bye = io();
    await agentLogout(ctx, ["pi"], bye);
    expect(existsSync(join(dir, "auth.json"))).toBe(false);
    const after = JSON.parse(readFileSync(join(dir, "models.json"), "utf8"));
    expect(Object.keys(after.providers)).toEqual(["local"]);
    expect(JSON.parse(readFileSync(join(dir, "settings.json"), "utf8"))).toEqual({ defaultThinkingLevel: "off" });
    expect(piSignedIn({ home: home("pi"), env: {} })).toBe(false);
  });

  test("chat wire API, bad options, and a broken existing file write nothing", async () => {
    const { ctx, home } = setup();
    const dir = join(home("pi"), ".pi", "agent");
    await agentLogin(ctx, ["pi", "--openai-compatible", "--base-url", "http://127.0.0.1:9/v1", "--wire-api", "chat", "--model", "m"], io("sk-pi-typed-key-000\n"));
    const models = JSON.parse(readFileSync(join(dir, "models.json"), "utf8"));
    expect(models.providers.scv.api).toBe("openai-completions");
    expect(models.providers.scv.compat).toBeUndefined();

    const fails = async (args: string[]) => {
      try {
        await agentLogin(ctx, ["pi", "--openai-compatible", ...args], io("sk-pi-typed-key-000\n"));
      } catch (e) {
        return (e as Error).message;
      }
      return "";
    };
    writeFileSync(join(dir, "settings.json"), "{broken");
    const before = readFileSync(join(dir, "models.json"), "utf8");
    expect(await fails(["--base-url", "https://x.example/v1", "--wire-api", "chat", "--model", "m2"])).toContain("settings.json is not valid JSON");
    expect(readFileSync(join(dir, "models.json"), "utf8")).toBe(before);
    expect(await fails(["--base-url", "ftp://x", "--wire-api", "chat", "--model", "m"])).toContain("http:// or https://");
    expect(await fails(["--base-url", "https://x/v1", "--wire-api", "soap", "--model", "m"])).toContain("responses or chat");
    const stray = await fails(["sk-pi-typed-key-000"]);
    expect(stray).toContain("unexpected argument");
    expect(stray).not.toContain("sk-pi-typed-key-000");
    expect(await fails(["--base-url", "https://x/v1"])).toContain("pass it as an option");
  });

  test("import pi --from-scv-provider takes all four from SCV's provider and records a digest", async () => {
    const { ctx, home } = setup(CHAT_RELAY, { RELAY_TOKEN: "sk-relay-secret-123" });
    const r = await run(ctx, ["pi", "--from-scv-provider"]);
    expect(r.error).toBeUndefined();
    noSecret(r.text);
    const dir = join(home("pi"), ".pi", "agent");
    const models = JSON.parse(readFileSync(join(dir, "models.json"), "utf8"));
    expect(models.providers.scv).toMatchObject({ baseUrl: "https://relay.example.com/v1", api: "openai-completions", headers: { "x-team": "blue" }, models: [{ id: "relay-model" }] });
    expect(JSON.parse(readFileSync(join(dir, "auth.json"), "utf8")).scv.key).toBe("sk-relay-secret-123");
    expect(importStateOf(ctx, "pi")?.state).toBe("up_to_date");
    const rows = await agentsSignInStatus(ctx);
    const pi = rows.find((x) => x.name === "pi")!;
    expect(pi.summary).toBe("signed in (default provider scv (openai-completions, endpoint relay.example.com), model relay-model, stored sign-ins: scv)");
    expect(pi.import).toBe(`imported from SCV's provider "relay": up to date`);
    noSecret(JSON.stringify(rows));
    expect((await run(ctx, ["pi"])).error?.message).toContain("--from-scv-provider");
    expect((await run(ctx, ["dsh"])).error?.message).toContain("nothing to import");
  });
});
