// web_fetch through the tool contract (assess + run) against local HTTP and HTTPS servers. Only 127.0.0.1
// is ever contacted: names resolve through an injected resolver, and a tripwire guards the whole file.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { htmlToText } from "../../src/net/html-text";
import type { NetOverrides } from "../../src/net";
import type { Page } from "../../src/net";
import { createWebFetchTool, renderPage } from "../../src/tools/web_fetch";
import type { ToolResult } from "../../src/tools/tool";
import { makeCerts } from "../fake/tls";
import { allowPort, installLoopbackTripwire, noLookup, tableLookup, testConfig, toolContext } from "../net/helpers";
import { needs } from "../fake/needs";

let tripwire: ReturnType<typeof installLoopbackTripwire>;
let server: ReturnType<typeof Bun.serve>;
let origin = "";

/** A long page: many paragraphs with links, so paging has to split text and link lists. */
const LONG_HTML =
  "<html><head><title>Long</title></head><body>" +
  Array.from({ length: 120 }, (_, i) => `<p>Paragraph ${i} — “quoted” text with <a href="/p/${i}">link ${i}</a> and some words to fill the line.</p>`).join("") +
  "</body></html>";

beforeAll(() => {
  tripwire = installLoopbackTripwire();
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const url = new URL(req.url);
      switch (url.pathname) {
        case "/doc":
          return new Response(`<h1>Doc</h1><p>Read <a href="/next?x=1&amp;y=2">more</a> or <a href="javascript:x()">not</a>.</p>`, {
            headers: { "content-type": "text/html; charset=utf-8" },
          });
        case "/long":
          return new Response(LONG_HTML, { headers: { "content-type": "text/html" } });
        case "/ua":
          return new Response(`ua=${req.headers.get("user-agent")} cookie=${req.headers.get("cookie")} referer=${req.headers.get("referer")}`, {
            headers: { "content-type": "text/plain" },
          });
        case "/api":
          return Response.json({ ok: true, items: [1, 2] });
        case "/missing":
          return new Response("<h1>Not here</h1><p>Try the index.</p>", { status: 404, statusText: "Not Found", headers: { "content-type": "text/html" } });
        case "/archive.zip":
          return new Response(new Uint8Array(1024), { headers: { "content-type": "application/zip" } });
        case "/hop":
          return new Response(null, { status: 302, headers: { location: "/doc" } });
        default:
          return new Response("nothing", { status: 404 });
      }
    },
  });
  origin = `http://127.0.0.1:${server.port}`;
});
afterAll(() => {
  tripwire.restore();
  server.stop(true);
  expect(tripwire.violations).toEqual([]);
});

function setup(web: Parameters<typeof testConfig>[0] = {}, net: NetOverrides = {}, outputLimit?: number) {
  const config = testConfig(web, { outputLimit });
  const ctx = toolContext(config, { lookup: noLookup, allow: allowPort(server.port!), ...net });
  return { ctx, tool: createWebFetchTool(ctx) };
}

async function fetchVia(args: unknown, s = setup()): Promise<ToolResult> {
  const a = await s.tool.assess(args, s.ctx);
  if (!a.ok) return a.result;
  return s.tool.run(a.args, s.ctx);
}

describe("assessment: risk and approval summary", () => {
  // Assessment never connects: the URLs below are only judged.
  const assess = (args: unknown) => {
    const { ctx, tool } = setup({ auto_approve_domains: ["docs.rs", "Example.ORG.", "[2606:4700::1111]"] });
    return tool.assess(args, ctx);
  };

  test.each([
    ["http://example.com/a?b=1#frag", "network"],
    ["https://docs.rs/serde/latest/serde/?search=x", "read_only"],
    ["https://DOCS.RS./serde/", "read_only"],
    ["https://example.org/", "read_only"],
    ["http://docs.rs/serde/", "network"], // listed host, but not HTTPS
    ["https://api.docs.rs/", "network"], // a subdomain is another host
    ["https://docs.rs.evil.test/", "network"],
    ["https://[2606:4700:0::1111]/dns", "read_only"], // an IPv6 entry matches however the URL writes it
    ["http://[2606:4700::1111]/dns", "network"],
  ])("%s -> %s, and the summary shows the full URL", async (url, risk) => {
    const a = await assess({ url });
    expect(a.ok).toBe(true);
    if (!a.ok) return;
    expect(a.risk).toBe(risk as "network");
    expect(a.summary).toBe(`GET ${new URL(url).href}`);
  });

  test.each([
    ["ftp://example.com/file", /only http:\/\/ and https:\/\/ URLs/],
    ["file:///etc/passwd", /only http:\/\/ and https:\/\/ URLs/],
    ["https://user:pass@example.com/", /embedded credentials/],
    ["example.com/no-scheme", /not a valid URL/],
  ])("%s is refused before approval", async (url, message) => {
    const a = await assess({ url });
    expect(a.ok).toBe(false);
    if (!a.ok) expect(a.result.output).toMatch(message);
  });

  test("arguments are validated", async () => {
    const a = await assess({ url: "https://docs.rs/", offset: -1 });
    expect(a.ok).toBe(false);
    if (!a.ok) expect(a.result.output).toContain("offset");
  });
});

describe("results", () => {
  test("HTML: the result starts with final URL, status, content type and range, then text and its links", async () => {
    const r = await fetchVia({ url: `${origin}/hop` });
    expect(r.ok).toBe(true);
    const lines = r.output.split("\n");
    expect(lines.slice(0, 4)).toEqual([`URL: ${origin}/doc`, "Status: 200 OK", "Content-Type: text/html; charset=utf-8", expect.stringMatching(/^Characters: 0-\d+ of \d+$/)]);
    expect(r.output).toContain("# Doc\n\nRead more[1] or not.");
    expect(r.output).toContain(`Links:\n[1] ${origin}/next?x=1&y=2`);
    expect(r.output).toContain("Redirected 1 time(s)");
    expect(r.output).not.toContain("javascript");
  });

  test("requests carry the scv/<version> User-Agent and no cookie or referrer", async () => {
    const r = await fetchVia({ url: `${origin}/ua` });
    expect(r.output).toMatch(/ua=scv\/\d+\.\d+\.\d+\S* cookie=null referer=null/);
  });

  test("JSON passes through", async () => {
    const r = await fetchVia({ url: `${origin}/api` });
    expect(r.ok).toBe(true);
    expect(r.output).toContain("Content-Type: application/json");
    expect(r.output.split("\n\n")[1]).toBe('{"ok":true,"items":[1,2]}');
  });

  test("an HTTP error status returns the body as a failed result", async () => {
    const r = await fetchVia({ url: `${origin}/missing` });
    expect(r.ok).toBe(false);
    expect(r.output).toContain("Status: 404 Not Found");
    expect(r.output).toContain("# Not here\n\nTry the index.");
  });

  test("a binary type is refused", async () => {
    const r = await fetchVia({ url: `${origin}/archive.zip` });
    expect(r.ok).toBe(false);
    expect(r.output).toContain("application/zip");
  });

  test("loopback is refused without the test's port exception", async () => {
    const r = await fetchVia({ url: `${origin}/doc` }, setup({}, { allow: undefined }));
    expect(r.ok).toBe(false);
    expect(r.output).toContain("refused: 127.0.0.1, a loopback address");
  });

  test("web.allow_private_addresses lifts the check", async () => {
    const r = await fetchVia({ url: `${origin}/doc` }, setup({ allow_private_addresses: true }, { allow: undefined }));
    expect(r.ok).toBe(true);
  });

  test("a download over web.fetch_max_bytes is cut and says so", async () => {
    const r = await fetchVia({ url: `${origin}/long` }, setup({ fetch_max_bytes: 2000 }));
    expect(r.ok).toBe(true);
    expect(r.output).toContain("only the first 2000 bytes were downloaded (web.fetch_max_bytes)");
  });
});

describe("paging", () => {
  const LIMIT = 2048;

  /** The page text inside one result: between the header and the links/next-part notes. */
  function body(output: string): string {
    let rest = output.slice(output.indexOf("\n\n") + 2);
    rest = rest.replace(/\n\n\[Characters \d+-\d+ of \d+ shown\. For the next part call web_fetch with "offset": \d+\]$/, "");
    rest = rest.replace(/\n\nLinks:\n(\[\d+\] \S+\n?)+$/, "");
    return rest;
  }

  test("a long page comes in parts within tools.output_limit_bytes that join up to the whole text", async () => {
    const s = setup({}, {}, LIMIT);
    const full = htmlToText(LONG_HTML, `${origin}/long`).text;
    const parts: string[] = [];
    let offset = 0;
    for (let i = 0; i < 100; i++) {
      const r = await fetchVia({ url: `${origin}/long`, offset }, s);
      expect(r.ok).toBe(true);
      expect(Buffer.byteLength(r.output)).toBeLessThanOrEqual(LIMIT);
      expect(r.output).not.toContain("[output truncated");
      const range = /^Characters: (\d+)-(\d+) of (\d+)$/m.exec(r.output)!;
      expect(Number(range[1])).toBe(offset);
      expect(Number(range[3])).toBe(full.length);
      const text = body(r.output);
      // The part is exactly the text in its range (blank lines at a cut are not shown).
      expect(text).toBe(full.slice(Number(range[1]), Number(range[2])).trimEnd());
      parts.push(full.slice(Number(range[1]), Number(range[2])));
      // Every [n] in this part has its URL listed in this part.
      for (const m of text.matchAll(/\[(\d+)\]/g)) expect(r.output).toContain(`\n[${m[1]}] ${origin}/p/${Number(m[1]) - 1}`);
      const next = /"offset": (\d+)\]$/.exec(r.output);
      if (!next) {
        expect(Number(range[2])).toBe(full.length);
        break;
      }
      expect(Number(next[1])).toBe(Number(range[2]));
      offset = Number(next[1]);
    }
    expect(parts.length).toBeGreaterThan(3);
    expect(parts.join("")).toBe(full);
  });

  const page = (over: Partial<Page>): Page => ({
    url: new URL("https://site.test/p"),
    status: 200,
    statusText: "OK",
    contentType: "text/html",
    kind: "html",
    title: "",
    text: "word ".repeat(2000).trim(),
    links: [],
    truncated: false,
    bytes: 10_000,
    redirects: [],
    ...over,
  });

  test("a page whose own header fields are huge still fits the limit and makes progress", () => {
    // URL (after a redirect), reason phrase, content type and title all come from the server.
    const p = page({
      url: new URL(`https://site.test/${"a".repeat(5000)}`),
      statusText: "S".repeat(3000),
      contentType: `text/html; x=${"c".repeat(3000)}`,
      title: "T".repeat(100_000),
      text: "word ".repeat(20_000).trim(), // longer than any limit below
      redirects: [new URL("https://site.test/")],
      truncated: true,
    });
    for (const limit of [1024, 4096, 65536]) {
      const out = renderPage(p, 0, limit);
      expect(Buffer.byteLength(out)).toBeLessThanOrEqual(limit);
      const range = /^Characters: 0-(\d+) of (\d+)$/m.exec(out)!;
      expect(Number(range[1])).toBeGreaterThan(0);
      expect(out.endsWith(`"offset": ${range[1]}]`)).toBe(true);
      expect(out).toMatch(/^Title: T+\.\.\. \(cut, 100000 characters\)$/m);
      // The final URL is shown whole while it takes at most a quarter of the limit.
      if (limit >= 4 * p.url.href.length) expect(out).toContain(`URL: ${p.url.href}\n`);
      else expect(out).toMatch(/^URL: https:\/\/site.test\/a+\.\.\. \(cut, \d+ characters\)$/m);
    }
  });

  test("a link too long for the budget does not stop the text from advancing", () => {
    const long = `https://site.test/${"x".repeat(4000)}`;
    const p = page({ text: `see here[1] ${"and more ".repeat(500)}`, links: [long] });
    const out = renderPage(p, 0, 2048);
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(2048);
    const range = /^Characters: 0-(\d+) of/m.exec(out)!;
    expect(Number(range[1])).toBeGreaterThan(100);
    expect(out).toContain("see here[1]");
  });

  test("an offset past the end is refused with the length", async () => {
    const r = await fetchVia({ url: `${origin}/api`, offset: 5000 });
    expect(r.ok).toBe(false);
    expect(r.output).toMatch(/offset 5000 is past the end of the page text \(\d+ characters\)/);
  });
});

describe.skipIf(!needs("openssl"))("auto-approved HTTPS hosts", () => {
  let secure: ReturnType<typeof Bun.serve>;
  let certs: ReturnType<typeof makeCerts>;
  const seenHosts: string[] = [];
  beforeAll(() => {
    certs = makeCerts(["docs.test", "docs2.test", "other.test"]);
    secure = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      tls: { cert: certs.cert, key: certs.key },
      fetch(req) {
        const url = new URL(req.url);
        seenHosts.push(req.headers.get("host")!);
        const to = url.searchParams.get("to");
        if (to) return new Response(null, { status: 302, headers: { location: to } });
        return new Response(`<p>page on ${req.headers.get("host")}</p>`, { headers: { "content-type": "text/html" } });
      },
    });
  });
  afterAll(() => secure.stop(true));

  const secureSetup = () =>
    setup(
      { auto_approve_domains: ["docs.test", "docs2.test"] },
      {
        allow: allowPort(secure.port!),
        lookup: tableLookup({ "docs.test": ["127.0.0.1"], "docs2.test": ["127.0.0.1"], "other.test": ["127.0.0.1"] }),
        tls: { ca: certs.ca },
      },
    );
  const at = (host: string, path = "/", to?: string) => `https://${host}:${secure.port}${path}${to ? `?to=${encodeURIComponent(to)}` : ""}`;

  test("a listed host is read_only and fetched over pinned HTTPS", async () => {
    const s = secureSetup();
    const a = await s.tool.assess({ url: at("docs.test") }, s.ctx);
    expect(a.ok && a.risk).toBe("read_only");
    const r = await fetchVia({ url: at("docs.test") }, s);
    expect(r.ok).toBe(true);
    expect(r.output).toContain(`page on docs.test:${secure.port}`);
  });

  test("its redirect may lead to another listed HTTPS host", async () => {
    const r = await fetchVia({ url: at("docs.test", "/", at("docs2.test", "/final")) }, secureSetup());
    expect(r.ok).toBe(true);
    expect(r.output).toContain(`URL: ${at("docs2.test", "/final")}`);
  });

  test("its redirect to an unlisted host fails, naming the target, which is not contacted", async () => {
    const before = seenHosts.filter((h) => h.startsWith("other.test")).length;
    const target = at("other.test", "/secret");
    const r = await fetchVia({ url: at("docs.test", "/", target) }, secureSetup());
    expect(r.ok).toBe(false);
    expect(r.output).toContain(`redirected to ${target}, which is not an https:// host in web.auto_approve_domains`);
    expect(seenHosts.filter((h) => h.startsWith("other.test")).length).toBe(before);
  });

  test("its redirect to plain http on a listed host fails too", async () => {
    const r = await fetchVia({ url: at("docs.test", "/", `http://docs2.test:${secure.port}/`) }, secureSetup());
    expect(r.ok).toBe(false);
    expect(r.output).toContain("not an https:// host in web.auto_approve_domains");
  });

  test("an approved (network risk) fetch follows redirects to other public hosts", async () => {
    const s = secureSetup();
    const url = at("other.test", "/", at("docs.test", "/x"));
    const a = await s.tool.assess({ url }, s.ctx);
    expect(a.ok && a.risk).toBe("network");
    const r = await fetchVia({ url }, s);
    expect(r.ok).toBe(true);
    expect(r.output).toContain(`page on docs.test:${secure.port}`);
  });
});
