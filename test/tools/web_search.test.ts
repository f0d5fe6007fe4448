import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createWebSearchTool, hostedSearchEnabled } from "../../src/tools/web_search";
import { type BraveMode, fakeBrave, fakeSearxng, keyEchoes, type SearxngMode } from "../fake/search-servers";
import { installLoopbackTripwire, testConfig, toolContext } from "../net/helpers";
import { withProxyTrap } from "../fake/proxy-trap";

const KEY = "BSA-secret-test-key-0123456789";
let tripwire: ReturnType<typeof installLoopbackTripwire>;
let searx: ReturnType<typeof fakeSearxng>;
let brave: ReturnType<typeof fakeBrave>;

beforeAll(() => {
  tripwire = installLoopbackTripwire();
  searx = fakeSearxng();
  brave = fakeBrave(KEY);
});
afterAll(() => {
  tripwire.restore();
  searx.stop();
  brave.stop();
  expect(tripwire.violations).toEqual([]);
});

async function call(config: ReturnType<typeof testConfig>, args: unknown, env: Record<string, string> = {}) {
  const ctx = toolContext(config, { braveEndpoint: brave.url }, env);
  const tool = createWebSearchTool(ctx)!;
  const a = await tool.assess(args, ctx);
  if (!a.ok) return { assessed: a, result: a.result };
  return { assessed: a, result: await tool.run(a.args, ctx) };
}

describe("which sessions get search", () => {
  test("no tool unless web.search is searxng or brave", () => {
    for (const search of ["off", "provider"] as const) expect(createWebSearchTool(toolContext(testConfig({ search })))).toBeUndefined();
    expect(createWebSearchTool(toolContext(testConfig({ search: "searxng", searxng_url: "http://127.0.0.1:1/" })))?.name).toBe("web_search");
    expect(createWebSearchTool(toolContext(testConfig({ search: "brave" })))?.name).toBe("web_search");
  });

  test("hosted search needs provider mode, the Responses wire API, and a session with tools", () => {
    expect(hostedSearchEnabled({ config: testConfig({ search: "provider" }) })).toBe(true);
    expect(hostedSearchEnabled({ config: testConfig({ search: "provider" }) }, false)).toBe(false);
    expect(hostedSearchEnabled({ config: testConfig({ search: "provider" }, { wire_api: "chat" }) })).toBe(false);
    for (const search of ["off", "searxng", "brave"] as const) expect(hostedSearchEnabled({ config: testConfig({ search }) })).toBe(false);
  });
});

describe("SearXNG", () => {
  const cfg = (max?: number) => testConfig({ search: "searxng", searxng_url: searx.url, ...(max ? { max_search_results: max } : {}) });

  test("returns titles, URLs and snippets, read_only, up to count", async () => {
    searx.mode = "ok";
    const { assessed, result } = await call(cfg(), { query: "tokio latest version", count: 3 });
    expect(assessed.ok && assessed.risk).toBe("read_only");
    expect(result.ok).toBe(true);
    expect(result.output).toContain('3 result(s) from SearXNG for "tokio latest version"');
    expect(result.output).toContain("1. Result 0 for tokio latest version & more\n   https://example.test/0\n   Snippet 0 about tokio latest version.");
    expect(result.output).toContain("https://example.test/2");
    expect(result.output).not.toContain("https://example.test/3");
    const req = searx.requests.at(-1)!;
    expect(req.url.searchParams.get("format")).toBe("json");
    expect(req.url.searchParams.get("q")).toBe("tokio latest version");
    expect(req.headers.get("accept-language")).toBeTruthy();
    expect(req.headers.get("user-agent")).toMatch(/^scv\/\d+\.\d+\.\d+/);
  });

  test("count defaults to, and is capped at, web.max_search_results", async () => {
    searx.mode = "ok";
    expect((await call(cfg(), { query: "q" })).result.output).toContain("8 result(s)");
    expect((await call(cfg(5), { query: "q", count: 50 })).result.output).toContain("5 result(s)");
  });

  test.each([
    ["json-disabled", /HTTP 403.*Add json to search.formats/],
    ["limited", /HTTP 429.*limiter/],
    ["engines-down", /engines failed: brave: Suspended: too many requests; google: timeout/],
    ["not-json", /did not return search JSON .*web.searxng_url/],
  ] as [SearxngMode, RegExp][])("%s is a failed result with a hint", async (mode, hint) => {
    searx.mode = mode;
    const { result } = await call(cfg(), { query: "q" });
    expect(result.ok).toBe(false);
    expect(result.output).toMatch(hint);
  });

  test("an unreachable instance is a failed result naming it", async () => {
    const dead = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
    const port = dead.port;
    const url = `http://127.0.0.1:${port}/`;
    dead.stop(true);
    const { result } = await call(testConfig({ search: "searxng", searxng_url: url }), { query: "q" });
    expect(result.ok).toBe(false);
    expect(result.output).toContain(`could not reach SearXNG at http://127.0.0.1:${port}`);
  });

  test("an empty query is refused before any request", async () => {
    const before = searx.requests.length;
    const { result } = await call(cfg(), { query: "   " });
    expect(result.ok).toBe(false);
    expect(result.output).toContain("query");
    expect(searx.requests.length).toBe(before);
  });
});

describe("Brave", () => {
  const cfg = (key?: string) => testConfig({ search: "brave", ...(key ? { brave_api_key: key } : {}) });

  test("returns results using the key from the config", async () => {
    brave.mode = "ok";
    const { result } = await call(cfg(KEY), { query: "rust serde", count: 2 });
    expect(result.ok).toBe(true);
    expect(result.output).toContain("1. Brave 0: rust serde\n   https://brave.example/0\n   About rust serde '0'");
    expect(result.output).not.toContain("brave.example/2");
    const req = brave.requests.at(-1)!;
    expect(req.headers.get("x-subscription-token")).toBe(KEY);
    expect(req.url.searchParams.get("count")).toBe("2");
    expect(req.url.searchParams.get("text_decorations")).toBe("false");
    expect(result.output).not.toContain(KEY);
  });

  test("the key can come from the variable web.brave_api_key_env names", async () => {
    brave.mode = "ok";
    const config = testConfig({ search: "brave", brave_api_key_env: "MY_BRAVE" });
    const { result } = await call(config, { query: "x", count: 1 }, { MY_BRAVE: KEY });
    expect(result.ok).toBe(true);
  });

  test("no key is a failed result saying where to set one", async () => {
    const { result } = await call(cfg(), { query: "x" });
    expect(result.ok).toBe(false);
    expect(result.output).toContain("web.brave_api_key");
    expect(result.output).toContain("BRAVE_API_KEY");
  });

  test.each([
    ["a bad key (error object)", "ok", "wrong-key-1234567890", /rejected the API key \(HTTP 422 SUBSCRIPTION_TOKEN_INVALID\)/],
    ["a bad key (errors array)", "plural-error", "wrong-key-1234567890", /rejected the API key \(HTTP 422 SUBSCRIPTION_TOKEN_INVALID\)/],
    ["the rate limit", "rate", KEY, /rate limit .*HTTP 429 RATE_LIMITED/],
    ["the quota", "quota", KEY, /quota .*used up \(HTTP 429 QUOTA_LIMITED\)/],
  ] as [string, BraveMode, string, RegExp][])("%s is a failed result with a hint", async (_label, mode, key, hint) => {
    brave.mode = mode;
    const { result } = await call(cfg(key), { query: "x" });
    expect(result.ok).toBe(false);
    expect(result.output).toMatch(hint);
    expect(result.output).not.toContain(key);
  });

  test("a response without web results is an empty answer, not an error", async () => {
    brave.mode = "no-web";
    const { result } = await call(cfg(KEY), { query: "nothing" });
    expect(result.ok).toBe(true);
    expect(result.output).toBe('No results from Brave for "nothing".');
  });

  test("the key never appears, even when the service echoes it back", async () => {
    brave.mode = "echo-key";
    const { result } = await call(cfg(KEY), { query: "x" });
    expect(result.ok).toBe(false);
    expect(result.output).toContain("bad request for token [key]");
    expect(result.output).not.toContain(KEY);
  });

  test("results and errors are scrubbed of the key in every echoed form, and of quotes of its end", async () => {
    const key = "BSA/secret+key=0123 MARK-123";
    const forms = [...keyEchoes(key), key.slice(-4)];
    for (const mode of ["leak-results", "leak-error"] as const) {
      brave.mode = mode;
      const { result } = await call(testConfig({ search: "brave", brave_api_key: key }), { query: "x" });
      expect(result.output).toContain("[key]");
      for (const form of forms) expect(result.output).not.toContain(form.replace("key ending in ", ""));
    }
  });
});

describe("Brave failures without a known error code", () => {
  // Answers as a proxy or an API gateway might: a 422 whose body is no Brave error object, or a VALIDATION
  // error about the missing token header.
  let odd: ReturnType<typeof Bun.serve>;
  let body = "";
  beforeAll(() => {
    odd = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(body, { status: 422 }) });
  });
  afterAll(() => odd.stop(true));

  test.each([
    ["a bare 422", "Unprocessable Entity"],
    [
      "a VALIDATION error about the token header",
      JSON.stringify({ type: "ErrorResponse", error: { code: "VALIDATION", detail: "Unable to validate request parameter(s)", status: 422, meta: { errors: [{ loc: ["header", "x-subscription-token"], msg: "field required" }] } } }),
    ],
  ])("%s gets the API key hint", async (_label, answer) => {
    body = answer;
    const ctx = toolContext(testConfig({ search: "brave", brave_api_key: KEY }), { braveEndpoint: `http://127.0.0.1:${odd.port}/res/v1/web/search` });
    const tool = createWebSearchTool(ctx)!;
    const a = await tool.assess({ query: "x" }, ctx);
    if (!a.ok) throw new Error(a.result.output);
    const result = await tool.run(a.args, ctx);
    expect(result.ok).toBe(false);
    expect(result.output).toContain("Brave Search rejected the API key (HTTP 422");
    expect(result.output).not.toContain(KEY);
  });
});

describe("proxy variables", () => {
  test("search requests ignore HTTP_PROXY, HTTPS_PROXY and ALL_PROXY", async () => {
    const connections = await withProxyTrap(async () => {
      searx.mode = "ok";
      brave.mode = "ok";
      const viaSearx = await call(testConfig({ search: "searxng", searxng_url: searx.url }), { query: "q", count: 1 });
      const viaBrave = await call(testConfig({ search: "brave", brave_api_key: KEY }), { query: "q", count: 1 });
      expect(viaSearx.result.ok).toBe(true);
      expect(viaBrave.result.ok).toBe(true);
    });
    expect(connections).toBe(0);
  });
});
