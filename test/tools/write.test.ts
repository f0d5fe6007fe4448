import { afterAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { createReadTool } from "../../src/tools/read";
import { CREATE_FILE_MODE, createWriteTool } from "../../src/tools/write";
import { invokeTool, makeCallContext, makeScope } from "../fake/scope";

function setup() {
  const scope = makeScope();
  const ctx = makeCallContext(scope);
  const tool = createWriteTool(scope);
  const ws = scope.workspace;
  const at = (rel: string) => path.join(ws, rel);
  const write = (args: unknown) => invokeTool(tool, args, ctx);
  const outside = fs.mkdtempSync(path.join(path.dirname(ws), "outside-"));
  return { scope, ctx, tool, ws, at, write, outside };
}

const sha = (b: string | Buffer) => createHash("sha256").update(b).digest("hex");

/** Every entry under dir, recursively, so a leftover temporary file anywhere shows up. */
function listAll(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).sort();
}

describe("write create", () => {
  test("creates a new file with its missing directories; reports bytes and sha256", async () => {
    const { write, at, ws } = setup();
    const content = "fn main() {}\nünï\n";
    const { risk, summary, result } = await write({ path: "src/deep/main.rs", content, mode: "create" });
    const bytes = Buffer.byteLength(content);
    expect(risk).toBe("filesystem");
    expect(summary).toBe(`write src/deep/main.rs (create, ${bytes} bytes)\nnew file, 2 lines:\n+fn main() {}\n+ünï`);
    expect(result).toEqual({
      ok: true,
      output: `created src/deep/main.rs: wrote ${bytes} bytes, sha256=${sha(content)}`,
      event: { path: "src/deep/main.rs", mode: "create", bytes, sha256: sha(content), diff: "@@ -0,0 +1,2 @@\n+fn main() {}\n+ünï" },
      display: "+2 -0 lines",
      // What a person reads: no sha256 (the diff in the event stays in the scrollback).
      preview: `created src/deep/main.rs: wrote ${bytes} bytes`,
    });
    expect(fs.readFileSync(at("src/deep/main.rs"), "utf8")).toBe(content);
    expect(fs.statSync(at("src/deep/main.rs")).mode & 0o777).toBe(CREATE_FILE_MODE & ~process.umask());
    expect(listAll(ws)).toEqual(["src", "src/deep", "src/deep/main.rs"]);
  });

  test("refuses an existing file and leaves it alone", async () => {
    const { write, at } = setup();
    fs.writeFileSync(at("a.txt"), "original");
    const { risk, result } = await write({ path: "a.txt", content: "new", mode: "create" });
    expect(risk).toBeUndefined(); // refused before approval
    expect(result.ok).toBe(false);
    expect(result.output).toContain('path "a.txt" already exists; use mode "replace"');
    expect(fs.readFileSync(at("a.txt"), "utf8")).toBe("original");
  });

  test("an empty file is a valid create", async () => {
    const { write, at } = setup();
    const { result } = await write({ path: "empty", content: "", mode: "create" });
    expect(result.output).toBe(`created empty: wrote 0 bytes, sha256=${sha("")}`);
    expect(fs.readFileSync(at("empty"), "utf8")).toBe("");
  });
});

describe("write replace", () => {
  test("the approval shows a unified diff against the current file; the outcome counts lines", async () => {
    const { write, at } = setup();
    const old = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
    fs.writeFileSync(at("notes.txt"), `${old.join("\n")}\n`);
    const next = [...old];
    next[9] = "line ten, changed";
    next.splice(15, 0, "inserted", "API_KEY=sk-abcdefghijklmnop");
    const { summary, result } = await write({ path: "notes.txt", content: `${next.join("\n")}\n`, mode: "replace" });
    expect(summary!.split("\n").slice(0, 2)).toEqual(["write notes.txt (replace, 198 bytes)", "+3 -1 lines:"]);
    const diff = summary!.split("\n").slice(2);
    expect(diff).toEqual([
      "@@ -7,12 +7,14 @@",
      " line 7",
      " line 8",
      " line 9",
      "-line 10",
      "+line ten, changed",
      " line 11",
      " line 12",
      " line 13",
      " line 14",
      " line 15",
      "+inserted",
      "+API_KEY=…",
      " line 16",
      " line 17",
      " line 18",
    ]);
    expect(result.display).toBe("+3 -1 lines");
  });

  test("a large change shows a bounded diff and says how much was left out", async () => {
    const { write, at } = setup();
    fs.writeFileSync(at("big.txt"), Array.from({ length: 500 }, (_, i) => `old ${i}`).join("\n"));
    const { summary } = await write({ path: "big.txt", content: Array.from({ length: 500 }, (_, i) => `new ${i}`).join("\n"), mode: "replace" });
    const lines = summary!.split("\n");
    expect(lines[1]).toBe("+500 -500 lines:");
    expect(lines.length).toBeLessThan(50);
    expect(lines[lines.length - 1]).toMatch(/^… \d+ more diff lines not shown$/);
  });

  test("replaces content and keeps the file's permission bits", async () => {
    const { write, at, ws } = setup();
    for (const mode of [0o600, 0o755]) {
      fs.writeFileSync(at("f.sh"), "old");
      fs.chmodSync(at("f.sh"), mode);
      const { result } = await write({ path: "f.sh", content: "#!/bin/sh\n", mode: "replace" });
      expect(result.ok).toBe(true);
      expect(fs.readFileSync(at("f.sh"), "utf8")).toBe("#!/bin/sh\n");
      expect(fs.statSync(at("f.sh")).mode & 0o777).toBe(mode);
    }
    expect(listAll(ws)).toEqual(["f.sh"]);
  });

  test("refuses a missing file or a directory", async () => {
    const { write, at } = setup();
    expect((await write({ path: "none.txt", content: "x", mode: "replace" })).result.output).toBe(
      'path "none.txt" does not exist; use mode "create" to make a new file',
    );
    expect((await write({ path: "no/dir/x", content: "x", mode: "replace" })).result.output).toContain("does not exist");
    expect(fs.existsSync(at("no"))).toBe(false);
    fs.mkdirSync(at("d"));
    expect((await write({ path: "d", content: "x", mode: "replace" })).result.output).toContain("is a directory");
  });

  test("expected_sha256: a match writes; a stale hash fails with the current hash and changes nothing", async () => {
    const { write, at, ws } = setup();
    fs.writeFileSync(at("a.txt"), "v1");
    const first = await write({ path: "a.txt", content: "v2", mode: "replace", expected_sha256: sha("v1").toUpperCase() });
    expect(first.result.ok).toBe(true);
    const v2sha = (first.result.event as { sha256: string }).sha256;
    fs.writeFileSync(at("a.txt"), "edited elsewhere"); // an external writer
    const stale = await write({ path: "a.txt", content: "v3", mode: "replace", expected_sha256: v2sha });
    expect(stale.result.ok).toBe(false);
    expect(stale.result.output).toContain(`its sha256 is now ${sha("edited elsewhere")}, not the expected ${v2sha}`);
    expect(stale.result.output).toContain("Nothing was written. Read the file again");
    expect(fs.readFileSync(at("a.txt"), "utf8")).toBe("edited elsewhere");
    expect(listAll(ws)).toEqual(["a.txt"]); // the temporary file was removed
    const retry = await write({ path: "a.txt", content: "v3", mode: "replace", expected_sha256: sha("edited elsewhere") });
    expect(retry.result.ok).toBe(true);
    expect(fs.readFileSync(at("a.txt"), "utf8")).toBe("v3");
  });

  test("the sha256 a whole-file read reports is accepted as expected_sha256", async () => {
    const { write, at, scope, ctx } = setup();
    fs.writeFileSync(at("a.txt"), "hello é\n");
    const read = await invokeTool(createReadTool(scope), { path: "a.txt" }, ctx);
    const hash = /sha256=([0-9a-f]{64})/.exec(read.result.output)![1];
    const { result } = await write({ path: "a.txt", content: "bye\n", mode: "replace", expected_sha256: hash });
    expect(result.ok).toBe(true);
  });

  test("a symlink inside the workspace is written through to its inside target and stays a link", async () => {
    const { write, at } = setup();
    fs.mkdirSync(at("conf"));
    fs.writeFileSync(at("conf/real.yml"), "a: 1\n");
    fs.symlinkSync("conf/real.yml", at("link.yml"));
    const { result } = await write({ path: "link.yml", content: "a: 2\n", mode: "replace" });
    expect(result.ok).toBe(true);
    expect(fs.lstatSync(at("link.yml")).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(at("conf/real.yml"), "utf8")).toBe("a: 2\n");
  });
});

describe("atomicity", () => {
  test("a concurrent reader only ever sees a complete version", async () => {
    const { write, at } = setup();
    const a = "a".repeat(1 << 20);
    const b = "b".repeat(1 << 20);
    fs.writeFileSync(at("big"), a);
    let reads = 0;
    let partial = 0;
    let stop = false;
    const reader = (async () => {
      while (!stop) {
        const seen = fs.readFileSync(at("big"), "utf8");
        reads++;
        if (seen !== a && seen !== b) partial++;
        await new Promise((r) => setImmediate(r));
      }
    })();
    for (let i = 0; i < 10; i++) {
      const { result } = await write({ path: "big", content: i % 2 ? a : b, mode: "replace" });
      expect(result.ok).toBe(true);
    }
    stop = true;
    await reader;
    expect(reads).toBeGreaterThan(10);
    expect(partial).toBe(0);
    expect(fs.readdirSync(path.dirname(at("big")))).toEqual(["big"]);
  });

  test("a cancelled call installs nothing and leaves no temporary file", async () => {
    const { scope, at, ws } = setup();
    fs.writeFileSync(at("a.txt"), "keep");
    const ctx = makeCallContext(scope);
    ctx.cancel();
    const { result } = await invokeTool(createWriteTool(scope), { path: "a.txt", content: "lost", mode: "replace" }, ctx);
    expect(result).toEqual({ ok: false, output: "cancelled" });
    expect(fs.readFileSync(at("a.txt"), "utf8")).toBe("keep");
    expect(listAll(ws)).toEqual(["a.txt"]);
  });
});

describe("containment", () => {
  test("a symlinked parent directory leading outside is refused; nothing is written outside", async () => {
    const { write, at, outside } = setup();
    fs.writeFileSync(path.join(outside, "target"), "outside");
    fs.symlinkSync(outside, at("escape"));
    for (const [p, mode] of [["escape/new.txt", "create"], ["escape/target", "replace"], ["escape/sub/new.txt", "create"]]) {
      const { risk, result } = await write({ path: p, content: "pwned", mode });
      expect(risk).toBeUndefined();
      expect(result.output).toContain("is outside the workspace");
    }
    expect(fs.readdirSync(outside)).toEqual(["target"]);
    expect(fs.readFileSync(path.join(outside, "target"), "utf8")).toBe("outside");
  });

  test("a final symlink leading outside is refused, never written through", async () => {
    const { write, at, outside } = setup();
    fs.writeFileSync(path.join(outside, "target"), "outside");
    fs.symlinkSync(path.join(outside, "target"), at("link"));
    for (const mode of ["replace", "create"]) {
      const { result } = await write({ path: "link", content: "pwned", mode });
      expect(result.ok).toBe(false);
      expect(result.output).toContain("outside the workspace");
    }
    expect(fs.readFileSync(path.join(outside, "target"), "utf8")).toBe("outside");
    expect(fs.lstatSync(at("link")).isSymbolicLink()).toBe(true);
  });

  test("a dangling symlink is refused and creates nothing at its target", async () => {
    const { write, at, outside } = setup();
    fs.symlinkSync(path.join(outside, "planted"), at("dangling"));
    fs.symlinkSync("missing-inside", at("dangling-in"));
    for (const p of ["dangling", "dangling-in", "dangling/child"]) {
      const { result } = await write({ path: p, content: "x", mode: "create" });
      expect(result.ok).toBe(false);
      expect(result.output).toContain("target does not exist");
    }
    expect(fs.existsSync(path.join(outside, "planted"))).toBe(false);
    expect(fs.existsSync(at("missing-inside"))).toBe(false);
  });

  test("absolute paths, .. escapes and the workspace root are refused", async () => {
    const { write, outside } = setup();
    const cases: Array<[string, string]> = [
      [path.join(outside, "x"), "is absolute"],
      ["../x", 'path "../x" is outside the workspace'],
      ["a/../../x", "is outside the workspace"],
      [".", "is the workspace root"],
      ["dir/", 'ends with "/"'],
    ];
    for (const [p, message] of cases) {
      const { result } = await write({ path: p, content: "x", mode: "create" });
      expect(result.ok).toBe(false);
      expect(result.output).toContain(message);
    }
    expect(fs.readdirSync(outside)).toEqual([]);
  });
});

test("bad arguments are refused before anything runs", async () => {
  const { write, ws } = setup();
  const cases: Array<[unknown, string]> = [
    [{ path: "a", content: "x" }, "mode:"],
    [{ path: "a", content: "x", mode: "append" }, 'must be "create" (the file must not exist) or "replace"'],
    [{ path: "a", content: 5, mode: "create" }, "content:"],
    [{ path: "a", content: "half \ud83d pair", mode: "create" }, "content: must be valid Unicode text: it contains an unpaired surrogate"],
    [{ path: "", content: "x", mode: "create" }, "path: must not be empty"],
    [{ path: "a\0b", content: "x", mode: "create" }, "path: must not contain a NUL byte"],
    [{ path: "a", content: "x", mode: "replace", expected_sha256: "abc" }, "expected_sha256: must be 64 hexadecimal digits"],
    [{ path: "a", content: "x", mode: "create", expected_sha256: sha("") }, 'expected_sha256: applies only to mode "replace"'],
  ];
  for (const [args, message] of cases) {
    const { risk, result } = await write(args);
    expect(risk).toBeUndefined();
    expect(result.output).toContain("The write tool was called with invalid arguments");
    expect(result.output).toContain(message);
  }
  expect(fs.readdirSync(ws)).toEqual([]);
});

describe("temporary files of killed writers", () => {
  const cleanups: string[] = [];
  afterAll(() => {
    for (const d of cleanups) fs.rmSync(d, { recursive: true, force: true });
  });
  test("the next write in a directory removes temporaries whose owner is gone, and keeps a live writer's", async () => {
    const { write, ws, scope, outside } = setup();
    cleanups.push(ws, outside);
    const me = fs.readFileSync(`/proc/${process.pid}/stat`, "utf8");
    const myStart = me.slice(me.lastIndexOf(")") + 2).split(" ")[19];
    const stale = [".big.txt.999999999-12345.0123456789ab.scv-tmp", ".big.txt.999999998.0123456789ab.scv-tmp", `.big.txt.${process.pid}-1.0123456789ab.scv-tmp`];
    const live = `.other.txt.${process.pid}-${myStart}.0123456789ab.scv-tmp`;
    for (const n of [...stale, live]) fs.writeFileSync(path.join(ws, n), "half");
    fs.mkdirSync(path.join(ws, ".dir.999999999-1.0123456789ab.scv-tmp")); // not a regular file: left alone
    const { result } = await write({ path: "new.txt", content: "x", mode: "create" });
    expect(result.ok).toBe(true);
    expect(listAll(ws)).toEqual([".dir.999999999-1.0123456789ab.scv-tmp", live, "new.txt"].sort());
    // While a write runs its temporary is recorded in $SCV_HOME/state/tmp; afterwards the record is gone.
    const records = path.join(scope.scvHome, "state", "tmp");
    expect(fs.existsSync(records) ? fs.readdirSync(records) : []).toEqual([]);
  });

  test("the start-up sweep removes a recorded temporary whose owner is gone", async () => {
    const { ws, scope, outside } = setup();
    cleanups.push(ws, outside);
    const { sweepOwnedFiles } = await import("../../src/process/owned-files");
    const temp = path.join(ws, ".big.txt.999999999-7.00aa00aa00aa.scv-tmp");
    const notOurs = path.join(ws, "precious.txt");
    fs.writeFileSync(temp, "half");
    fs.writeFileSync(notOurs, "keep");
    const dir = path.join(scope.scvHome, "state", "tmp");
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "a.json"), JSON.stringify({ path: temp, owner_pid: 999_999_999, owner_start_time: "7" }));
    fs.writeFileSync(path.join(dir, "b.json"), JSON.stringify({ path: notOurs, owner_pid: 999_999_999, owner_start_time: "7" }));
    expect(sweepOwnedFiles(scope.scvHome)).toBe(1);
    expect(listAll(ws)).toEqual(["precious.txt"]); // a record never deletes a file that is not a .scv-tmp
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
