// fetchPage: content types, binary refusal before the body, charsets, and HTML conversion, on a local server.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { contentKind, fetchPage } from "../../src/net/page";
import { allowPort, installLoopbackTripwire, noLookup } from "./helpers";

let tripwire: ReturnType<typeof installLoopbackTripwire>;
let server: ReturnType<typeof Bun.serve>;
let origin = "";
let binaryChunksPulled = 0;
let binaryCancelled = false;
/** A body with no Content-Type header at all (Bun adds one for byte bodies, not for streams). */
const untyped = (bytes: Uint8Array | string) =>
  new Response(
    new ReadableStream({
      start(c) {
        c.enqueue(typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes);
        c.close();
      },
    }),
  );

beforeAll(() => {
  tripwire = installLoopbackTripwire();
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const path = new URL(req.url).pathname;
      if (path === "/page.html") {
        return new Response(`<html><head><title>T</title></head><body><h1>Hi</h1><p>See <a href="/next">next</a>.</p></body></html>`, {
          headers: { "content-type": "text/html; charset=utf-8" },
        });
      }
      if (path === "/data.json") return Response.json({ a: 1, b: "<not html>" });
      if (path === "/latin1") {
        return new Response(Buffer.from("caf\xe9", "latin1"), { headers: { "content-type": "text/plain; charset=iso-8859-1" } });
      }
      if (path === "/meta-charset") {
        return new Response(Buffer.from(`<html><head><meta charset="windows-1252"></head><body>\x93quoted\x94</body></html>`, "latin1"), {
          headers: { "content-type": "text/html" },
        });
      }
      if (path === "/image.png") {
        // A slow endless stream: if the client kept reading, it would keep pulling.
        binaryChunksPulled = 0;
        binaryCancelled = false;
        return new Response(
          new ReadableStream({
            async pull(controller) {
              await Bun.sleep(5);
              binaryChunksPulled++;
              controller.enqueue(new Uint8Array(64 * 1024));
            },
            cancel() {
              binaryCancelled = true;
            },
          }),
          { headers: { "content-type": "image/png" } },
        );
      }
      if (path === "/stall") {
        // Headers and a first chunk at once, then nothing: the deadline must cover the body too.
        return new Response(
          new ReadableStream({
            start(c) {
              c.enqueue(new TextEncoder().encode("partial"));
            },
          }),
          { headers: { "content-type": "text/plain" } },
        );
      }
      if (path === "/untyped-binary") return untyped(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2]));
      if (path === "/untyped-html") return untyped("<!DOCTYPE html><p>x &amp; y</p>");
      return new Response("missing", { status: 404, headers: { "content-type": "text/plain" } });
    },
  });
  origin = `http://127.0.0.1:${server.port}`;
});

afterAll(() => {
  tripwire.restore();
  server.stop(true);
  expect(tripwire.violations).toEqual([]);
});

const opts = (maxBytes = 1 << 20) => ({ userAgent: "scv/test", timeoutMs: 5000, maxRedirects: 5, lookup: noLookup, allow: allowPort(server.port!), maxBytes });

describe("contentKind", () => {
  test.each([
    ["text/html; charset=utf-8", "html"],
    ["application/xhtml+xml", "html"],
    ["application/json", "text"],
    ["application/vnd.api+json", "text"],
    ["application/rss+xml", "text"],
    ["text/markdown", "text"],
    ["application/javascript", "text"],
    ["image/png", "binary"],
    ["image/svg+xml", "binary"],
    ["application/pdf", "binary"],
    ["application/zip", "binary"],
    ["application/gzip", "binary"],
    ["application/octet-stream", "binary"],
    ["video/mp4", "binary"],
    ["font/woff2", "binary"],
    ["", "unknown"],
  ])("%s -> %s", (ct, kind) => {
    expect(contentKind(ct)).toBe(kind as ReturnType<typeof contentKind>);
  });
});

describe("fetchPage", () => {
  test("HTML becomes text with links and a title", async () => {
    const p = await fetchPage(`${origin}/page.html`, opts());
    expect(p.kind).toBe("html");
    expect(p.title).toBe("T");
    expect(p.text).toBe("# Hi\n\nSee next[1].");
    expect(p.links).toEqual([`${origin}/next`]);
    expect(p.status).toBe(200);
  });

  test("JSON passes through unchanged", async () => {
    const p = await fetchPage(`${origin}/data.json`, opts());
    expect(p.kind).toBe("text");
    expect(JSON.parse(p.text)).toEqual({ a: 1, b: "<not html>" });
  });

  test("a declared binary type is refused before its body downloads", async () => {
    await expect(fetchPage(`${origin}/image.png`, opts(64 << 20))).rejects.toThrow(/image\/png \(HTTP 200\), not text/);
    await Bun.sleep(300);
    // The connection was dropped at the headers: the server saw the cancel and stopped producing
    // (about 60 chunks would have been pulled in this time by a reader).
    expect(binaryCancelled).toBe(true);
    expect(binaryChunksPulled).toBeLessThan(10);
  });

  test("an untyped body that looks binary is refused; untyped HTML is converted", async () => {
    await expect(fetchPage(`${origin}/untyped-binary`, opts())).rejects.toThrow(/looks binary/);
    const p = await fetchPage(`${origin}/untyped-html`, opts());
    expect(p.kind).toBe("html");
    expect(p.text).toBe("x & y");
  });

  test("charsets from the header and from <meta> are honoured", async () => {
    expect((await fetchPage(`${origin}/latin1`, opts())).text).toBe("café");
    expect((await fetchPage(`${origin}/meta-charset`, opts())).text).toBe("\u201cquoted\u201d");
  });

  test("the timeout covers a body that stalls after the headers", async () => {
    const started = performance.now();
    await expect(fetchPage(`${origin}/stall`, { ...opts(), timeoutMs: 300 })).rejects.toThrow(/timed out/);
    expect(performance.now() - started).toBeLessThan(2500);
  });

  test("the byte cap truncates and says so", async () => {
    const p = await fetchPage(`${origin}/page.html`, opts(40));
    expect(p.truncated).toBe(true);
    expect(p.bytes).toBe(40);
  });

  test("an error status still returns the body", async () => {
    const p = await fetchPage(`${origin}/nope`, opts());
    expect(p.status).toBe(404);
    expect(p.text).toBe("missing");
  });
});
