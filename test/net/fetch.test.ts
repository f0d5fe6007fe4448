// The pinned connector against real local servers. Every connection goes to 127.0.0.1 or ::1; refused
// targets are refused before any connection, and a tripwire fails the file if anything tries otherwise.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { gzipSync } from "node:zlib";
import { type ConnectorOptions, guardedFetch, readCapped } from "../../src/net/fetch";
import type { LookupFn } from "../../src/net/resolver";
import { makeCerts } from "../fake/tls";
import { allowPort, installLoopbackTripwire, noLookup, tableLookup } from "./helpers";
import { withProxyTrap } from "../fake/proxy-trap";
import { needs } from "../fake/needs";

type Seen = { path: string; headers: Record<string, string> };

function recordingServer(handler: (req: Request, url: URL) => Response | Promise<Response>, hostname = "127.0.0.1", tls?: { cert: string; key: string }) {
  const seen: Seen[] = [];
  const server = Bun.serve({
    port: 0,
    hostname,
    tls,
    fetch(req) {
      const url = new URL(req.url);
      seen.push({ path: url.pathname + url.search, headers: Object.fromEntries(req.headers) });
      return handler(req, url);
    },
  });
  return { server, seen, port: server.port!, origin: `http://127.0.0.1:${server.port}` };
}

let tripwire: ReturnType<typeof installLoopbackTripwire>;
let main: ReturnType<typeof recordingServer>;
let other: ReturnType<typeof recordingServer>;
let proxy: ReturnType<typeof recordingServer>;

beforeAll(() => {
  tripwire = installLoopbackTripwire();
  other = recordingServer(() => new Response("other server"));
  proxy = recordingServer(() => new Response("via proxy"));
  main = recordingServer(async (req, url) => {
    const p = url.pathname;
    if (p === "/hello") return new Response("hello", { headers: { "content-type": "text/plain" } });
    if (p === "/redirect") return new Response(null, { status: 302, headers: { location: url.searchParams.get("to")! } });
    if (p.startsWith("/chain/")) {
      const n = Number(p.slice(7));
      return n > 0 ? new Response(null, { status: 301, headers: { location: `/chain/${n - 1}` } }) : new Response("end of chain");
    }
    if (p === "/slow") {
      await Bun.sleep(3000);
      return new Response("late");
    }
    if (p === "/big") return new Response(new Uint8Array(3 * 1024 * 1024).fill(97));
    if (p === "/gzip") {
      return new Response(gzipSync(Buffer.alloc(4 * 1024 * 1024, 98)), { headers: { "content-encoding": "gzip", "content-type": "text/plain" } });
    }
    if (p === "/post-303") return new Response(null, { status: 303, headers: { location: "/hello" } });
    return new Response("not found", { status: 404 });
  });
});

afterAll(() => {
  tripwire.restore();
  for (const s of [main, other, proxy]) s.server.stop(true);
  expect(tripwire.violations).toEqual([]);
});

function opts(extra: Partial<ConnectorOptions> = {}): ConnectorOptions {
  return { userAgent: "scv/test", timeoutMs: 5000, maxRedirects: 5, lookup: noLookup, allow: allowPort(main.port), ...extra };
}

describe("loopback and private targets", () => {
  test("loopback is refused without the port exception, and nothing connects", async () => {
    const before = main.seen.length;
    await expect(guardedFetch(`${main.origin}/hello`, opts({ allow: undefined }))).rejects.toThrow(/refused: 127.0.0.1, a loopback address/);
    expect(main.seen.length).toBe(before);
  });

  test("the exception admits only the test server's port", async () => {
    const before = other.seen.length;
    await expect(guardedFetch(`${other.origin}/`, opts())).rejects.toThrow(/refused/);
    expect(other.seen.length).toBe(before);
  });

  test("cloud metadata by IP is refused", async () => {
    await expect(guardedFetch("http://169.254.169.254/latest/meta-data/", opts())).rejects.toThrow(/169.254.169.254.*link-local/);
  });

  test("a name resolving to a private address is refused", async () => {
    const lookup = tableLookup({ "intranet.test": ["10.0.0.7"] });
    await expect(guardedFetch("http://intranet.test/", opts({ lookup }))).rejects.toThrow(/intranet.test resolves to 10.0.0.7/);
  });

  test("a name with one allowed and one private address is refused before connecting", async () => {
    const before = main.seen.length;
    const lookup = tableLookup({ "mixed.test": ["127.0.0.1", "10.0.0.7"] });
    await expect(guardedFetch(`http://mixed.test:${main.port}/hello`, opts({ lookup }))).rejects.toThrow(/10.0.0.7/);
    expect(main.seen.length).toBe(before);
  });

  test("DNS failure fails closed", async () => {
    await expect(guardedFetch("http://nowhere.test/", opts({ lookup: tableLookup({}) }))).rejects.toThrow(/could not resolve/);
  });
});

describe("pinned requests", () => {
  test("an IP-literal request carries the scv User-Agent and no cookie, credentials or referrer", async () => {
    const { response, url } = await guardedFetch(`${main.origin}/hello`, opts());
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("hello");
    expect(url.href).toBe(`${main.origin}/hello`);
    const h = main.seen.at(-1)!.headers;
    expect(h["user-agent"]).toBe("scv/test");
    expect(h.host).toBe(`127.0.0.1:${main.port}`);
    for (const name of ["cookie", "authorization", "referer", "proxy-authorization"]) expect(h[name]).toBeUndefined();
  });

  test("a name is resolved once and the connection goes to the checked address with the name as Host", async () => {
    let calls = 0;
    // Rebinding attempt: the second answer would be metadata; it must never be asked for.
    const lookup = async () => [{ address: calls++ === 0 ? "127.0.0.1" : "169.254.169.254", family: 4 as const }];
    const { response, url } = await guardedFetch(`http://site.test:${main.port}/hello`, opts({ lookup }));
    expect(await response.text()).toBe("hello");
    expect(calls).toBe(1);
    expect(url.host).toBe(`site.test:${main.port}`);
    expect(main.seen.at(-1)!.headers.host).toBe(`site.test:${main.port}`);
  });

  test("an address that cannot be pinned is skipped, never sent by name", async () => {
    const lookup = async () => [{ address: "fe80::1%eth0", family: 6 as const }];
    await expect(guardedFetch("http://zone.test/", opts({ lookup, allowPrivate: true }))).rejects.toThrow(/cannot be connected to by address/);
  });

  test("proxy environment variables are ignored", async () => {
    const saved = { HTTP_PROXY: process.env.HTTP_PROXY, http_proxy: process.env.http_proxy };
    process.env.HTTP_PROXY = proxy.origin;
    process.env.http_proxy = proxy.origin;
    try {
      const { response } = await guardedFetch(`${main.origin}/hello`, opts());
      expect(await response.text()).toBe("hello");
      expect(proxy.seen.length).toBe(0);
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  test("the timeout covers a slow DNS lookup, and a caller can cancel one", async () => {
    // Answers (with a failure) only after 2 s, long after the 0.3 s deadline.
    const hang: LookupFn = () => Bun.sleep(2000).then(() => Promise.reject(Object.assign(new Error("ENOTFOUND"), { code: "ENOTFOUND" })));
    const started = performance.now();
    await expect(guardedFetch("http://slow-dns.test/", opts({ lookup: hang, timeoutMs: 300 }))).rejects.toThrow(/slow-dns.test: timed out after 0.3 s/);
    expect(performance.now() - started).toBeLessThan(1500);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const err = await guardedFetch("http://slow-dns.test/", opts({ lookup: hang }), { signal: ac.signal }).catch((e) => e);
    expect(err.name).toBe("AbortError");
  });

  test("the timeout stops a slow server", async () => {
    const started = performance.now();
    await expect(guardedFetch(`${main.origin}/slow`, opts({ timeoutMs: 300 }))).rejects.toThrow(/timed out after 0.3 s/);
    expect(performance.now() - started).toBeLessThan(2500);
  });

  test("a caller's cancellation is not reported as a timeout", async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const err = await guardedFetch(`${main.origin}/slow`, opts(), { signal: ac.signal }).catch((e) => e);
    expect(err.name).toBe("AbortError");
  });
});

describe("redirects", () => {
  test("relative redirects resolve against the name, not the pinned IP", async () => {
    const lookup = tableLookup({ "site.test": ["127.0.0.1"] });
    const { response, url, redirects } = await guardedFetch(`http://site.test:${main.port}/chain/2`, opts({ lookup }));
    expect(await response.text()).toBe("end of chain");
    expect(url.href).toBe(`http://site.test:${main.port}/chain/0`);
    expect(redirects.map((u) => u.pathname)).toEqual(["/chain/1", "/chain/0"]);
    expect(lookup.calls.get("site.test")).toBe(3); // each hop is checked again
  });

  test("at most maxRedirects are followed, and the error names the next target", async () => {
    const { response } = await guardedFetch(`${main.origin}/chain/2`, opts({ maxRedirects: 2 }));
    expect(await response.text()).toBe("end of chain");
    await expect(guardedFetch(`${main.origin}/chain/3`, opts({ maxRedirects: 2 }))).rejects.toThrow(
      /stopped after 2 redirects \(web.max_redirects\); the next one went to .*\/chain\/0/,
    );
  });

  test.each([
    ["loopback on another port", () => `${other.origin}/`],
    ["cloud metadata", () => "http://169.254.169.254/latest/meta-data/iam/"],
    ["a private IP", () => "http://192.168.1.1/admin"],
    ["an IPv4-mapped loopback", () => `http://[::ffff:127.0.0.1]:${other.port}/`],
    ["a name resolving privately", () => "http://intranet.test/"],
  ])("a redirect to %s is refused", async (_label, target) => {
    const before = other.seen.length;
    const lookup = tableLookup({ "intranet.test": ["172.16.0.9"] });
    const to = encodeURIComponent(target());
    await expect(guardedFetch(`${main.origin}/redirect?to=${to}`, opts({ lookup }))).rejects.toThrow(/^redirected to .*refused/);
    expect(other.seen.length).toBe(before);
  });

  test("a redirect to another scheme is refused", async () => {
    await expect(guardedFetch(`${main.origin}/redirect?to=${encodeURIComponent("file:///etc/passwd")}`, opts())).rejects.toThrow(
      /redirect from .* to "file:\/\/\/etc\/passwd" refused: file: URLs are refused/,
    );
  });

  test("onRedirect can stop a redirect before it is followed", async () => {
    const stop = (to: URL) => {
      throw new Error(`not following ${to.pathname}`);
    };
    await expect(guardedFetch(`${main.origin}/chain/1`, opts(), { onRedirect: stop })).rejects.toThrow("not following /chain/0");
  });

  test("credentials given by a caller do not follow a redirect to another origin", async () => {
    const lookup = tableLookup({ "a.test": ["127.0.0.1"], "b.test": ["127.0.0.1"] });
    const to = encodeURIComponent(`http://b.test:${main.port}/hello`);
    await guardedFetch(`http://a.test:${main.port}/redirect?to=${to}`, opts({ lookup }), { headers: { Authorization: "Bearer t" } });
    const [first, second] = main.seen.slice(-2);
    expect(first!.headers.authorization).toBe("Bearer t");
    expect(second!.headers.authorization).toBeUndefined();
    expect(second!.headers.host).toBe(`b.test:${main.port}`);
  });

  test("303 turns a POST into a GET without a body", async () => {
    const { response } = await guardedFetch(`${main.origin}/post-303`, opts(), { method: "POST", body: "x=1", headers: { "content-type": "text/plain" } });
    expect(await response.text()).toBe("hello");
    expect(main.seen.at(-1)!.headers["content-type"]).toBeUndefined();
  });
});

describe("body limits", () => {
  test("readCapped stops at the byte cap and cancels the rest", async () => {
    const { response } = await guardedFetch(`${main.origin}/big`, opts());
    const { bytes, truncated } = await readCapped(response, 1_000_000);
    expect(bytes.length).toBe(1_000_000);
    expect(truncated).toBe(true);
  });

  test("a body under the cap is read whole", async () => {
    const { response } = await guardedFetch(`${main.origin}/hello`, opts());
    expect(await readCapped(response, 1000)).toEqual({ bytes: new TextEncoder().encode("hello"), truncated: false });
  });

  test("the cap applies to decompressed bytes", async () => {
    const { response } = await guardedFetch(`${main.origin}/gzip`, opts());
    const { bytes, truncated } = await readCapped(response, 100_000);
    expect(bytes.length).toBe(100_000);
    expect(bytes[0]).toBe(98);
    expect(truncated).toBe(true);
  });
});

describe.skipIf(!needs("openssl"))("https", () => {
  let certs: ReturnType<typeof makeCerts>;
  let secure: ReturnType<typeof recordingServer>;
  beforeAll(() => {
    certs = makeCerts(["site.test"]);
    secure = recordingServer(() => new Response("secure hello"), "127.0.0.1", { cert: certs.cert, key: certs.key });
  });
  afterAll(() => secure.server.stop(true));

  const httpsOpts = (extra: Partial<ConnectorOptions> = {}) =>
    opts({ allow: allowPort(secure.port), lookup: tableLookup({ "site.test": ["127.0.0.1"], "evil.test": ["127.0.0.1"] }), tls: { ca: certs.ca }, ...extra });

  test("a pinned HTTPS request verifies the certificate for the name", async () => {
    const { response } = await guardedFetch(`https://site.test:${secure.port}/`, httpsOpts());
    expect(await response.text()).toBe("secure hello");
    expect(secure.seen.at(-1)!.headers.host).toBe(`site.test:${secure.port}`);
  });

  test("no proxy variable (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY, any case) is used, for http or https", async () => {
    const connections = await withProxyTrap(async () => {
      const secureRes = await guardedFetch(`https://site.test:${secure.port}/`, httpsOpts());
      expect(await secureRes.response.text()).toBe("secure hello");
      const plainRes = await guardedFetch(`${main.origin}/hello`, opts());
      expect(await plainRes.response.text()).toBe("hello");
    });
    expect(connections).toBe(0);
  });

  test("a certificate for another name is rejected", async () => {
    await expect(guardedFetch(`https://evil.test:${secure.port}/`, httpsOpts())).rejects.toThrow(/TLS failed \(ERR_TLS_CERT_ALTNAME_INVALID\)/);
  });

  test("without the test CA the certificate is not trusted (no global trust switch)", async () => {
    await expect(guardedFetch(`https://site.test:${secure.port}/`, httpsOpts({ tls: undefined }))).rejects.toThrow(/TLS failed/);
  });
});

describe("IPv6 loopback", () => {
  test("::1 is refused by default and reachable through the port exception", async () => {
    let v6: ReturnType<typeof recordingServer> | undefined;
    try {
      v6 = recordingServer(() => new Response("v6 hello"), "::1");
    } catch {
      return; // no IPv6 loopback on this machine
    }
    try {
      const origin = `http://[::1]:${v6.port}`;
      await expect(guardedFetch(`${origin}/`, opts({ allow: undefined }))).rejects.toThrow(/::1, a loopback address/);
      expect(v6.seen.length).toBe(0);
      const { response } = await guardedFetch(`${origin}/`, opts({ allow: allowPort(v6.port) }));
      expect(await response.text()).toBe("v6 hello");
    } finally {
      v6.server.stop(true);
    }
  });
});
