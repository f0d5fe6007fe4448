import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { storedWorkspace } from "../../src/sessions/workspace";

const root = realpathSync(mkdtempSync(join(tmpdir(), "scv-workspace-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));

test("a directory reached through a link is looked up under its real path; a gone one as given", () => {
  mkdirSync(join(root, "real"));
  symlinkSync(join(root, "real"), join(root, "link"));
  expect(storedWorkspace(join(root, "link"))).toBe(join(root, "real"));
  expect(storedWorkspace(join(root, "gone"))).toBe(join(root, "gone"));
});
