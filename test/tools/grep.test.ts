import { describe, expect, test } from "bun:test";
import * as fs from "node:fs";
import * as path from "node:path";
import { createGlobTool } from "../../src/tools/glob";
import { createGrepTool, requiredLiteral } from "../../src/tools/grep";
import { IgnoreFile } from "../../src/fs/ignore-rules";
import { invokeTool, makeCallContext, makeScope } from "../fake/scope";

function setup(files: Record<string, string | Buffer>) {
  const scope = makeScope();
  const ctx = makeCallContext(scope);
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(scope.workspace, rel)), { recursive: true });
    fs.writeFileSync(path.join(scope.workspace, rel), content);
  }
  const grep = (args: unknown) => invokeTool(createGrepTool(scope), args, ctx);
  const glob = (args: unknown) => invokeTool(createGlobTool(scope), args, ctx);
  return { scope, ctx, grep, glob, ws: scope.workspace };
}

describe("gitignore rules", () => {
  const cases: [string, string, boolean, boolean | undefined][] = [
    ["*.log", "a/b/x.log", false, true],
    ["/build", "build", true, true],
    ["/build", "src/build", true, undefined],
    ["build/", "src/build", true, true],
    ["build/", "src/build", false, undefined],
    ["doc/*.txt", "doc/a.txt", false, true],
    ["doc/*.txt", "doc/x/a.txt", false, undefined],
    ["**/logs", "deep/er/logs", true, true],
    ["a/**/b", "a/b", false, true],
    ["a/**/b", "a/x/y/b", false, true],
    ["out/**", "out/x/y.js", false, true],
    ["*.[oa]", "lib.a", false, true],
    ["*.[!oa]", "lib.a", false, undefined],
    ["\\#hash", "#hash", false, true],
    ["f?o", "foo", false, true],
  ];
  for (const [pattern, rel, isDir, want] of cases) {
    test(`${pattern} vs ${rel}${isDir ? "/" : ""}`, () => expect(IgnoreFile.parse(pattern)!.decide(rel, isDir)).toBe(want));
  }
  test("the last matching rule wins; ! re-includes", () => {
    const rules = IgnoreFile.parse("*.log\n!keep.log\n# comment\n\n")!;
    expect(rules.decide("x.log", false)).toBe(true);
    expect(rules.decide("keep.log", false)).toBe(false);
  });
});

describe("grep", () => {
  test("finds lines as path:line: text, honours .gitignore and .ignore, skips .git, binaries and secret-like paths", async () => {
    const { grep } = setup({
      ".gitignore": "dist/\n*.gen.ts\n",
      "src/.ignore": "vendor\n",
      "src/a.ts": "const needle = 1;\nother\nneedle again\n",
      "src/b.gen.ts": "needle generated\n",
      "src/vendor/v.ts": "needle vendored\n",
      "dist/out.js": "needle built\n",
      ".git/config": "needle in git\n",
      "img.bin": Buffer.from("needle\0binary"),
      ".env": "NEEDLE=needle secret\n",
      "README.md": "no match here\n",
    });
    const { risk, result } = await grep({ pattern: "needle" });
    expect(risk).toBe("read_only");
    expect(result.output.split("\n")).toEqual([
      "2 matching lines in 1 file (4 searched)", // .gitignore and src/.ignore are searched too
      "src/a.ts:1: const needle = 1;",
      "src/a.ts:3: needle again",
      "[skipped: 1 binary, 3 ignored by .gitignore/.ignore, 1 secret-like (name the path to search it)]",
    ]);
  });

  test("a secret-like path named explicitly needs approval and is searched", async () => {
    const { grep } = setup({ ".env": "TOKEN_NAME=abc\n" });
    const { risk, result } = await grep({ pattern: "TOKEN", path: ".env" });
    expect(risk).toBe("filesystem");
    expect(result.output).toContain(".env:1: TOKEN_NAME=abc");
  });

  test("context lines, case-insensitive search, glob filter and the result cap", async () => {
    const { grep } = setup({ "a.txt": "one\ntwo\nTHREE\nfour\nfive\nsix\nseven\nthree\n", "b.md": "three\n" });
    const ctxRun = await grep({ pattern: "three", case_insensitive: true, context: 1, glob: "*.txt" });
    expect(ctxRun.result.output.split("\n")).toEqual([
      "2 matching lines in 1 file (1 searched)",
      "a.txt-2- two",
      "a.txt:3: THREE",
      "a.txt-4- four",
      "--",
      "a.txt-7- seven",
      "a.txt:8: three",
    ]);
    const capped = await grep({ pattern: "e", max_results: 2 });
    expect(capped.result.output).toContain("[stopped at 2 matching lines; more may follow");
    expect(capped.result.output.split("\n").filter((l) => /^[ab]\.\w+:\d+: /.test(l)).length).toBe(2);
  });

  test("an invalid regular expression names the error position; a path outside is refused", async () => {
    const { grep } = setup({ "a.txt": "x\n" });
    const bad = await grep({ pattern: "foo(bar" });
    expect(bad.risk).toBeUndefined();
    expect(bad.result.output).toMatch(/^invalid regular expression "foo\(bar": .* at position 3 \("\("\)/);
    const rep = await grep({ pattern: "a**" });
    expect(rep.result.output).toContain("at position 2");
    expect((await grep({ pattern: "x", path: "../" })).result.output).toContain("outside the workspace");
  });

  test("no matches says so", async () => {
    const { grep } = setup({ "a.txt": "x\n" });
    expect((await grep({ pattern: "zzz" })).result.output).toBe('no matches for "zzz" in 1 file searched');
  });
});

describe("glob", () => {
  test("newest first, relative to path, honouring ignore files", async () => {
    const { glob, ws } = setup({ ".gitignore": "gen/\n", "src/old.ts": "", "src/new.ts": "", "src/x.js": "", "gen/g.ts": "", "src/deep/d.ts": "" });
    const t = Date.now() / 1000;
    fs.utimesSync(path.join(ws, "src/old.ts"), t - 100, t - 100);
    fs.utimesSync(path.join(ws, "src/deep/d.ts"), t - 50, t - 50);
    const { risk, result } = await glob({ pattern: "**/*.ts" });
    expect(risk).toBe("read_only");
    expect(result.output.split("\n")).toEqual(['3 files match "**/*.ts"', "src/new.ts", "src/deep/d.ts", "src/old.ts", "[1 entry ignored by .gitignore/.ignore]"]);
    const inSrc = await glob({ pattern: "*.ts", path: "src" });
    expect(inSrc.result.output.split("\n")).toEqual(['2 files match "*.ts"', "src/new.ts", "src/old.ts"]);
  });
});

describe("the literal a match must contain (grep's prefilter)", () => {
  const cases: [string, boolean, string | undefined][] = [
    ["zebra_[0-9]{4}", false, "zebra_"],
    ["foo|barbaz", false, undefined],
    ["(foo|bar)bazqux", false, "bazqux"],
    ["colou?r", false, "colo"],
    ["ab*cdef", false, "cdef"],
    ["a{0,2}bcd", false, "bcd"],
    ["x+yzw", false, "yzw"],
    ["\\.test\\(", false, ".test("],
    ["\\bword\\b", false, "word"],
    ["[abc]def", false, "def"],
    ["Needle", true, undefined],
    ["12345", true, "12345"],
    ["a.b", false, undefined],
  ];
  for (const [pattern, ci, want] of cases) test(`${pattern}${ci ? " (i)" : ""}`, () => expect(requiredLiteral(pattern, ci)).toBe(want));

  test("every line the full search finds, the prefiltered search finds too", async () => {
    const { grep } = setup({ "a.txt": "colour\ncolor\nfoo.test(x)\nzebra_1234\n", "b.txt": "nothing\n" });
    for (const pattern of ["colou?r", "\\.test\\(", "zebra_[0-9]{4}", "(col|zeb)"]) {
      const lines = (await grep({ pattern })).result.output.split("\n").filter((l) => /^a\.txt:/.test(l));
      const expected = "colour\ncolor\nfoo.test(x)\nzebra_1234".split("\n").filter((l) => new RegExp(pattern).test(l));
      expect(lines.map((l) => l.replace(/^a\.txt:\d+: /, ""))).toEqual(expected);
    }
  });
});
