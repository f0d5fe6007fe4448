// kind = "anthropic" profiles in config.toml (issue 53): the kind's defaults, the first run's choice by the keys
// set, and clear errors for what does not fit the kind.
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load";
import { configErrorOf, configHome, removeConfigHomes } from "./config-homes";

afterEach(removeConfigHomes);

test("a kind = \"anthropic\" profile gets Anthropic's URL, ANTHROPIC_API_KEY, the Messages API and a Claude model", () => {
  const { env, ws } = configHome(`[providers.claude]\nkind = "anthropic"\nthinking = { budget_tokens = 4000 }\n`);
  const p = loadConfig({ cwd: ws, env }).config.providers.claude!;
  expect(p).toMatchObject({ kind: "anthropic", wire_api: "messages", base_url: "https://api.anthropic.com", api_key_env: "ANTHROPIC_API_KEY", model: "claude-sonnet-4-5", prompt_cache: "5m", thinking: { budget_tokens: 4000 } });
});

test("first run: only ANTHROPIC_API_KEY set picks Anthropic; with both, or only OpenAI's, OpenAI as before", () => {
  const { env, ws } = configHome();
  const active = (extra: Record<string, string>) => {
    const config = loadConfig({ cwd: ws, env: { ...env, ...extra } }).config;
    return [config.provider.active, config.providers[config.provider.active]!.kind];
  };
  expect(active({ ANTHROPIC_API_KEY: "sk-ant-x" })).toEqual(["anthropic", "anthropic"]);
  expect(active({ ANTHROPIC_API_KEY: "sk-ant-x", OPENAI_API_KEY: "sk-x" })).toEqual(["openai", "openai"]);
  expect(active({})).toEqual(["openai", "openai"]);
});

test("errors: wire_api of another API, thinking on an OpenAI profile, a budget not below max_tokens, a bad thinking value", () => {
  const cases: [string, RegExp][] = [
    [`[providers.c]\nkind = "anthropic"\nwire_api = "responses"\n`, /providers\.c\.wire_api: kind = "anthropic" speaks only the Messages API/],
    [`[providers.o]\nwire_api = "messages"\n`, /providers\.o\.wire_api: "messages" is the Anthropic Messages API; set kind = "anthropic"/],
    [`[providers.o]\nthinking = { budget_tokens = 2000 }\n`, /providers\.o\.thinking: only a kind = "anthropic" profile takes thinking; for OpenAI models set reasoning_effort/],
    [`[providers.c]\nkind = "anthropic"\nmax_tokens = 4000\nthinking = { budget_tokens = 4000 }\n`, /providers\.c\.thinking\.budget_tokens \(4000\) must be below max_tokens \(4000\)/],
    [`[providers.c]\nkind = "anthropic"\nthinking = { budget_tokens = 100 }\n`, /providers\.c\.thinking\.budget_tokens: must be at least 1024/],
    [`[providers.c]\nkind = "anthropic"\nthinking = 5000\n`, /providers\.c\.thinking: must be \{ budget_tokens = N \}/],
    [`[providers.c]\nkind = "gemini"\n`, /providers\.c\.kind: must be one of: openai, anthropic/],
  ];
  for (const [text, message] of cases) {
    const { env, ws, home } = configHome(text);
    const msg = configErrorOf(() => loadConfig({ cwd: ws, env }));
    expect(msg).toMatch(message);
    expect(msg).toContain(join(home, "config.toml"));
  }
});
