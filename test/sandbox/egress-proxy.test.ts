// The egress proxy itself (from source), spoken to over a Unix socket of its listener: CONNECT, plain HTTP,
// SOCKS5, refusals with a reason, garbage, `mode = "read"`, private answers, and its log.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import { openEgressListener } from "../../src/sandbox/egress-proxy";
import { egressRules } from "../../src/sandbox/egress-rules";

const dir = mkdtempSync(join("/var/tmp", "scv-egress-"));
const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (r) => new Response(`hello ${r.method} ${r.headers.get("host")} ${new URL(r.url).pathname}\n`) });
const port = server.port as number;
// A server that ignores Connection: close and answers every request it reads, closing when the client is quiet.
let posts = 0;
const lax = Bun.listen({
  hostname: "127.0.0.1",
  port: 0,
  socket: {
    data(s, d) {
      const text = Buffer.from(d).toString();
      posts += text.split("POST ").length - 1;
      for (let i = 0; i < text.split(" HTTP/1.1\r\n").length - 1; i++) s.write("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nhello lax");
      setTimeout(() => s.end(), 200);
    },
  },
});
writeFileSync(join(dir, "hosts"), `127.0.0.1 registry.test evil.test\n127.0.0.2 private.test\n`);
const logFile = join(dir, "log.jsonl");
const listen = (mode: "read" | "full", name: string) =>
  openEgressListener(join(dir, name), {
    rules: egressRules({ allow: ["registry.test", "private.test", `127.0.0.1:${port}`, `127.0.0.1:${lax.port}`], deny: ["evil.test"], presets: [], mode, allow_private: true, hosts_file: join(dir, "hosts") }),
    logFile,
    session: "s-1",
    command: "curl things",
  });
const full = listen("full", "full.sock");
const read = listen("read", "read.sock");
afterAll(() => {
  full.close();
  read.close();
  server.stop(true);
  lax.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

/** Sends `bytes` over the socket and collects everything until the proxy or the server closes. */
function talk(socket: string | undefined, bytes: (string | Uint8Array)[], gapMs = 0): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const c = net.connect(socket!);
    const got: Buffer[] = [];
    c.on("data", (d: Buffer) => got.push(d));
    c.on("end", () => resolve(Buffer.concat(got)));
    c.on("error", reject);
    c.on("connect", async () => {
      for (const b of bytes) {
        c.write(b);
        if (gapMs) await Bun.sleep(gapMs);
      }
    });
  });
}

test("CONNECT to an allowed host is tunnelled; plain HTTP in absolute form is forwarded with Connection: close", async () => {
  const tunnelled = (await talk(full.socket, [`CONNECT registry.test:${port} HTTP/1.1\r\nHost: registry.test:${port}\r\n\r\n`, `GET /t HTTP/1.1\r\nHost: registry.test:${port}\r\nConnection: close\r\n\r\n`], 50)).toString();
  expect(tunnelled).toStartWith("HTTP/1.1 200 Connection Established\r\n\r\nHTTP/1.1 200");
  expect(tunnelled).toContain(`hello GET registry.test:${port} /t`);
  const plain = (await talk(full.socket, [`GET http://REGISTRY.test:${port}/p?q=1 HTTP/1.1\r\nHost: registry.TEST:${port}\r\nProxy-Connection: keep-alive\r\n\r\n`])).toString();
  expect(plain).toContain(`hello GET registry.TEST:${port} /p`); // the Host header goes on as written
});

test("refusals: a denied host, a name outside allow, a Host header naming another host, an allowed name resolving to a private address", async () => {
  const denied = (await talk(full.socket, [`CONNECT evil.test:${port} HTTP/1.1\r\n\r\n`])).toString();
  expect(denied).toStartWith("HTTP/1.1 403 Forbidden\r\n");
  expect(denied).toMatch(/X-SCV-Refused: evil\.test:\d+ denied by \[sandbox\.network\] deny "evil\.test"/);
  const outside = (await talk(full.socket, [`CONNECT example.org:443 HTTP/1.1\r\n\r\n`])).toString();
  expect(outside).toContain("X-SCV-Refused: example.org:443 not in [sandbox.network] allow");
  const host = (await talk(full.socket, [`GET http://registry.test:${port}/ HTTP/1.1\r\nHost: evil.test\r\n\r\n`])).toString();
  expect(host).toStartWith("HTTP/1.1 403");
  expect(host).toContain("does not name the URL's host");
  const priv = (await talk(full.socket, [`CONNECT private.test:${port} HTTP/1.1\r\n\r\n`])).toString();
  expect(priv).toStartWith("HTTP/1.1 403");
  expect(priv).toContain("private.test resolves to 127.0.0.2");
  // The listed address itself, on another port, is not listed.
  const otherPort = (await talk(full.socket, [`CONNECT registry.test:${port === 1 ? 2 : port - 1} HTTP/1.1\r\n\r\n`])).toString();
  expect(otherPort).toStartWith("HTTP/1.1 403");
  expect(full.refused().map((e) => e.host)).toEqual(["evil.test", "example.org", "evil.test", "private.test", "registry.test"]);
});

test("garbage gets a clear 400 and the proxy keeps serving", async () => {
  const bad = (await talk(full.socket, ["\x16\x03\x01 hello there\r\n\r\n"])).toString();
  expect(bad).toStartWith("HTTP/1.1 400");
  expect(bad).toContain("not an HTTP proxy request");
  const origin = (await talk(full.socket, [`GET / HTTP/1.1\r\nHost: registry.test\r\n\r\n`])).toString();
  expect(origin).toContain("absolute http:// URL");
  const after = (await talk(full.socket, [`GET http://registry.test:${port}/still HTTP/1.1\r\nHost: registry.test:${port}\r\n\r\n`])).toString();
  expect(after).toContain("hello GET");
});

test('mode = "read": GET, HEAD and OPTIONS pass on plain HTTP, POST does not', async () => {
  const get = (await talk(read.socket, [`GET http://registry.test:${port}/r HTTP/1.1\r\nHost: registry.test:${port}\r\n\r\n`])).toString();
  expect(get).toContain("hello GET");
  const post = (await talk(read.socket, [`POST http://registry.test:${port}/r HTTP/1.1\r\nHost: registry.test:${port}\r\nContent-Length: 2\r\n\r\nhi`])).toString();
  expect(post).toStartWith("HTTP/1.1 405");
  expect(post).toContain('mode = "read"');
  // A POST pipelined behind an allowed GET does not reach the server.
  const before = posts;
  const piped = (await talk(read.socket, [`GET http://registry.test:${lax.port}/r HTTP/1.1\r\nHost: registry.test:${lax.port}\r\n\r\nPOST /w HTTP/1.1\r\nHost: registry.test:${lax.port}\r\nContent-Length: 2\r\n\r\nhi`])).toString();
  expect(piped).toContain("hello lax");
  expect(posts).toBe(before);
});

test("SOCKS5 with a name resolved by the proxy: allowed and refused", async () => {
  const name = Buffer.from("registry.test");
  const req = (host: Buffer) => Buffer.concat([Buffer.from([5, 1, 0, 3, host.length]), host, Buffer.from([port >> 8, port & 0xff])]);
  const ok = await talk(full.socket, [Buffer.from([5, 1, 0]), req(name), `GET /s HTTP/1.1\r\nHost: registry.test\r\nConnection: close\r\n\r\n`], 50);
  expect([...ok.subarray(0, 4)]).toEqual([5, 0, 5, 0]);
  expect(ok.toString()).toContain("hello GET registry.test /s");
  const no = await talk(full.socket, [Buffer.from([5, 1, 0]), req(Buffer.from("evil.test"))], 50);
  expect([...no.subarray(0, 4)]).toEqual([5, 0, 5, 2]);
});

test("the log has each decision with host, session and command", () => {
  const lines = readFileSync(logFile, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  expect(lines.some((l) => l.action === "allowed" && l.host === "registry.test" && l.via === "CONNECT" && l.session === "s-1" && l.command === "curl things")).toBe(true);
  expect(lines.some((l) => l.action === "refused" && l.host === "evil.test" && l.reason.includes("deny"))).toBe(true);
});
