import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { findUtf8Problem, createReadTool } from "../../src/tools/read";
import { invokeTool, makeCallContext, makeScope } from "../fake/scope";

function setup(outputLimitBytes?: number) {
  const scope = makeScope({ config: outputLimitBytes ? { tools: { output_limit_bytes: outputLimitBytes } } : undefined });
  const ctx = makeCallContext(scope);
  const tool = createReadTool(scope);
  const put = (rel: string, data: string | Buffer) => {
    fs.mkdirSync(path.dirname(path.join(scope.workspace, rel)), { recursive: true });
    fs.writeFileSync(path.join(scope.workspace, rel), data);
  };
  const read = (args: unknown) => invokeTool(tool, args, ctx);
  return { scope, ctx, tool, put, read };
}

/** Splits a successful read into its parsed header and content. */
function parse(output: string) {
  const nl = output.indexOf("\n");
  const header = output.slice(0, nl);
  const m = /^\[read (.+): bytes (\d+)-(\d+) of (\d+), truncated=(true|false)(?:; continue with offset=(\d+))?(.*?)(?:; sha256=([0-9a-f]{64}))?\]$/.exec(header);
  if (!m) throw new Error(`unexpected header: ${header}`);
  return {
    path: m[1],
    start: Number(m[2]),
    end: Number(m[3]),
    total: Number(m[4]),
    truncated: m[5] === "true",
    next: m[6] ? Number(m[6]) : undefined,
    note: m[7],
    sha256: m[8],
    content: output.slice(nl + 1),
  };
}

const sha = (b: string | Buffer) => createHash("sha256").update(b).digest("hex");

describe("read", () => {
  test("a whole file: header with range, total, truncated=false and sha256, then the content", async () => {
    const { put, read } = setup();
    put("src/main.ts", "fn main() {}\nünïcödé\n");
    const { risk, summary, result } = await read({ path: "src/main.ts" });
    expect(result.ok).toBe(true);
    const bytes = Buffer.byteLength("fn main() {}\nünïcödé\n");
    expect(result.output.split("\n")[0]).toBe(`[read src/main.ts: bytes 0-${bytes} of ${bytes}, truncated=false; sha256=${sha("fn main() {}\nünïcödé\n")}]`);
    expect(parse(result.output).content).toBe("fn main() {}\nünïcödé\n");
    expect(risk).toBe("read_only");
    expect(summary).toBe(`read src/main.ts (bytes 0-${bytes})`);
    expect(result.event).toMatchObject({ path: "src/main.ts", offset: 0, end: bytes, total: bytes, truncated: false });
  });

  test("offset and limit select bytes; truncated says more follows", async () => {
    const { put, read } = setup();
    put("a.txt", "0123456789");
    const mid = await read({ path: "a.txt", offset: 2, limit: 5 });
    expect(mid.summary).toBe("read a.txt (bytes 2-7)");
    const p = parse(mid.result.output);
    expect(p).toMatchObject({ start: 2, end: 7, total: 10, truncated: true, next: 7, content: "23456" });
    expect(p.sha256).toBeUndefined(); // only a whole-file read carries the file's hash
    const tail = parse((await read({ path: "a.txt", offset: 7, limit: 100 })).result.output);
    expect(tail).toMatchObject({ start: 7, end: 10, truncated: false, content: "789" });
    const atEnd = parse((await read({ path: "a.txt", offset: 10 })).result.output);
    expect(atEnd).toMatchObject({ start: 10, end: 10, content: "" });
    const none = parse((await read({ path: "a.txt", limit: 0 })).result.output);
    expect(none).toMatchObject({ start: 0, end: 0, truncated: true, content: "" });
  });

  test("an offset past the end is a clear error", async () => {
    const { put, read } = setup();
    put("a.txt", "abc");
    const { result } = await read({ path: "a.txt", offset: 4 });
    expect(result.ok).toBe(false);
    expect(result.output).toBe("offset 4 is past the end of a.txt, which is 3 bytes long; use an offset from 0 to 3");
  });

  test("the default limit fits the output limit with the header, and paging reassembles multi-byte text", async () => {
    const { put, read, ctx } = setup(1024);
    const text = "é漢😀x".repeat(700) + "\nend";
    put("big.txt", text);
    let offset = 0;
    let collected = "";
    let pages = 0;
    for (;;) {
      const { result } = await read({ path: "big.txt", offset });
      expect(result.ok).toBe(true);
      expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(ctx.outputLimitBytes);
      expect(result.output).not.toContain("[output truncated");
      const p = parse(result.output);
      expect(p.total).toBe(Buffer.byteLength(text));
      expect(p.end - p.start).toBe(Buffer.byteLength(p.content));
      collected += p.content;
      pages++;
      if (!p.truncated) break;
      expect(p.next).toBe(p.end);
      offset = p.end;
    }
    expect(collected).toBe(text);
    expect(pages).toBeGreaterThan(5);
  });

  test("a limit larger than the output limit is capped and says so", async () => {
    const { put, read } = setup(1024);
    put("big.txt", "a".repeat(5000));
    const { result } = await read({ path: "big.txt", limit: 4000 });
    const p = parse(result.output);
    expect(p.truncated).toBe(true);
    expect(p.end).toBeLessThan(1024);
    expect(p.note).toContain("limit capped");
    expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(1024);
  });

  describe("UTF-8", () => {
    const text = "ab€cd"; // € is e2 82 ac at bytes 2-4

    test("an offset inside a character names it and suggests offsets that work", async () => {
      const { put, read } = setup();
      put("u.txt", text);
      const { result } = await read({ path: "u.txt", offset: 3 });
      expect(result.ok).toBe(false);
      expect(result.output).toContain("u.txt bytes 3-7 are not valid UTF-8");
      expect(result.output).toContain("offset 3 falls inside a multi-byte character");
      expect(result.output).toContain("offset 2 (where that character begins)");
      expect(result.output).toContain("offset 5 (after it)");
      expect(parse((await read({ path: "u.txt", offset: 2 })).result.output).content).toBe("€cd");
      expect(parse((await read({ path: "u.txt", offset: 5 })).result.output).content).toBe("cd");
    });

    test("a limit ending inside a character names the byte and suggests limits that work", async () => {
      const { put, read } = setup();
      put("u.txt", text);
      const { result } = await read({ path: "u.txt", offset: 0, limit: 4 });
      expect(result.ok).toBe(false);
      expect(result.output).toContain("the range ends inside a multi-byte character that starts at file offset 2");
      expect(result.output).toContain("use limit 2 to stop before it or 5 to include it");
      expect(parse((await read({ path: "u.txt", limit: 2 })).result.output).content).toBe("ab");
      expect(parse((await read({ path: "u.txt", limit: 5 })).result.output).content).toBe("ab€");
    });

    test("an invalid byte gives its file offset and a range before it", async () => {
      const { put, read } = setup();
      put("bin.dat", Buffer.concat([Buffer.from("header\n"), Buffer.from([0xff, 0x00, 0x01]), Buffer.from("tail")]));
      const { result } = await read({ path: "bin.dat" });
      expect(result.ok).toBe(false);
      expect(result.output).toContain("byte 0xff at file offset 7 cannot be decoded");
      expect(result.output).toContain("(offset 0, limit 7)");
      expect(parse((await read({ path: "bin.dat", limit: 7 })).result.output).content).toBe("header\n");
      const atBad = await read({ path: "bin.dat", offset: 7 });
      expect(atBad.result.output).toContain("read a range that starts after it (offset 8 or later)");
      expect(parse((await read({ path: "bin.dat", offset: 8 })).result.output).content).toBe("\x00\x01tail");
    });

    test("a file ending in a cut-off character is an error even without a limit", async () => {
      const { put, read } = setup();
      put("cut.txt", Buffer.from([0x61, 0xe2, 0x82]));
      const { result } = await read({ path: "cut.txt" });
      expect(result.ok).toBe(false);
      expect(result.output).toContain("the file ends inside a multi-byte character that starts at file offset 1; read a range that ends before it (offset 0, limit 1)");
    });

    test("the validator rejects overlongs, surrogates and out-of-range code points", () => {
      expect(findUtf8Problem(Buffer.from("plain ascii é 漢 😀"))).toBeUndefined();
      expect(findUtf8Problem(Buffer.from([0x61, 0xc0, 0x80]))).toEqual({ index: 1, incomplete: false });
      expect(findUtf8Problem(Buffer.from([0xed, 0xa0, 0x80]))).toEqual({ index: 0, incomplete: false });
      expect(findUtf8Problem(Buffer.from([0xf4, 0x90, 0x80, 0x80]))).toEqual({ index: 0, incomplete: false });
      expect(findUtf8Problem(Buffer.from([0x61, 0xf0, 0x9f, 0x98]))).toEqual({ index: 1, incomplete: true });
      expect(findUtf8Problem(Buffer.from([0x80]))).toEqual({ index: 0, incomplete: false });
    });
  });

  describe("risk", () => {
    test("secret-like paths need filesystem approval; ordinary ones are read_only", async () => {
      const { put, read } = setup();
      put(".env", "KEY=1\n");
      put("config/server.pem", "-----BEGIN-----\n");
      put(".ssh/config", "Host x\n");
      put("notes.txt", "hello\n");
      for (const p of [".env", "config/server.pem", ".ssh/config"]) {
        const { risk, result } = await read({ path: p });
        expect(risk).toBe("filesystem");
        expect(result.ok).toBe(true);
      }
      expect((await read({ path: "notes.txt" })).risk).toBe("read_only");
      const s = await read({ path: ".env", offset: 1, limit: 3 });
      expect(s.summary).toBe("read .env (bytes 1-4)");
    });

    test("a harmless name that links to a secret-like file is raised too", async () => {
      const { put, read, scope } = setup();
      put(".env", "KEY=1\n");
      fs.symlinkSync(".env", path.join(scope.workspace, "innocent.txt"));
      const { risk, result } = await read({ path: "innocent.txt" });
      expect(risk).toBe("filesystem");
      expect(parse(result.output).content).toBe("KEY=1\n");
    });
  });

  describe("refusals (before approval)", () => {
    test("paths outside the workspace", async () => {
      const { read, scope } = setup();
      const outside = fs.mkdtempSync(path.join(path.dirname(scope.workspace), "outside-"));
      fs.writeFileSync(path.join(outside, "secret"), "s3cret");
      fs.symlinkSync(outside, path.join(scope.workspace, "escape"));
      fs.symlinkSync(path.join(outside, "secret"), path.join(scope.workspace, "link"));
      fs.symlinkSync(path.join(outside, "gone"), path.join(scope.workspace, "dangling"));
      const cases: Array<[string, string]> = [
        ["../x", 'path "../x" is outside the workspace'],
        ["/etc/passwd", "is absolute"],
        ["escape/secret", "outside the workspace"],
        ["link", "outside the workspace"],
        ["dangling", "target does not exist"],
      ];
      for (const [p, message] of cases) {
        const { risk, result } = await read({ path: p });
        expect(risk).toBeUndefined(); // refused by assess: nobody is asked
        expect(result.ok).toBe(false);
        expect(result.output).toContain(message);
        expect(result.output).not.toContain("s3cret");
      }
    });

    test("directories, FIFOs and missing files", async () => {
      const { read, put, scope } = setup();
      put("dir/a.txt", "a");
      expect((await read({ path: "dir" })).result.output).toBe('path "dir" is a directory; read takes a file path');
      expect((await read({ path: "." })).result.output).toContain("is a directory");
      expect((await read({ path: "nope.txt" })).result.output).toBe('path "nope.txt" does not exist in the workspace');
      const fifo = path.join(scope.workspace, "pipe");
      expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
      const { result } = await read({ path: "pipe" }); // must not block opening the FIFO
      expect(result.output).toContain("is not a regular file");
    });

    test("bad arguments are refused with the field named", async () => {
      const { read, put } = setup();
      put("a.txt", "a");
      const cases: Array<[unknown, string]> = [
        [{ path: 5 }, "path:"],
        [{}, "path:"],
        [{ path: "" }, "path: must not be empty"],
        [{ path: "a\0.txt" }, "path: must not contain a NUL byte"],
        [{ path: "a.txt", offset: -1 }, "offset: must be 0 or more"],
        [{ path: "a.txt", limit: 1.5 }, "limit: must be a whole number of bytes"],
        [{ path: "a.txt", offset: "3" }, "offset:"],
        [{ path: "a.txt", extra: true }, "extra"],
        ["a.txt", "arguments:"],
      ];
      for (const [args, message] of cases) {
        const { risk, result } = await read(args);
        expect(risk).toBeUndefined();
        expect(result.ok).toBe(false);
        expect(result.output).toContain("The read tool was called with invalid arguments");
        expect(result.output).toContain(message);
      }
    });
  });

  test("the JSON schema offers path, offset and limit", () => {
    const { tool } = setup();
    expect(tool.jsonSchema).toMatchObject({
      type: "object",
      required: ["path"],
      properties: { path: { type: "string" }, offset: { type: "integer", minimum: 0 }, limit: { type: "integer", minimum: 0 } },
    });
  });
});
