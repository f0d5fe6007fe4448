// ignoredInWorkspace: what the ignore files exclude, read from the workspace root down to one path, as the
// checkpoint walk would meet it (the auto-mode loss check asks this of a single named file).
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ignoredInWorkspace } from "../../src/fs/workspace-walk";

const ws = mkdtempSync(join(tmpdir(), "scv-walk-ignored-"));
afterAll(() => rmSync(ws, { recursive: true, force: true }));

test("a path is ignored by its own rule, a folder above it, a nested ignore file; a later `!` rule brings it back", () => {
  mkdirSync(join(ws, "pkg", "gen"), { recursive: true });
  mkdirSync(join(ws, "cache"), { recursive: true });
  writeFileSync(join(ws, ".gitignore"), "*.log\ncache/\n!keep.log\n");
  writeFileSync(join(ws, "pkg", ".ignore"), "gen/\n");
  const table: [string, boolean, boolean][] = [
    ["app.log", false, true],
    ["keep.log", false, false],
    ["src/deep/x.log", false, true],
    ["cache", true, true],
    ["cache/a.txt", false, true],
    ["cache", false, false], // a file named like the folder rule is not a folder
    ["pkg/gen/out.js", false, true],
    ["gen/out.js", false, false], // pkg/.ignore applies only below pkg
    ["pkg/main.js", false, false],
    ["notes.txt", false, false],
  ];
  expect(table.map(([rel, dir]) => [rel, dir, ignoredInWorkspace(ws, rel, dir)])).toEqual(table);
});
