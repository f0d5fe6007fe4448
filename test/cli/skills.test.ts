// `scv skills list` through the compiled binary: what a session in the current directory would see, and the
// skipped folders with why.
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeHome, removeFakeHomes, runBinary } from "../fake/binary";
import { writeSkill, writeSkillFile } from "../fake/skills";

afterEach(removeFakeHomes);

function setup(extraConfig = "") {
  const made = fakeHome("http://127.0.0.1:9/v1", extraConfig);
  mkdirSync(made.env.HOME!, { recursive: true });
  return made;
}

test("scv skills list shows user and project skills and the skipped ones with why", async () => {
  const { env, home, workspace } = setup();
  const release = writeSkill(join(env.HOME!, ".agents", "skills", "release-checks"), "release-checks", "Run the release checklist.");
  const deploy = writeSkill(join(workspace, "web", ".claude", "skills", "deploy"), "deploy", "Deploy the site.");
  writeSkillFile(join(home, "skills", "broken"), "no front matter\n");
  symlinkSync("/etc", join(env.HOME!, ".agents", "skills", "etc"));

  const r = await runBinary(["skills", "list"], env, workspace);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("user skills (the model reads them with read_skill):\n  release-checks  Run the release checklist.\n");
  expect(r.stdout).toContain(release);
  expect(r.stdout).toContain("  web:deploy  Deploy the site.\n");
  expect(r.stdout).toContain(`${deploy}  (delegate with cwd "web")`);
  expect(r.stdout).toContain(`skipped (2):\n`);
  expect(r.stdout).toContain(`${join(home, "skills", "broken")}: SKILL.md has no front matter`);
  expect(r.stdout).toContain(`${join(env.HOME!, ".agents", "skills", "etc")}: a symbolic link leading outside its skill root`);

  const j = await runBinary(["skills", "list", "--json"], env, workspace);
  expect(j.code).toBe(0);
  const out = JSON.parse(j.stdout);
  expect(out.enabled).toBe(true);
  expect(out.skills).toEqual([
    { name: "release-checks", kind: "user", description: "Run the release checklist.", path: release },
    { name: "web:deploy", kind: "project", project: "web", cwd: "web", description: "Deploy the site.", path: deploy },
  ]);
  expect(out.skipped.map((s: { path: string }) => s.path).sort()).toEqual([join(env.HOME!, ".agents", "skills", "etc"), join(home, "skills", "broken")].sort());
});

test("--cwd picks the workspace; skills.enabled = false and a bad config say so", async () => {
  const { env, workspace, home } = setup("[skills]\nenabled = false\n");
  writeSkill(join(workspace, ".agents", "skills", "x"), "x");
  const off = await runBinary(["skills", "list", "--cwd", workspace], env, "/");
  expect(off.code).toBe(0);
  expect(off.stdout).toBe("skills are turned off (skills.enabled = false)\n");

  writeFileSync(join(home, "config.toml"), "[skills]\nroots = [\"relative\"]\n");
  const bad = await runBinary(["skills", "list"], env, workspace);
  expect(bad.code).toBe(78);
  expect(bad.stderr).toContain("skills.roots.0: must be an absolute path or start with ~/");

  const missing = await runBinary(["skills", "list", "--cwd", join(workspace, "nope")], env, workspace);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain("is not an existing directory");
});
