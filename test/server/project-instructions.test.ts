// AGENTS.md (or CLAUDE.md) from the project root down to the workspace, bounded, read safely, and offered to the
// model as the project's instructions.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Harness, startHarness } from "../fake/harness";
import { text } from "../fake/model-server";
import { PROJECT_INSTRUCTIONS_MAX_BYTES, readProjectInstructions } from "../../src/server/project-instructions";

const dirs: string[] = [];
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** root (a git work tree) / app / ws */
function project() {
  const root = mkdtempSync(join(tmpdir(), "scv-agents-md-"));
  dirs.push(root);
  mkdirSync(join(root, ".git"));
  const ws = join(root, "app", "ws");
  mkdirSync(ws, { recursive: true });
  return { root, app: join(root, "app"), ws };
}

describe("readProjectInstructions", () => {
  test("root first, down to the workspace; CLAUDE.md where a directory has no AGENTS.md", () => {
    const { root, app, ws } = project();
    writeFileSync(join(root, "AGENTS.md"), "Use bun, not npm.\n");
    writeFileSync(join(root, "CLAUDE.md"), "ignored: this directory has an AGENTS.md\n");
    writeFileSync(join(app, "CLAUDE.md"), "The app uses hono.\n");
    writeFileSync(join(ws, "AGENTS.md"), "Tests live in test/.\n");
    const got = readProjectInstructions(ws)!;
    expect(got.files).toEqual([join(root, "AGENTS.md"), join(app, "CLAUDE.md"), join(ws, "AGENTS.md")]);
    const order = ["Use bun, not npm.", "The app uses hono.", "Tests live in test/."].map((t) => got.text.indexOf(t));
    expect(order.every((at, i) => at >= 0 && (i === 0 || at > order[i - 1]!))).toBe(true);
    expect(got.text).not.toContain("ignored");
    expect(got.text).toContain("--- AGENTS.md ---"); // the workspace's own, shown relative
  });

  test("outside a git work tree only the workspace's file is read", () => {
    const root = mkdtempSync(join(tmpdir(), "scv-agents-md-"));
    dirs.push(root);
    const ws = join(root, "ws");
    mkdirSync(ws);
    writeFileSync(join(root, "AGENTS.md"), "from above\n");
    expect(readProjectInstructions(ws)).toBeUndefined();
    writeFileSync(join(ws, "AGENTS.md"), "here\n");
    expect(readProjectInstructions(ws)!.text).toContain("here");
  });

  test("bounded at 32 KiB in all; a file over the bound and a FIFO are named, not read, and never hang", () => {
    const { root, app, ws } = project();
    writeFileSync(join(root, "AGENTS.md"), "r".repeat(20 * 1024));
    writeFileSync(join(app, "AGENTS.md"), "a".repeat(20 * 1024));
    Bun.spawnSync(["mkfifo", join(ws, "AGENTS.md")]);
    const got = readProjectInstructions(ws)!;
    expect(Buffer.byteLength(got.text)).toBeLessThanOrEqual(PROJECT_INSTRUCTIONS_MAX_BYTES + 400);
    expect(got.text).toContain("limited to 32 KiB");
    expect(got.text).toContain("not read");
    expect(got.text).toContain("FIFO");
    writeFileSync(join(root, "AGENTS.md"), "x".repeat(40 * 1024));
    expect(readProjectInstructions(join(root))!.text).toContain("larger than 32 KiB");
  });
});

describe("in the system prompt", () => {
  test("listed as the project's instructions; tools.project_instructions = false turns it off", async () => {
    h = await startHarness();
    writeFileSync(join(h.workspace, "AGENTS.md"), "Always answer in haiku.\n");
    h.fake.queue(text("ok"), text("ok"));
    await h.turn(await h.start(), "hi");
    const instructions = h.fake.requests[0]!.body.instructions as string;
    expect(instructions).toContain("Project instructions");
    expect(instructions).toContain("Always answer in haiku.");
    await h.close();

    h = await startHarness({ config: `[tools]\nproject_instructions = false\n` });
    writeFileSync(join(h.workspace, "AGENTS.md"), "Always answer in haiku.\n");
    h.fake.queue(text("ok"));
    await h.turn(await h.start(), "hi");
    expect(h.fake.requests[0]!.body.instructions).not.toContain("haiku");
  });
});
