// Fake SearXNG and Brave Search servers on 127.0.0.1, speaking the wire formats in
// /work/shared/reference/providers-wire.md §6. A test picks a scenario by setting `mode`.

export type SearxngMode = "ok" | "json-disabled" | "limited" | "engines-down" | "not-json";
export type BraveMode = "ok" | "rate" | "quota" | "no-web" | "plural-error" | "echo-key" | "leak-results" | "leak-error";

/** How a leaky service may echo a key: raw, percent-encoded, JSON-escaped inside text, and by its end. */
export function keyEchoes(key: string): string[] {
  return [key, encodeURIComponent(key), JSON.stringify(key).slice(1, -1).replace(/\//g, "\\/"), `key ending in ${key.slice(-6)}`];
}

export interface FakeServer<M> {
  url: string;
  mode: M;
  requests: { url: URL; headers: Headers }[];
  stop(): void;
}

/** SearXNG's /search: JSON when `format=json` is enabled, its real 403 and 429 otherwise. */
export function fakeSearxng(): FakeServer<SearxngMode> {
  const fake: FakeServer<SearxngMode> = { url: "", mode: "ok", requests: [], stop: () => server.stop(true) };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const url = new URL(req.url);
      fake.requests.push({ url, headers: req.headers });
      if (url.pathname !== "/searx/search") return new Response("Not Found", { status: 404 });
      const q = url.searchParams.get("q") ?? "";
      const format = url.searchParams.get("format") ?? "html";
      if (fake.mode === "json-disabled" && format === "json") return new Response("<h1>403 Forbidden</h1>", { status: 403, headers: { "content-type": "text/html" } });
      if (fake.mode === "limited") return new Response("Too Many Requests", { status: 429, headers: { "content-type": "text/plain" } });
      if (fake.mode === "not-json" || format !== "json") return new Response("<!doctype html><title>SearXNG</title>", { headers: { "content-type": "text/html" } });
      const results =
        fake.mode === "engines-down"
          ? []
          : Array.from({ length: 12 }, (_, i) => ({
              url: `https://example.test/${i}`,
              title: `Result ${i} for ${q} &amp; more`,
              content: `Snippet <b>${i}</b> about ${q}.`,
              engine: "bing",
              engines: ["bing"],
              positions: [i + 1],
              score: 1 / (i + 1),
              category: "general",
              template: "default.html",
              parsed_url: ["https", "example.test", `/${i}`, "", "", ""],
              publishedDate: null,
              thumbnail: "",
              img_src: "",
              priority: "",
            }));
      const unresponsive = fake.mode === "engines-down" ? [["brave", "Suspended: too many requests"], ["google", "timeout"]] : [];
      return Response.json({ query: q, results, answers: [], corrections: [], infoboxes: [], suggestions: [], unresponsive_engines: unresponsive });
    },
  });
  fake.url = `http://127.0.0.1:${server.port}/searx`;
  return fake;
}

/** Brave's /res/v1/web/search with X-Subscription-Token; a wrong key gets 422 SUBSCRIPTION_TOKEN_INVALID. */
export function fakeBrave(validKey: string): FakeServer<BraveMode> {
  const fake: FakeServer<BraveMode> = { url: "", mode: "ok", requests: [], stop: () => server.stop(true) };
  const error = (status: number, code: string, detail: string, component: string) =>
    Response.json({ type: "ErrorResponse", error: { id: "5d832250-0000", code, detail, status, meta: { component } }, time: 1663072993 }, { status });
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const url = new URL(req.url);
      fake.requests.push({ url, headers: req.headers });
      if (url.pathname !== "/res/v1/web/search") return new Response("Not Found", { status: 404 });
      const token = req.headers.get("x-subscription-token");
      if (fake.mode === "echo-key") return error(422, "VALIDATION", `bad request for token ${token}`, "validation");
      if (fake.mode === "leak-error") return error(422, "VALIDATION", `bad token: ${keyEchoes(token ?? "").join(" | ")}`, "validation");
      if (fake.mode === "leak-results") {
        const leak = keyEchoes(token ?? "");
        const results = leak.map((l, i) => ({ title: `Leak ${i}: ${l}`, url: `https://brave.example/?k=${encodeURIComponent(token ?? "")}&n=${i}`, description: `echo ${l}` }));
        return Response.json({ type: "search", web: { type: "search", results } });
      }
      if (token !== validKey) {
        if (fake.mode === "plural-error") {
          return Response.json(
            { type: "ErrorResponse", errors: [{ id: "x", code: "SUBSCRIPTION_TOKEN_INVALID", detail: "The provided subscription token is invalid.", status: 422, meta: { component: "authentication" } }], time: 1 },
            { status: 422 },
          );
        }
        return error(422, "SUBSCRIPTION_TOKEN_INVALID", "The provided subscription token is invalid.", "authentication");
      }
      if (fake.mode === "rate") return error(429, "RATE_LIMITED", "Request rate limit exceeded for plan.", "rate_limiter");
      if (fake.mode === "quota") return error(429, "QUOTA_LIMITED", "Request quota limit exceeded for plan.", "rate_limiter");
      const q = url.searchParams.get("q") ?? "";
      const count = Number(url.searchParams.get("count") ?? "20");
      const decorate = url.searchParams.get("text_decorations") !== "false";
      if (fake.mode === "no-web") return Response.json({ type: "search", query: { original: q }, mixed: {} });
      const results = Array.from({ length: Math.min(count, 20) }, (_, i) => ({
        type: "search_result",
        title: `Brave ${i}: ${q}`,
        url: `https://brave.example/${i}`,
        description: decorate ? `About <strong>${q}</strong> &#x27;${i}&#x27;` : `About ${q} &#x27;${i}&#x27;`,
        language: "en",
        family_friendly: true,
        profile: { name: "Example", url: "https://brave.example", long_name: "brave.example", img: "" },
        meta_url: { scheme: "https", netloc: "brave.example", hostname: "brave.example", favicon: "", path: `› ${i}` },
      }));
      return Response.json({ type: "search", query: { original: q }, web: { type: "search", results, family_friendly: true }, mixed: {} });
    },
  });
  fake.url = `http://127.0.0.1:${server.port}/res/v1/web/search`;
  return fake;
}
