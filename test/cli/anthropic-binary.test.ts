// The model loop through the compiled binary on both kinds of provider (issue 53): one table of cases run against
// the fake's Responses API and its Anthropic Messages API, then what only Anthropic has (thinking round trip,
// caching across a session), switching a session between the two, the first run and `scv doctor`.
import { describe, expect, test } from "bun:test";
import { fakeHome, fakeModelForEachTest, runBinary } from "../fake/binary";
import { anthropicError } from "../fake/anthropic-render";
import { cut, text, toolCalls } from "../fake/model-server";
import { startStdioServer } from "../fake/stdio-client";

const KEY = "sk-ant-api03-binaryTESTKEY0123456789";
const fake = fakeModelForEachTest({ anthropicKey: KEY, models: ["claude-opus-4-1", "claude-sonnet-4-5"] });

type Provider = { name: string; home(extra?: string): ReturnType<typeof fakeHome>; path: string };
const PROVIDERS: Provider[] = [
  { name: "openai (Responses)", home: (extra = "") => fakeHome(fake.url, extra), path: "/v1/responses" },
  {
    name: "anthropic (Messages)",
    home: (extra = "") => {
      const h = fakeHome(fake.anthropicUrl, `kind = "anthropic"\n${extra}`);
      h.env.ANTHROPIC_API_KEY = KEY;
      return h;
    },
    path: "/v1/messages",
  },
];

/** The tool results a request carried, whichever API it spoke. */
function toolResults(body: any): string[] {
  if (Array.isArray(body.input)) return body.input.filter((i: any) => i.type === "function_call_output").map((i: any) => i.output);
  return body.messages.flatMap((m: any) => m.content.filter((b: any) => b.type === "tool_result").map((b: any) => b.content ?? ""));
}

describe.each(PROVIDERS)("the model loop on %s", (p) => {
  test("exec: parallel tool calls run, their results go back, the answer is printed", async () => {
    const { env, workspace } = p.home();
    await Bun.write(`${workspace}/a.txt`, "alpha\n");
    fake.requests.length = 0;
    fake.queue(toolCalls([{ name: "read", arguments: { path: "a.txt" } }, { name: "read", arguments: { path: "missing.txt" } }]), text("done reading"));
    const r = await runBinary(["exec", "--yes", "read both"], env, workspace);
    expect([r.code, r.stdout]).toEqual([0, "done reading\n"]);
    expect(fake.requests.map((q) => q.path)).toEqual([p.path, p.path]);
    const results = toolResults(fake.requests[1]!.body);
    expect(results).toHaveLength(2);
    expect(results[0]).toContain("alpha");
  });

  test("exec: a tool call whose arguments are not JSON is told so and the turn goes on", async () => {
    const { env, workspace } = p.home();
    fake.requests.length = 0;
    fake.queue(toolCalls([{ name: "read", arguments: '{"path": "a.txt"' }]), text("sorry, fixed"));
    const r = await runBinary(["exec", "--yes", "read"], env, workspace);
    expect([r.code, r.stdout]).toEqual([0, "sorry, fixed\n"]);
    expect(toolResults(fake.requests[1]!.body)[0]).toContain("not valid JSON");
  });

  test("exec: a stream cut mid-answer fails with a clear message", async () => {
    const { env, workspace } = p.home();
    fake.queue(cut("half an ans"));
    const r = await runBinary(["exec", "hi"], env, workspace);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("broke off before it was complete");
  });

  test("server --stdio: a turn with a tool call completes", { timeout: 40_000 }, async () => {
    const { env, workspace } = p.home();
    fake.queue(toolCalls([{ name: "read", arguments: { path: "none.txt" } }]), text("stdio answer"));
    const server = startStdioServer(env, workspace);
    try {
      await server.request(1, "initialize", { protocol_version: 3 });
      const started = await server.request(2, "session.start", { cwd: workspace, auto_approve: true });
      const sid = started.result.session_id;
      await server.request(3, "turn.start", { session_id: sid, prompt: "go" });
      const done = await server.waitFor((m) => m.method === "turn.ended", 30_000);
      expect(done.params.status).toBe("completed");
      expect(done.params.reply).toBe("stdio answer");
    } finally {
      await server.kill();
    }
  });
});

describe("anthropic only", () => {
  const anthropic = PROVIDERS[1]!;

  test("401: the message names ANTHROPIC_API_KEY and never shows the key", async () => {
    const { env, workspace } = anthropic.home();
    env.ANTHROPIC_API_KEY = "sk-ant-api03-WRONGkey0123456789";
    const r = await runBinary(["exec", "hi"], env, workspace);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("rejected the API key");
    expect(r.stderr).toContain("ANTHROPIC_API_KEY");
    expect(r.stderr).not.toContain("WRONGkey");
  });

  test("thinking round trip: the signed thinking block goes back unchanged with the tool result", async () => {
    const { env, workspace } = anthropic.home("thinking = { budget_tokens = 2048 }\n");
    fake.requests.length = 0;
    fake.queue(toolCalls([{ name: "read", arguments: { path: "none.txt" } }], { reasoning: "I should look at none.txt first." }), text("thought it through"));
    const r = await runBinary(["exec", "--yes", "think"], env, workspace);
    expect([r.code, r.stdout]).toEqual([0, "thought it through\n"]);
    const second = fake.requests[1]!.body;
    expect(second.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    const thinking = second.messages[1].content[0];
    expect(thinking.type).toBe("thinking");
    expect(thinking.thinking).toBe("I should look at none.txt first.");
    expect(thinking.signature).toMatch(/^Er/); // the fake checked it against the text: a changed block is refused
  });

  test("max_tokens: the answer is continued in a further request and printed whole", async () => {
    const { env, workspace } = anthropic.home();
    fake.requests.length = 0;
    fake.queue({ kind: "incomplete", text: "first half, " }, text("second half"));
    const r = await runBinary(["exec", "long"], env, workspace);
    expect([r.code, r.stdout]).toEqual([0, "first half, second half\n"]);
    const msgs = fake.requests[1]!.body.messages;
    expect(msgs.at(-1).content.at(-1).text).toContain("Continue exactly where it stopped");
  });

  test("caching: from the second request on, the conversation is read from the cache; scv usage prices reads and writes", async () => {
    const { env, workspace } = anthropic.home('[prices."fake-model"]\ninput_per_mtok = 3\ncached_input_per_mtok = 0.3\ncache_write_per_mtok = 3.75\noutput_per_mtok = 0\n');
    fake.requests.length = 0;
    fake.queue(toolCalls([{ name: "read", arguments: { path: "none.txt" } }]), toolCalls([{ name: "read", arguments: { path: "b.txt" } }]), text("cached"));
    expect((await runBinary(["exec", "--yes", "cache"], env, workspace)).code).toBe(0);
    const [first, ...later] = fake.requests.map((q) => q.cache!);
    expect(first!.cache_read_input_tokens).toBe(0); // each test has a fake (and a cache) of its own
    expect(first!.cache_creation_input_tokens).toBeGreaterThan(1024);
    for (const c of later) {
      const total = c.input_tokens + c.cache_creation_input_tokens + c.cache_read_input_tokens;
      expect(c.cache_read_input_tokens / total).toBeGreaterThan(0.85);
    }
    const all = fake.requests.map((q) => q.cache!);
    const sum = (f: (c: (typeof all)[number]) => number) => all.reduce((n, c) => n + f(c), 0);
    const usage = await runBinary(["usage", "--since", "1d", "--by", "model", "--json"], env, workspace);
    expect(usage.code).toBe(0);
    const row = JSON.parse(usage.stdout).rows[0];
    expect(row).toMatchObject({
      key: "fake-model",
      requests: 3,
      input_tokens: sum((c) => c.input_tokens + c.cache_read_input_tokens + c.cache_creation_input_tokens),
      cached_input_tokens: sum((c) => c.cache_read_input_tokens),
      cache_write_tokens: sum((c) => c.cache_creation_input_tokens),
    });
    expect(row.cost).toBeCloseTo(sum((c) => c.input_tokens * 3 + c.cache_read_input_tokens * 0.3 + c.cache_creation_input_tokens * 3.75) / 1e6, 12);
    const table = await runBinary(["usage", "--by", "model"], env, workspace);
    expect(table.stdout).toMatch(/^fake-model\s+3\s+[\d,]+\s+[\d,]+\s+(\d+)%/m);
    expect(Number(/^fake-model\s+3\s+[\d,]+\s+[\d,]+\s+(\d+)%/m.exec(table.stdout)![1])).toBeGreaterThan(50);
  });

  test("429 with retry-after is waited for and retried", async () => {
    const { env, workspace } = anthropic.home();
    // fakeHome sets max_retries = 0: this profile is written whole instead.
    await Bun.write(`${env.SCV_HOME}/config.toml`, `[provider]\nactive = "c"\n[providers.c]\nkind = "anthropic"\nbase_url = "${fake.anthropicUrl}"\nmodel = "fake-model"\nmax_retries = 2\n`);
    fake.queue(anthropicError(429, "rate_limit_error", "rate limited", { "retry-after": "1" }), text("after the wait"));
    const t0 = Date.now();
    const r = await runBinary(["exec", "hi"], env, workspace);
    expect([r.code, r.stdout]).toEqual([0, "after the wait\n"]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
  });
});

test("switching a session between an OpenAI and an Anthropic profile: the history is carried, reasoning of the other API dropped with a notice", { timeout: 60_000 }, async () => {
  const { env, workspace } = fakeHome(fake.url);
  await Bun.write(
    `${env.SCV_HOME}/config.toml`,
    `[provider]\nactive = "o"\n[providers.o]\nbase_url = "${fake.url}"\nmodel = "fake-model"\nmax_retries = 0\n[providers.c]\nkind = "anthropic"\nbase_url = "${fake.anthropicUrl}"\nmodel = "fake-model"\nmax_retries = 0\n`,
  );
  env.ANTHROPIC_API_KEY = KEY;
  fake.requests.length = 0;
  fake.queue(toolCalls([{ name: "read", arguments: { path: "none.txt" } }], { reasoning: "openai reasoning" }), text("from openai"), text("from claude"));
  const server = startStdioServer(env, workspace);
  try {
    await server.request(1, "initialize", { protocol_version: 3 });
    const sid = (await server.request(2, "session.start", { cwd: workspace, auto_approve: true })).result.session_id;
    await server.request(3, "turn.start", { session_id: sid, prompt: "one" });
    await server.waitFor((m) => m.method === "turn.ended" && m.params.reply === "from openai", 30_000);
    const configured = await server.request(4, "session.configure", { session_id: sid, provider: "c" });
    expect(configured.result.wire_api).toBe("messages");
    expect(configured.result.notices.join("\n")).toContain("cannot be read by the Anthropic API and is left out");
    await server.request(5, "turn.start", { session_id: sid, prompt: "two" });
    const done = await server.waitFor((m) => m.method === "turn.ended" && m.params.reply === "from claude", 30_000);
    expect(done.params.status).toBe("completed");
    const last = fake.requests.at(-1)!;
    expect(last.path).toBe("/v1/messages");
    const kinds = last.body.messages.flatMap((m: any) => m.content.map((b: any) => b.type));
    expect(kinds).toEqual(["text", "tool_use", "tool_result", "text", "text"]);
  } finally {
    await server.kill();
  }
});

test("scv exec --continue -p moves the last session to the Anthropic profile: history carried, OpenAI reasoning left out and said", async () => {
  const { env, workspace } = fakeHome(fake.url);
  await Bun.write(
    `${env.SCV_HOME}/config.toml`,
    `[provider]\nactive = "o"\n[providers.o]\nbase_url = "${fake.url}"\nmodel = "fake-model"\nmax_retries = 0\n[providers.c]\nkind = "anthropic"\nbase_url = "${fake.anthropicUrl}"\nmodel = "fake-model"\nmax_retries = 0\n`,
  );
  env.ANTHROPIC_API_KEY = KEY;
  fake.queue(text("from openai", { reasoning: "openai reasoning" }));
  expect((await runBinary(["exec", "one"], env, workspace)).code).toBe(0);
  fake.queue(text("from claude"));
  const r = await runBinary(["exec", "--continue", "-p", "c", "two"], env, workspace);
  expect([r.code, r.stdout]).toEqual([0, "from claude\n"]);
  expect(r.stderr).toContain("cannot be read by the Anthropic API and is left out");
  const last = fake.requests.at(-1)!;
  expect(last.path).toBe("/v1/messages");
  expect(last.body.messages.map((m: any) => [m.role, m.content.map((b: any) => b.text)])).toEqual([
    ["user", ["one"]],
    ["assistant", ["from openai"]],
    ["user", ["two"]],
  ]);
});

test("first run: no config, only ANTHROPIC_API_KEY set: Anthropic is the provider", async () => {
  const { env, workspace } = fakeHome(fake.url);
  await Bun.write(`${env.SCV_HOME}/config.toml`, "");
  env.ANTHROPIC_API_KEY = KEY;
  const r = await runBinary(["config", "show"], env, workspace);
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/provider\.active\s*=?\s*"?anthropic/);
  expect(r.stdout).toContain("https://api.anthropic.com");
  expect(r.stdout).not.toContain(KEY);
});

test("an Anthropic profile at api.anthropic.com without its key refuses to start, saying which variable to set", async () => {
  const { env, workspace } = fakeHome(fake.url);
  await Bun.write(`${env.SCV_HOME}/config.toml`, `[provider]\nactive = "claude"\n[providers.claude]\nkind = "anthropic"\n`);
  const r = await runBinary(["exec", "hi"], env, workspace);
  expect(r.code).not.toBe(0);
  expect(r.stderr).toContain('no API key for provider "claude": set ANTHROPIC_API_KEY in the environment');
  expect(fake.requests).toHaveLength(0);
});

test("scv doctor checks the Anthropic key against GET /v1/models; /model's list comes from there too", async () => {
  const { env, workspace } = PROVIDERS[1]!.home();
  const r = await runBinary(["doctor"], env, workspace);
  expect(r.stdout).toContain("GET /v1/models answered HTTP 200");
  const { listEndpointModels } = await import("../../src/provider/list-models");
  const { loadConfig } = await import("../../src/config/load");
  const config = loadConfig({ cwd: workspace, env }).config;
  expect(await listEndpointModels(config.providers.fake!, env)).toEqual({ ids: ["claude-opus-4-1", "claude-sonnet-4-5"] });
  env.ANTHROPIC_API_KEY = "sk-ant-wrong";
  const refused = await runBinary(["doctor"], env, workspace);
  expect(refused.stdout).toContain("the key was refused");
});
