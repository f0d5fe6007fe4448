import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadConfig, resolveApiKey } from "../../src/config/load";
import { effectiveEntries, renderEntries } from "../../src/config/show";
import { configErrorOf, configHome, removeConfigHomes } from "./config-homes";

const setup = configHome;
const errorOf = configErrorOf;
afterEach(removeConfigHomes);

describe("defaults", () => {
  test("no file: built-in openai profile with OPENAI_API_KEY", () => {
    const { env, ws } = setup();
    const { config } = loadConfig({ cwd: ws, env });
    expect(config.provider.active).toBe("openai");
    expect(config.providers.openai!.api_key_env).toBe("OPENAI_API_KEY");
    expect(config.providers.openai!.wire_api).toBe("responses");
    expect(config.tools).toMatchObject({ approval_policy: "on-risk", command_timeout_seconds: 600, max_timeout_seconds: 14400, agent_timeout_seconds: 3600 });
    expect(config.web.fetch_max_bytes).toBe(2 * 1024 * 1024);
  });
});

describe("errors name the file, the key and what is accepted", () => {
  test("unknown key", () => {
    const { env, ws, home } = setup(`[tools]\ncomand_timeout_seconds = 5\n`);
    const msg = errorOf(() => loadConfig({ cwd: ws, env }));
    expect(msg).toContain(join(home, "config.toml"));
    expect(msg).toContain("tools.comand_timeout_seconds");
    expect(msg).toContain("unknown key");
  });
  test("an unknown key within two edits of an accepted one gets a did-you-mean; others do not", () => {
    const { env, ws } = setup(`[tools]\ncomand_timeout_seconds = 5\n[providers.x]\nbase_url = "http://127.0.0.1:1/v1"\nmodle = "m"\n[web]\nzzz = 1\n`);
    const msg = errorOf(() => loadConfig({ cwd: ws, env }));
    expect(msg).toContain("tools.comand_timeout_seconds (did you mean `command_timeout_seconds`?)");
    expect(msg).toContain("providers.x.modle (did you mean `model`?)");
    expect(msg).toMatch(/unknown key web\.zzz; /);
  });
  test("wrong type", () => {
    const { env, ws } = setup(`[tools]\ncommand_timeout_seconds = "ten"\n`);
    expect(errorOf(() => loadConfig({ cwd: ws, env }))).toMatch(/tools\.command_timeout_seconds: .*number/);
  });
  test("bad enum value lists the accepted values", () => {
    const { env, ws } = setup(`[tools]\napproval_policy = "sometimes"\n`);
    const msg = errorOf(() => loadConfig({ cwd: ws, env }));
    expect(msg).toContain("tools.approval_policy");
    expect(msg).toContain("on-risk");
  });
  test("invalid TOML", () => {
    const { env, ws, home } = setup(`[tools\n`);
    expect(errorOf(() => loadConfig({ cwd: ws, env }))).toContain(`${join(home, "config.toml")}: not valid TOML`);
  });
  test("invalid TOML names the line and column, and never echoes the line (it may hold a key)", () => {
    const { env, ws } = setup(`[tools]\nmax_steps = 3\n[providers.openai]\napi_key = sk-unquoted-secret-value\n`);
    const msg = errorOf(() => loadConfig({ cwd: ws, env }));
    expect(msg).toContain("at line 4, column");
    expect(msg).not.toContain("unquoted-secret");
  });
  test("a profile name the schema refuses says which names are accepted", () => {
    const { env, ws } = setup(`[providers."my profile"]\nmodel = "m"\n`);
    const msg = errorOf(() => loadConfig({ cwd: ws, env }));
    expect(msg).toContain(`providers.my profile`);
    expect(msg).toContain("letters, digits, _ and -");
  });
  test("a timeout longer than a timer can hold is refused with the bound", () => {
    const { env, ws } = setup(`[tools]\nmax_timeout_seconds = 3000000\n`);
    expect(errorOf(() => loadConfig({ cwd: ws, env }))).toContain("tools.max_timeout_seconds: must be at most 2147483");
  });
  test("negative and fractional numbers", () => {
    const a = setup(`[tools]\ncommand_timeout_seconds = -1\n`);
    expect(errorOf(() => loadConfig({ cwd: a.ws, env: a.env }))).toContain("greater than 0");
    const b = setup(`[tools]\noutput_limit_bytes = 1.5\n`);
    expect(errorOf(() => loadConfig({ cwd: b.ws, env: b.env }))).toContain("whole number");
  });
  test("cross-key rule: command timeout above the ceiling", () => {
    const { env, ws } = setup(`[tools]\ncommand_timeout_seconds = 100\nmax_timeout_seconds = 50\n`);
    expect(errorOf(() => loadConfig({ cwd: ws, env }))).toContain("exceeds tools.max_timeout_seconds");
  });
  test("cross-key rule names the file that set the value: a project timeout above the user's ceiling", () => {
    const { env, ws } = setup(`[tools]\nmax_timeout_seconds = 50\n`, `[tools]\nagent_timeout_seconds = 60\ncommand_timeout_seconds = 40\n`);
    const msg = errorOf(() => loadConfig({ cwd: ws, env }));
    expect(msg).toContain(`${join(ws, ".scv", "config.toml")}: tools.agent_timeout_seconds (60) exceeds tools.max_timeout_seconds (50)`);
    expect(msg).not.toContain("command_timeout_seconds");
  });
  test("a default above a lowered ceiling is blamed on the file that lowered it", () => {
    const { env, ws, home } = setup(`[tools]\nmax_timeout_seconds = 300\n`);
    expect(errorOf(() => loadConfig({ cwd: ws, env }))).toContain(`${join(home, "config.toml")}: tools.command_timeout_seconds (600) exceeds`);
  });
  test("active profile that does not exist", () => {
    const { env, ws } = setup(`[provider]\nactive = "nope"\n`);
    expect(errorOf(() => loadConfig({ cwd: ws, env }))).toContain(`no provider profile named "nope"`);
  });
  test("bad base_url", () => {
    const { env, ws } = setup(`[providers.x]\nbase_url = "ftp://x"\n`);
    expect(errorOf(() => loadConfig({ cwd: ws, env }))).toContain("providers.x.base_url");
  });
});

describe("project files", () => {
  test("may set ordinary keys, which win over the user file", () => {
    const { env, ws } = setup(`[tools]\ncommand_timeout_seconds = 100\n`, `[tools]\ncommand_timeout_seconds = 30\n`);
    const loaded = loadConfig({ cwd: ws, env });
    expect(loaded.config.tools.command_timeout_seconds).toBe(30);
    expect(loaded.sources.get("tools.command_timeout_seconds")).toBe(join(ws, ".scv", "config.toml"));
  });
  for (const [toml, key] of [
    [`[tools]\napproval_policy = "on-risk"\n`, "tools.approval_policy"],
    [`[web]\nallow_private_addresses = true\n`, "web.allow_private_addresses"],
    [`[providers.evil]\nbase_url = "http://evil.test/v1"\n`, "providers"],
    [`[agents.codex]\ncommand = "/tmp/x"\n`, "agents"],
    [`[agent]\nprefer = ["codex"]\n`, "agent"],
    [`[provider]\nactive = "openai"\n`, "provider"],
    [`[skills]\nroots = ["/srv/skills"]\n`, "skills.roots"],
    [`[sessions]\nkeep_days = 1\n`, "sessions"],
    [`[transcription]\ncommand = ["/tmp/x"]\n`, "transcription"],
    [`[channels.telegram]\nbase_url = "http://evil.test"\n`, "channels"],
  ] as const) {
    test(`refuses user-only ${key}`, () => {
      const { env, ws } = setup(undefined, toml);
      const msg = errorOf(() => loadConfig({ cwd: ws, env }));
      expect(msg).toContain(`cannot set ${key}`);
      expect(msg).toContain(join(ws, ".scv", "config.toml"));
    });
  }
});

test("sessions.keep_days defaults to 90 and is taken from the user file", () => {
  const fresh = setup();
  expect(loadConfig({ cwd: fresh.ws, env: fresh.env }).config.sessions.keep_days).toBe(90);
  const { env, ws } = setup(`[sessions]\nkeep_days = 7\n`);
  expect(loadConfig({ cwd: ws, env }).config.sessions.keep_days).toBe(7);
  const zero = setup(`[sessions]\nkeep_days = 0\n`);
  expect(errorOf(() => loadConfig({ cwd: zero.ws, env: zero.env }))).toContain("sessions.keep_days");
});

test("[prices] and [limits]: a price for any model is accepted; a negative or non-numeric one is an error naming the key", () => {
  const ok = setup(`[prices."model-not-used-yet"]\ninput_per_mtok = 1.5\noutput_per_mtok = 6\n[limits]\ndaily_cost = 2\n`);
  const { config } = loadConfig({ cwd: ok.ws, env: ok.env });
  expect(config.prices["model-not-used-yet"]).toEqual({ input_per_mtok: 1.5, output_per_mtok: 6 });
  expect(config.limits).toEqual({ daily_cost: 2 });
  expect(loadConfig({ cwd: setup().ws, env: setup().env }).config).toMatchObject({ prices: {}, limits: {} });
  const negative = setup(`[prices.m]\ninput_per_mtok = -1\noutput_per_mtok = 1\n`);
  expect(errorOf(() => loadConfig({ cwd: negative.ws, env: negative.env }))).toMatch(/prices\.m\.input_per_mtok.*must not be negative/);
  const text = setup(`[limits]\ndaily_tokens = "lots"\n`);
  expect(errorOf(() => loadConfig({ cwd: text.ws, env: text.env }))).toMatch(/limits\.daily_tokens.*must be a number/);
  const project = setup("", `[limits]\ndaily_cost = 100\n`);
  expect(errorOf(() => loadConfig({ cwd: project.ws, env: project.env }))).toContain("limits");
});

describe("selectors and secrets", () => {
  test("SCV_PROVIDER and SCV_MODEL", () => {
    const { env, ws } = setup(`[providers.openai]\nmodel = "a"\n[providers.local]\nbase_url = "http://127.0.0.1:1/v1"\nmodel = "b"\n`);
    const loaded = loadConfig({ cwd: ws, env: { ...env, SCV_PROVIDER: "local", SCV_MODEL: "c" } });
    expect(loaded.config.provider.active).toBe("local");
    expect(loaded.config.providers.local!.model).toBe("c");
    expect(loaded.sources.get("providers.local.model")).toBe("env SCV_MODEL");
  });
  test("config show never prints key values", () => {
    const secret = "sk-supersecret-123456";
    const { env, ws } = setup(`[providers.openai]\napi_key = "${secret}"\nheaders = { Authorization = "Bearer tok-999" }\n[providers.b]\napi_key_env = "B_KEY"\n`);
    const e2 = { ...env, B_KEY: "other-secret-value" };
    const loaded = loadConfig({ cwd: ws, env: e2 });
    const text = renderEntries(effectiveEntries(loaded, e2));
    expect(text).not.toContain(secret);
    expect(text).not.toContain("tok-999");
    expect(text).not.toContain("other-secret-value");
    expect(text).toContain(`providers.openai.api_key = "set"`);
    expect(text).toContain(`providers.b.api_key (from B_KEY) = "set"`);
    expect(resolveApiKey(loaded.config.providers.b!, e2)).toBe("other-secret-value");
  });
  test("config show masks credentials inside URLs (a proxy's user:password)", () => {
    const { env, ws } = setup(`[providers.openai]\nproxy = "http://alice:pr0xy-pass@127.0.0.1:3128"\nbase_url = "https://tok-in-url@llm.example/v1"\n`);
    const text = renderEntries(effectiveEntries(loadConfig({ cwd: ws, env }), env));
    expect(text).not.toContain("pr0xy-pass");
    expect(text).not.toContain("alice");
    expect(text).not.toContain("tok-in-url");
    expect(text).toContain(`providers.openai.proxy = "http://***:***@127.0.0.1:3128/"`);
    expect(text).toContain("llm.example/v1");
  });
});

describe("[skills]", () => {
  test("defaults, user settings and the project's ordinary keys", () => {
    expect(loadConfig({ cwd: setup().ws, env: setup().env }).config.skills).toEqual({ enabled: true, max_skills: 64, max_skill_bytes: 65536, roots: [] });
    const { env, ws } = setup(`[skills]\nroots = ["~/team-skills", "/srv/skills"]\nmax_skills = 10\n`, `[skills]\nmax_skills = 5\nenabled = false\n`);
    const { config, sources } = loadConfig({ cwd: ws, env });
    expect(config.skills).toEqual({ enabled: false, max_skills: 5, max_skill_bytes: 65536, roots: ["~/team-skills", "/srv/skills"] });
    expect(sources.get("skills.max_skills")).toBe(join(ws, ".scv", "config.toml"));
  });
  test("bad values name the key and what is accepted", () => {
    const relative = setup(`[skills]\nroots = ["skills"]\n`);
    expect(errorOf(() => loadConfig({ cwd: relative.ws, env: relative.env }))).toContain("skills.roots.0: must be an absolute path or start with ~/");
    const tiny = setup(`[skills]\nmax_skill_bytes = 10\n`);
    expect(errorOf(() => loadConfig({ cwd: tiny.ws, env: tiny.env }))).toContain("skills.max_skill_bytes: must be at least 1024");
    const unknown = setup(`[skills]\npath = "/x"\n`);
    expect(errorOf(() => loadConfig({ cwd: unknown.ws, env: unknown.env }))).toContain("unknown key skills.path");
  });
});

describe("model loop keys", () => {
  test("reasoning, timeouts and context keys have defaults and are validated", () => {
    const { env, ws } = setup(`[providers.p]\nmodel = "x"\n`);
    const p = loadConfig({ cwd: ws, env }).config.providers.p!;
    expect(p).toMatchObject({ stream_idle_timeout_seconds: 300, compact_at: 0.8 });
    expect(p.reasoning_effort).toBeUndefined();
    expect(p.context_window).toBeUndefined();
    const bad = setup(`[providers.p]\nreasoning_effort = "huge"\n`);
    expect(errorOf(() => loadConfig({ cwd: bad.ws, env: bad.env }))).toContain("providers.p.reasoning_effort: must be one of: none, minimal, low, medium, high, xhigh");
    const badAt = setup(`[providers.p]\ncompact_at = 1.5\n`);
    expect(errorOf(() => loadConfig({ cwd: badAt.ws, env: badAt.env }))).toContain("providers.p.compact_at: must be at most 1");
  });

  test('web.search = "provider" with a chat profile is a configuration error that says why', () => {
    const { env, ws, home } = setup(`[providers.local]\nwire_api = "chat"\nbase_url = "http://127.0.0.1:1/v1"\n[web]\nsearch = "provider"\n`);
    const msg = errorOf(() => loadConfig({ cwd: ws, env }));
    expect(msg).toContain(join(home, "config.toml"));
    expect(msg).toContain("needs the Responses API");
    expect(msg).toContain('wire_api = "chat"');
    const ok = setup(`[providers.local]\nwire_api = "responses"\n[web]\nsearch = "provider"\n`);
    expect(loadConfig({ cwd: ok.ws, env: ok.env }).config.web.search).toBe("provider");
  });
});

describe("[transcription] and [channels.telegram]", () => {
  test("transcription takes a provider profile or a command, not both or neither, and names a profile that exists", () => {
    const ok = setup(`[transcription]\nprovider = "openai"\n`);
    expect(loadConfig({ cwd: ok.ws, env: ok.env }).config.transcription).toMatchObject({ provider: "openai", model: "whisper-1", max_mb: 20, timeout_seconds: 120 });
    const none = setup();
    expect(loadConfig({ cwd: none.ws, env: none.env }).config.transcription).toBeUndefined();
    const both = setup(`[transcription]\nprovider = "openai"\ncommand = ["whisper-cli", "-f", "{file}"]\n`);
    expect(errorOf(() => loadConfig({ cwd: both.ws, env: both.env }))).toContain("transcription: set either provider");
    const neither = setup(`[transcription]\nmodel = "whisper-1"\n`);
    expect(errorOf(() => loadConfig({ cwd: neither.ws, env: neither.env }))).toContain("not neither");
    const missing = setup(`[transcription]\nprovider = "stt"\n`);
    expect(errorOf(() => loadConfig({ cwd: missing.ws, env: missing.env }))).toContain('transcription.provider: no provider profile named "stt"');
  });
  test("telegram defaults, and an owner that is not a user ID is refused", () => {
    const ok = setup(`[channels.telegram]\n`);
    expect(loadConfig({ cwd: ok.ws, env: ok.env }).config.channels.telegram).toEqual({ enabled: true, token_env: "TELEGRAM_BOT_TOKEN", allowed_users: [], approvals: "ask", stream: true, base_url: "https://api.telegram.org", account: "default" });
    const bad = setup(`[channels.telegram]\nowner = "@me"\n`);
    expect(errorOf(() => loadConfig({ cwd: bad.ws, env: bad.env }))).toContain("a Telegram user ID is a number");
  });
});
