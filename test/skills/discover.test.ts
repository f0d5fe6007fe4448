// Skill discovery on real folders: user roots by plain name, project skills under <project>:<name>, and every
// folder that is not a usable skill skipped with a reason.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { discover, makeSkillDirs, type SkillDirs, writeSkill, writeSkillFile } from "../fake/skills";

let dirs: SkillDirs;
const mkfifoSync = (path: string) => expect(Bun.spawnSync(["mkfifo", path]).exitCode).toBe(0);
afterEach(() => dirs?.remove());

const reasonFor = (catalog: ReturnType<typeof discover>, path: string) => catalog.skipped.find((s) => s.path === path)?.reason;

describe("user skills", () => {
  test("$SCV_HOME/skills, ~/.agents/skills and skills.roots map plain names to canonical SKILL.md paths", () => {
    dirs = makeSkillDirs();
    writeSkill(join(dirs.scvHome, "skills", "release-checks"), "release-checks", ">\n  Run the release\n  checklist before tagging.");
    writeSkill(join(dirs.home, ".agents", "skills", "triage"), "triage");
    writeSkill(join(dirs.home, "extra-skills", "notes"), "notes");
    writeSkill(join(dirs.root, "abs-skills", "standup"), "standup");
    const catalog = discover(dirs, { roots: ["~/extra-skills", join(dirs.root, "abs-skills")] });
    expect(catalog.skills.map((s) => s.name)).toEqual(["release-checks", "triage", "notes", "standup"]);
    const release = catalog.byName.get("release-checks")!;
    expect(release).toMatchObject({
      kind: "user",
      description: "Run the release checklist before tagging.",
      dir: join(dirs.scvHome, "skills", "release-checks"),
      file: join(dirs.scvHome, "skills", "release-checks", "SKILL.md"),
      root: join(dirs.scvHome, "skills"),
    });
    expect(catalog.skipped).toEqual([]);
  });

  test("a session in the home directory finds ~/.agents/skills once, as user skills, with nothing skipped", () => {
    dirs = makeSkillDirs();
    writeSkill(join(dirs.home, ".agents", "skills", "triage"), "triage");
    const catalog = discover({ ...dirs, workspace: dirs.home });
    expect(catalog.skills.map((s) => [s.name, s.kind])).toEqual([["triage", "user"]]);
    expect(catalog.skipped).toEqual([]);
  });

  test("duplicate names: the first root wins and the diagnostic names both files", () => {
    dirs = makeSkillDirs();
    const first = writeSkill(join(dirs.scvHome, "skills", "deploy"), "deploy", "the SCV home one");
    const second = writeSkill(join(dirs.home, ".agents", "skills", "ship"), "deploy", "the agents one");
    const catalog = discover(dirs);
    expect(catalog.skills).toHaveLength(1);
    expect(catalog.byName.get("deploy")!.description).toBe("the SCV home one");
    const reason = reasonFor(catalog, join(dirs.home, ".agents", "skills", "ship"))!;
    expect(reason).toContain('duplicate skill name "deploy"');
    expect(reason).toContain(first);
    expect(reason).toContain(second);
  });

  test("invalid or missing front matter, stray files and folders without SKILL.md are skipped with why", () => {
    dirs = makeSkillDirs();
    const root = join(dirs.home, ".agents", "skills");
    writeSkill(join(root, "good"), "good");
    const cases: [string, string | Buffer, string][] = [
      ["no-front-matter", "# just a title\n", "has no front matter"],
      ["unclosed", "---\nname: unclosed\ndescription: never closed\n", "not closed by a line `---`"],
      ["bad-yaml", "---\nname: [unclosed\ndescription: x\n---\n", "not valid YAML"],
      ["no-name", "---\ndescription: nameless\n---\n", "has no `name`"],
      ["numeric-name", "---\nname: 42\ndescription: x\n---\n", "`name` must be text"],
      ["not-slug", "---\nname: Release Checks\ndescription: x\n---\n", "is not a slug"],
      ["long-name", `---\nname: ${"a".repeat(65)}\ndescription: x\n---\n`, "the most is 64"],
      ["no-description", "---\nname: no-description\n---\n", "has no `description`"],
      ["empty-description", "---\nname: empty-description\ndescription: '   '\n---\n", "`description` is empty"],
      ["long-description", `---\nname: long-description\ndescription: ${"d".repeat(1025)}\n---\n`, "the most is 1024"],
      ["control-description", '---\nname: control-description\ndescription: "bell\\u0007here"\n---\n', "control characters"],
      ["list", "---\n- name\n- description\n---\n", "not a list of `key: value` lines"],
      ["late-close", `---\nname: late-close\ndescription: x\n${"# pad\n".repeat(3000)}---\n`, "within the first 16384 bytes"],
    ];
    for (const [folder, text] of cases) writeSkillFile(join(root, folder), text);
    mkdirSync(join(root, "empty-folder"));
    writeFileSync(join(root, "README.md"), "not a skill\n");
    const catalog = discover(dirs);
    expect(catalog.skills.map((s) => s.name)).toEqual(["good"]);
    for (const [folder, , why] of cases) expect(reasonFor(catalog, join(root, folder))).toContain(why);
    expect(reasonFor(catalog, join(root, "empty-folder"))).toContain("has no SKILL.md");
    expect(reasonFor(catalog, join(root, "README.md"))).toContain("not a folder");
    expect(catalog.skipped).toHaveLength(cases.length + 2);
  });

  test("a description on several lines is folded onto one; other front matter keys are ignored", () => {
    dirs = makeSkillDirs();
    writeSkillFile(
      join(dirs.scvHome, "skills", "multi"),
      "---\nname: multi\ndescription: |\n  First line.\n  ## Not a heading\nallowed-tools: [Bash]\nmetadata:\n  owner: me\n---\nbody\n",
    );
    expect(discover(dirs).byName.get("multi")!.description).toBe("First line. ## Not a heading");
  });

  test("a byte order mark and CRLF line endings are accepted", () => {
    dirs = makeSkillDirs();
    writeSkillFile(join(dirs.scvHome, "skills", "crlf"), "\uFEFF---\r\nname: crlf\r\ndescription: Windows\r\n  line endings.\r\n---\r\nbody\r\n");
    expect(discover(dirs).byName.get("crlf")!.description).toBe("Windows line endings.");
  });

  test("at most skills.max_skills are discovered; the rest are named as not read", () => {
    dirs = makeSkillDirs();
    for (const n of ["a", "b", "c", "d", "e"]) writeSkill(join(dirs.scvHome, "skills", n), n);
    writeSkill(join(dirs.workspace, ".agents", "skills", "f"), "f");
    const catalog = discover(dirs, { max_skills: 3 });
    expect(catalog.skills.map((s) => s.name)).toEqual(["a", "b", "c"]);
    for (const p of [join(dirs.scvHome, "skills", "d"), join(dirs.scvHome, "skills", "e"), join(dirs.workspace, ".agents", "skills", "f")]) {
      expect(reasonFor(catalog, p)).toContain("skills.max_skills (3)");
    }
    expect(discover(dirs, { max_skills: 0 }).skills).toEqual([]);
  });

  test("a skill folder that is a symlink leading outside its root is skipped; one inside it is followed", () => {
    dirs = makeSkillDirs();
    const root = join(dirs.scvHome, "skills");
    writeSkill(join(dirs.root, "elsewhere", "outside"), "outside");
    writeSkill(join(root, "real"), "real");
    symlinkSync(join(dirs.root, "elsewhere", "outside"), join(root, "outside"));
    symlinkSync("real", join(root, "alias"));
    symlinkSync(join(dirs.root, "missing"), join(root, "dangling"));
    const catalog = discover(dirs);
    expect(catalog.byName.has("outside")).toBe(false);
    expect(reasonFor(catalog, join(root, "outside"))).toContain("symbolic link leading outside its skill root");
    expect(reasonFor(catalog, join(root, "dangling"))).toContain("target does not exist");
    // The alias resolves to the same folder: found once, canonical path is the real folder.
    expect(catalog.byName.get("real")!.dir).toBe(join(root, "real"));
    expect(reasonFor(catalog, join(root, "real"))).toContain(`the same folder as skill "real" (${join(root, "real")})`);
  });

  test("a SKILL.md that is a symlink or a FIFO is skipped without following or hanging", () => {
    dirs = makeSkillDirs();
    const root = join(dirs.scvHome, "skills");
    const target = writeSkill(join(dirs.root, "target"), "linked");
    mkdirSync(join(root, "linked"), { recursive: true });
    symlinkSync(target, join(root, "linked", "SKILL.md"));
    mkdirSync(join(root, "fifo"));
    mkfifoSync(join(root, "fifo", "SKILL.md"));
    const catalog = discover(dirs);
    expect(catalog.skills).toEqual([]);
    expect(reasonFor(catalog, join(root, "linked"))).toContain("symbolic link");
    expect(reasonFor(catalog, join(root, "fifo"))).toContain("FIFO");
  });

  test("skills.enabled = false discovers nothing", () => {
    dirs = makeSkillDirs();
    writeSkill(join(dirs.scvHome, "skills", "a"), "a");
    writeSkill(join(dirs.workspace, ".agents", "skills", "b"), "b");
    expect(discover(dirs, { enabled: false })).toMatchObject({ skills: [], skipped: [] });
  });
});

describe("project skills", () => {
  test("the workspace's and its child projects' skills are named <project>:<name>, never by plain name", () => {
    dirs = makeSkillDirs();
    writeSkill(join(dirs.workspace, ".agents", "skills", "feature-flow"), "feature-flow");
    writeSkill(join(dirs.workspace, ".claude", "skills", "review"), "review");
    writeSkill(join(dirs.workspace, "web", ".claude", "skills", "deploy"), "deploy");
    writeSkill(join(dirs.workspace, "api", ".agents", "skills", "deploy"), "deploy");
    writeSkill(join(dirs.workspace, "api", "sub", ".agents", "skills", "too-deep"), "too-deep");
    writeSkill(join(dirs.workspace, ".hidden", ".agents", "skills", "hidden"), "hidden");
    const catalog = discover(dirs);
    expect(catalog.skills.map((s) => s.name)).toEqual(["ws:feature-flow", "ws:review", "api:deploy", "web:deploy"]);
    expect(catalog.byName.get("web:deploy")).toMatchObject({ kind: "project", project: { name: "web", cwd: "web" } });
    expect(catalog.byName.get("ws:review")).toMatchObject({ project: { name: "ws", cwd: "." }, root: join(dirs.workspace, ".claude", "skills") });
    for (const plain of ["deploy", "feature-flow", "review", "too-deep", "hidden"]) expect(catalog.byName.has(plain)).toBe(false);
  });

  test("user and project skills with the same plain name live side by side", () => {
    dirs = makeSkillDirs();
    writeSkill(join(dirs.home, ".agents", "skills", "deploy"), "deploy", "mine");
    writeSkill(join(dirs.workspace, "web", ".agents", "skills", "deploy"), "deploy", "the project's");
    const catalog = discover(dirs);
    expect(catalog.byName.get("deploy")).toMatchObject({ kind: "user", description: "mine" });
    expect(catalog.byName.get("web:deploy")).toMatchObject({ kind: "project", description: "the project's" });
  });

  test("sessions without project skills see only the user's", () => {
    dirs = makeSkillDirs();
    writeSkill(join(dirs.home, ".agents", "skills", "mine"), "mine");
    writeSkill(join(dirs.workspace, ".agents", "skills", "theirs"), "theirs");
    expect(discover(dirs, {}, false).skills.map((s) => s.name)).toEqual(["mine"]);
  });

  test("project skill roots and child projects that lead outside the workspace are not used", () => {
    dirs = makeSkillDirs();
    const outside = join(dirs.root, "outside");
    writeSkill(join(outside, ".agents", "skills", "x"), "x");
    writeSkill(join(outside, "skills", "y"), "y");
    symlinkSync(outside, join(dirs.workspace, "linked-project"));
    mkdirSync(join(dirs.workspace, ".claude"), { recursive: true });
    symlinkSync(join(outside, "skills"), join(dirs.workspace, ".claude", "skills"));
    const catalog = discover(dirs);
    expect(catalog.skills).toEqual([]);
    expect(reasonFor(catalog, join(dirs.workspace, ".claude", "skills"))).toContain("leading outside the workspace");
  });

  test("a project whose name has a colon or a line break cannot name skills and says so", () => {
    dirs = makeSkillDirs();
    writeSkill(join(dirs.workspace, "a:b", ".agents", "skills", "x"), "x");
    const catalog = discover(dirs);
    expect(catalog.skills).toEqual([]);
    expect(reasonFor(catalog, join(dirs.workspace, "a:b"))).toContain("rename the directory");
    const odd = join(dirs.root, "odd\n## Injected");
    writeSkill(join(odd, ".agents", "skills", "y"), "y");
    const own = discover({ ...dirs, workspace: odd });
    expect(own.skills).toEqual([]);
    expect(reasonFor(own, odd)).toContain("cannot name skills");
  });
});

test("discovery never blocks on a FIFO named like a skill root", () => {
  dirs = makeSkillDirs();
  mkdirSync(join(dirs.workspace, ".agents"));
  mkfifoSync(join(dirs.workspace, ".agents", "skills"));
  const catalog = discover(dirs);
  expect(reasonFor(catalog, join(dirs.workspace, ".agents", "skills"))).toContain("not a directory");
});
