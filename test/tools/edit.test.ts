import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { createEditTool } from "../../src/tools/edit";
import { invokeTool, makeCallContext, makeScope } from "../fake/scope";

function setup() {
  const scope = makeScope();
  const ctx = makeCallContext(scope);
  const tool = createEditTool(scope);
  const at = (rel: string) => path.join(scope.workspace, rel);
  const edit = (args: unknown) => invokeTool(tool, args, ctx);
  return { scope, ctx, tool, at, edit, ws: scope.workspace };
}

const sha = (b: string | Buffer) => createHash("sha256").update(b).digest("hex");
const numbered = (n: number, eol = "\n") => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join(eol) + eol;

describe("edit", () => {
  test("one line of a 3,000-line file: the approval shows only the hunk, the rest is byte-for-byte the same", async () => {
    const { edit, at, ws } = setup();
    const before = numbered(3000);
    fs.writeFileSync(at("big.txt"), before);
    const { risk, summary, result } = await edit({ path: "big.txt", edits: [{ old_text: "line 1500\n", new_text: "line fifteen hundred\n" }] });
    expect(risk).toBe("filesystem");
    expect(summary).toBe(
      ["edit big.txt +1 -1 lines:", "@@ -1497,7 +1497,7 @@", " line 1497", " line 1498", " line 1499", "-line 1500", "+line fifteen hundred", " line 1501", " line 1502", " line 1503"].join("\n"),
    );
    const after = before.replace("line 1500\n", "line fifteen hundred\n");
    expect(fs.readFileSync(at("big.txt"), "utf8")).toBe(after);
    expect(result.ok).toBe(true);
    expect(result.output).toBe(`edited big.txt: +1 -1 lines, sha256=${sha(after)}`);
    expect(result.display).toBe("+1 -1 lines");
    expect(result.event).toMatchObject({ path: "big.txt", sha256: sha(after), previous_sha256: sha(before), added: 1, removed: 1 });
    expect(String(result.event!.diff)).toContain("-line 1500\n+line fifteen hundred");
    expect(fs.readdirSync(ws)).toEqual(["big.txt"]); // no temporary left
  });

  test("a CRLF file keeps CRLF, and a BOM stays, when the model sends LF text", async () => {
    const { edit, at } = setup();
    const before = `\uFEFF${numbered(10, "\r\n")}`;
    fs.writeFileSync(at("win.txt"), before);
    const { summary, result } = await edit({ path: "win.txt", edits: [{ old_text: "line 3\nline 4", new_text: "three\nfour\nfour and a half" }] });
    expect(result.ok).toBe(true);
    expect(summary).not.toContain("\r");
    expect(fs.readFileSync(at("win.txt"), "utf8")).toBe(before.replace("line 3\r\nline 4", "three\r\nfour\r\nfour and a half"));
  });

  test("edits apply in order; replace_all changes every occurrence", async () => {
    const { edit, at } = setup();
    fs.writeFileSync(at("a.ts"), "let x = 1;\nlet y = x + x;\n");
    const { result } = await edit({
      path: "a.ts",
      edits: [
        { old_text: "x", new_text: "count", replace_all: true },
        { old_text: "let y", new_text: "const y" },
      ],
    });
    expect(result.ok).toBe(true);
    expect(fs.readFileSync(at("a.ts"), "utf8")).toBe("let count = 1;\nconst y = count + count;\n");
  });

  test("an ambiguous old_text says how many matches and on which lines, and writes nothing", async () => {
    const { edit, at } = setup();
    const before = "a\nreturn 1;\nb\nreturn 1;\nc\n";
    fs.writeFileSync(at("f.js"), before);
    const { risk, result } = await edit({ path: "f.js", edits: [{ old_text: "return 1;", new_text: "return 2;" }] });
    expect(risk).toBeUndefined(); // refused before approval
    expect(result.ok).toBe(false);
    expect(result.output).toBe(
      "the edit: old_text matches 2 times in f.js (at lines 2, 4); include more surrounding lines so it matches once, or set replace_all. Nothing was written.",
    );
    expect(fs.readFileSync(at("f.js"), "utf8")).toBe(before);
  });

  test("a later failing edit leaves the file as it was, even though earlier edits matched", async () => {
    const { edit, at } = setup();
    fs.writeFileSync(at("f.txt"), "one\ntwo\n");
    const { result } = await edit({ path: "f.txt", edits: [{ old_text: "one", new_text: "1" }, { old_text: "  two", new_text: "2" }] });
    expect(result.output).toContain("edits[1]: old_text was not found in f.txt (after the edits before it); its first line appears, with different spacing or following lines, at line 2");
    expect(fs.readFileSync(at("f.txt"), "utf8")).toBe("one\ntwo\n");
  });

  test("bad input: equal texts, stale sha, binary file, outside the workspace, missing file", async () => {
    const { edit, at, ws } = setup();
    fs.writeFileSync(at("t.txt"), "hello\n");
    expect((await edit({ path: "t.txt", edits: [{ old_text: "hello", new_text: "hello" }] })).result.output).toContain("old_text and new_text are the same");
    const stale = await edit({ path: "t.txt", edits: [{ old_text: "hello", new_text: "bye" }], expected_sha256: "0".repeat(64) });
    expect(stale.result.output).toContain(`changed since you saw it: its sha256 is now ${sha("hello\n")}`);
    fs.writeFileSync(at("bin"), Buffer.from([0x68, 0x00, 0x69]));
    expect((await edit({ path: "bin", edits: [{ old_text: "h", new_text: "H" }] })).result.output).toBe('path "bin" is not UTF-8 text (byte offset 1); edit changes text files only');
    const outside = path.join(path.dirname(ws), `${path.basename(ws)}-outside.txt`);
    fs.writeFileSync(outside, "hello\n");
    try {
      expect((await edit({ path: `../${path.basename(outside)}`, edits: [{ old_text: "hello", new_text: "x" }] })).result.output).toContain("is outside the workspace");
      expect(fs.readFileSync(outside, "utf8")).toBe("hello\n");
    } finally {
      fs.rmSync(outside);
    }
    expect((await edit({ path: "nope.txt", edits: [{ old_text: "a", new_text: "b" }] })).result.output).toBe('path "nope.txt" does not exist in the workspace');
    expect((await edit({ path: "t.txt", edits: [] })).result.output).toContain("give at least one edit");
    expect(fs.readFileSync(at("t.txt"), "utf8")).toBe("hello\n");
    expect(fs.readFileSync(at("bin"))).toEqual(Buffer.from([0x68, 0x00, 0x69]));
  });

  test("a file changed between approval and run is not overwritten", async () => {
    const { tool, ctx, at } = setup();
    fs.writeFileSync(at("r.txt"), "alpha\n");
    const assessed = await tool.assess({ path: "r.txt", edits: [{ old_text: "alpha", new_text: "beta" }] }, ctx);
    expect(assessed.ok).toBe(true);
    fs.writeFileSync(at("r.txt"), "alpha\ngamma\n"); // someone else changed it while the person looked
    const result = await tool.run((assessed as { args: unknown }).args, ctx);
    expect(result.ok).toBe(false);
    expect(result.output).toContain("changed since you saw it");
    expect(fs.readFileSync(at("r.txt"), "utf8")).toBe("alpha\ngamma\n");
  });

  test("credential-looking text is masked in the approval diff", async () => {
    const { edit, at } = setup();
    fs.writeFileSync(at("cfg.ts"), "const k = 1;\n");
    const { summary } = await edit({ path: "cfg.ts", edits: [{ old_text: "const k = 1;", new_text: "const k = 'sk-abcdefghijklmnopqrstuvwx';" }] });
    expect(summary).not.toContain("sk-abcdefghijklmnopqrstuvwx");
  });
});
