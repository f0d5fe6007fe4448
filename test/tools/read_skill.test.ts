// read_skill against real skill folders: names only from the session's map, containment checked again at read
// time, and SKILL.md bounded by skills.max_skill_bytes (cut on a character boundary, with a note).
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildTools, promptSections } from "../../src/tools/index";
import { createReadSkillTool } from "../../src/tools/read_skill";
import type { Tool } from "../../src/tools/tool";
import { type ConfigOverrides, invokeTool, makeCallContext, makeScope } from "../fake/scope";
import { makeSkillDirs, type SkillDirs, writeSkill, writeSkillFile } from "../fake/skills";

let dirs: SkillDirs;
afterEach(() => dirs?.remove());

function session(config: ConfigOverrides = {}, outputLimitBytes?: number) {
  const scope = makeScope({ workspace: dirs.workspace, env: { HOME: dirs.home, SCV_HOME: dirs.scvHome }, config });
  const ctx = makeCallContext(scope, { outputLimitBytes });
  const tool = createReadSkillTool(scope);
  return { scope, ctx, tool, call: (args: unknown) => invokeTool(tool as Tool, args, ctx) };
}

describe("read_skill", () => {
  test("returns a user skill's SKILL.md by plain name, read_only, with its path", async () => {
    dirs = makeSkillDirs();
    const file = writeSkill(join(dirs.home, ".agents", "skills", "release-checks"), "release-checks", "Release.", "1. Run the tests.\n");
    const { call } = session();
    const { risk, summary, result } = await call({ name: "release-checks" });
    expect(risk).toBe("read_only");
    expect(summary).toBe("read skill release-checks");
    expect(result.ok).toBe(true);
    expect(result.output).toBe(`[skill release-checks: ${file}]\n---\nname: release-checks\ndescription: Release.\n---\n1. Run the tests.\n`);
    expect(result.event).toEqual({ skill: "release-checks", truncated: false });
  });

  test("accepts only names from the map: no paths, no unknown names, no project skill by its plain name", async () => {
    dirs = makeSkillDirs();
    writeSkill(join(dirs.home, ".agents", "skills", "mine"), "mine");
    writeSkill(join(dirs.workspace, "web", ".claude", "skills", "deploy"), "deploy", "Deploy web.", "deploy steps\n");
    const { call } = session();
    const plain = await call({ name: "deploy" });
    expect(plain.result.ok).toBe(false);
    expect(plain.risk).toBeUndefined(); // refused at assessment, before approval or any read
    expect(plain.result.output).toContain('no skill is named "deploy"; project skills take their project prefix: web:deploy');
    for (const name of ["/etc/passwd", "../../etc/passwd", "web/.claude/skills/deploy/SKILL.md", "nope"]) {
      const r = await call({ name });
      expect(r.result.ok).toBe(false);
      expect(r.result.output).toContain("not a path");
    }
    expect((await call({ path: "SKILL.md" })).result.output).toContain("invalid arguments");
    const prefixed = await call({ name: "web:deploy" });
    expect(prefixed.result.ok).toBe(true);
    expect(prefixed.result.output).toEndWith("deploy steps\n");
  });

  test("SKILL.md is cut at skills.max_skill_bytes on a character boundary, with a note", async () => {
    dirs = makeSkillDirs();
    const head = "---\nname: big\ndescription: Big.\n---\n";
    // 1024 bytes land inside a 3-byte character: the cut goes back to the character's start.
    const body = "x".repeat(1024 - Buffer.byteLength(head) - 1) + "€".repeat(2000);
    writeSkillFile(join(dirs.scvHome, "skills", "big"), head + body);
    const { call } = session({ skills: { max_skill_bytes: 1024 } });
    const { result } = await call({ name: "big" });
    expect(result.ok).toBe(true);
    expect(result.event).toEqual({ skill: "big", truncated: true });
    const [header, ...rest] = result.output.split("\n");
    expect(header).toStartWith("[skill big: ");
    const content = rest.join("\n");
    expect(content).toEndWith("\n[SKILL.md cut at 1024 bytes (skills.max_skill_bytes); the rest is not shown]");
    const text = content.slice(0, content.lastIndexOf("\n[SKILL.md cut"));
    expect(text).toBe(head + "x".repeat(1024 - Buffer.byteLength(head) - 1));
    expect(text).not.toContain("\uFFFD");
  });

  test("a skill larger than the tool output limit is cut to fit it, and says which limit applied", async () => {
    dirs = makeSkillDirs();
    writeSkill(join(dirs.scvHome, "skills", "long"), "long", "Long.", "y".repeat(10_000));
    const { call } = session({}, 2048);
    const { result } = await call({ name: "long" });
    expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(2048);
    expect(result.output).toMatch(/\n\[SKILL\.md cut at \d+ bytes \(to fit tools\.output_limit_bytes\); the rest is not shown\]$/);
    expect(result.output).not.toContain("[output truncated");
  });

  test("a skill folder swapped for a symlink after discovery is refused", async () => {
    dirs = makeSkillDirs();
    const folder = join(dirs.home, ".agents", "skills", "swap");
    writeSkill(folder, "swap", "Swap.", "the real one\n");
    writeSkill(join(dirs.root, "outside", "swap"), "swap", "Swap.", "SECRET outside text\n");
    const { call } = session();
    expect((await call({ name: "swap" })).result.output).toContain("the real one");
    rmSync(folder, { recursive: true });
    symlinkSync(join(dirs.root, "outside", "swap"), folder);
    const { result } = await call({ name: "swap" });
    expect(result.ok).toBe(false);
    expect(result.output).toContain("changed after the session started");
    expect(result.output).not.toContain("SECRET");
  });

  test("a project skill whose root is swapped for a symlink out of the workspace is refused", async () => {
    dirs = makeSkillDirs();
    const skillsDir = join(dirs.workspace, "web", ".agents", "skills");
    writeSkill(join(skillsDir, "deploy"), "deploy", "Deploy.", "inside\n");
    writeSkill(join(dirs.root, "outside", "deploy"), "deploy", "Deploy.", "SECRET outside text\n");
    const { call } = session();
    renameSync(skillsDir, join(dirs.workspace, "web", ".agents", "moved"));
    symlinkSync(join(dirs.root, "outside"), skillsDir);
    const { result } = await call({ name: "web:deploy" });
    expect(result.ok).toBe(false);
    expect(result.output).toContain("changed after the session started");
    expect(result.output).not.toContain("SECRET");
  });

  test("a SKILL.md swapped for a symlink after discovery is refused, a removed skill says it is gone", async () => {
    dirs = makeSkillDirs();
    const folder = join(dirs.scvHome, "skills", "file-swap");
    writeSkill(folder, "file-swap");
    writeSkill(join(dirs.scvHome, "skills", "removed"), "removed");
    const secret = writeSkillFile(join(dirs.root, "outside"), "SECRET\n");
    const { call } = session();
    rmSync(join(folder, "SKILL.md"));
    symlinkSync(secret, join(folder, "SKILL.md"));
    const swapped = await call({ name: "file-swap" });
    expect(swapped.result.ok).toBe(false);
    expect(swapped.result.output).toContain("symbolic link");
    expect(swapped.result.output).not.toContain("SECRET");
    rmSync(join(dirs.scvHome, "skills", "removed"), { recursive: true });
    expect((await call({ name: "removed" })).result.output).toContain("skill removed is gone");
  });
});

describe("the session's tool list and system prompt", () => {
  test("skills are listed by name and description; project skills separately, with their cwd", () => {
    dirs = makeSkillDirs();
    writeSkill(join(dirs.home, ".agents", "skills", "release-checks"), "release-checks", "Run the release checklist.");
    writeSkill(join(dirs.workspace, ".agents", "skills", "feature-flow"), "feature-flow", "Land a feature.");
    writeSkill(join(dirs.workspace, "web", ".claude", "skills", "deploy"), "deploy", "Deploy the site.");
    const scope = makeScope({ workspace: dirs.workspace, env: { HOME: dirs.home, SCV_HOME: dirs.scvHome, PATH: "/nonexistent" } });
    const tools = buildTools(scope, { enabled: true });
    expect(tools.get("read_skill")).toBeDefined();
    const text = promptSections(scope, tools).join("\n\n");
    const skills = text.slice(text.indexOf("## Skills"), text.indexOf("## Project skills"));
    expect(skills).toContain("call `read_skill` with its name");
    expect(skills).toContain("- release-checks: Run the release checklist.");
    expect(skills).not.toContain("deploy");
    const project = text.slice(text.indexOf("## Project skills"));
    expect(project).toContain('Project ws (the workspace root: omit cwd or pass "."):\n- ws:feature-flow: Land a feature.');
    expect(project).toContain('Project web (cwd "web"):\n- web:deploy: Deploy the site.');
    // No agent is installed on this PATH, so there is nothing to delegate to and the text says so.
    expect(tools.get("agent")).toBeUndefined();
    expect(project).toContain("No coding agent is on offer");
  });

  test("a tool-free session gets no skills and no read_skill", () => {
    dirs = makeSkillDirs();
    writeSkill(join(dirs.home, ".agents", "skills", "mine"), "mine");
    const scope = makeScope({ workspace: dirs.workspace, env: { HOME: dirs.home, SCV_HOME: dirs.scvHome } });
    const tools = buildTools(scope, { enabled: false });
    expect(tools.list()).toEqual([]);
    expect(promptSections(scope, tools).join("")).not.toContain("Skills");
    expect(scope.services.skills).toBeUndefined(); // discovery never ran
  });

  test("no skills, or skills turned off: no read_skill and no sections", () => {
    dirs = makeSkillDirs();
    let scope = makeScope({ workspace: dirs.workspace, env: { HOME: dirs.home, SCV_HOME: dirs.scvHome } });
    expect(buildTools(scope, { enabled: true }).get("read_skill")).toBeUndefined();
    mkdirSync(join(dirs.home, ".agents", "skills"), { recursive: true });
    writeSkill(join(dirs.home, ".agents", "skills", "mine"), "mine");
    scope = makeScope({ workspace: dirs.workspace, env: { HOME: dirs.home, SCV_HOME: dirs.scvHome }, config: { skills: { enabled: false } } });
    const tools = buildTools(scope, { enabled: true });
    expect(tools.get("read_skill")).toBeUndefined();
    expect(promptSections(scope, tools).join("")).not.toContain("Skills");
  });

  test("with `file`, reads a file the skill's folder holds (a referenced script), contained in that folder", async () => {
    dirs = makeSkillDirs();
    const folder = join(dirs.home, ".agents", "skills", "release-checks");
    writeSkill(folder, "release-checks", "Release.", "Run scripts/check.sh, then read reference/notes.md.\n");
    mkdirSync(join(folder, "scripts"), { recursive: true });
    writeFileSync(join(folder, "scripts", "check.sh"), "#!/bin/sh\necho checking\n");
    writeFileSync(join(dirs.root, "outside.txt"), "OUTSIDE SECRET\n");
    symlinkSync(join(dirs.root, "outside.txt"), join(folder, "link.txt"));
    symlinkSync(dirs.root, join(folder, "up"));
    writeFileSync(join(folder, "blob.bin"), Buffer.from([1, 0, 2, 3]));
    const { call } = session();
    const script = await call({ name: "release-checks", file: "scripts/check.sh" });
    expect(script.risk).toBe("read_only");
    expect(script.summary).toBe("read scripts/check.sh of skill release-checks");
    expect(script.result.ok).toBe(true);
    expect(script.result.output).toBe("[skill release-checks: scripts/check.sh]\n#!/bin/sh\necho checking\n");
    expect(script.result.event).toEqual({ skill: "release-checks", file: "scripts/check.sh", truncated: false });
    const refused: Array<[string, string]> = [
      ["../../outside.txt", 'climbs out of the skill\'s folder with ".."'],
      ["scripts/../../x", 'climbs out of the skill\'s folder with ".."'],
      [join(dirs.root, "outside.txt"), "not an absolute path"],
      ["~/x", "not an absolute path"],
      ["link.txt", "symbolic link"],
      ["up/outside.txt", "outside"],
      ["missing.md", "missing.md"],
      ["blob.bin", "binary file"],
      ["scripts", "not a regular file"],
    ];
    for (const [file, why] of refused) {
      const r = await call({ name: "release-checks", file });
      expect(r.result.ok).toBe(false);
      expect(r.result.output).toContain(why);
      expect(r.result.output).not.toContain("OUTSIDE SECRET");
    }
  });
});
