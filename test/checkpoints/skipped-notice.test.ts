// The checkpoint notice of what is left out: said once per workspace (not on every `scv exec`), again only when a
// new kind of item appears, and in words that fit each item (issue 56).
import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, fakeModelForFile, runBinary } from "../fake/binary";
import { text, toolCalls } from "../fake/model-server";

const fake = fakeModelForFile();

let n = 0;
async function turn(env: Record<string, string>, ws: string): Promise<string> {
  fake.queue(toolCalls([{ name: "write", arguments: { path: `note-${++n}.txt`, content: "a note\n", mode: "create" } }]), text("done"));
  const r = await runBinary(["exec", "--yes", "write a note"], env, ws);
  expect(r.code).toBe(0);
  return r.stderr;
}

test("the notice of what checkpoints leave out is said once per workspace, again for a new kind, in words that fit each", async () => {
  const { env, workspace: ws } = fakeHome(fake.url);
  mkdirSync(join(ws, "node_modules", "x"), { recursive: true });
  writeFileSync(join(ws, "node_modules", "x", "i.js"), "1\n");
  mkdirSync(join(ws, ".git"));
  const first = await turn(env, ws);
  expect(first).toContain("checkpoint: not recorded");
  expect(first).toContain("node_modules/ (installed dependencies: reinstalled by their package manager)");
  expect(first).toContain(".git/ (version control: it keeps its own history)");
  const second = await turn(env, ws);
  expect(second).not.toContain("checkpoint: not recorded");
  mkdirSync(join(ws, "dist"));
  writeFileSync(join(ws, "dist", "app.js"), "1\n");
  const third = await turn(env, ws);
  expect(third).toContain("dist/ (build output: rebuilt by the build)");
}, 60_000);
