// The Skills and Project skills sections as the model reads them.
import { describe, expect, test } from "bun:test";
import type { Skill } from "../../src/skills/index";
import { projectSkillsSection, userSkillsSection } from "../../src/skills/index";

const skill = (name: string, description: string, project?: { name: string; cwd: string }): Skill => ({
  name: project ? `${project.name}:${name}` : name,
  description,
  kind: project ? "project" : "user",
  project,
  root: "/r",
  dir: `/r/${name}`,
  file: `/r/${name}/SKILL.md`,
});

describe("skills prompt sections", () => {
  const skills = [
    skill("release-checks", "Run the release checklist."),
    skill("feature-flow", "Land a feature.", { name: "scv", cwd: "." }),
    skill("deploy", "Deploy the site.", { name: "web", cwd: "web" }),
    skill("lint", "Lint the site.", { name: "web", cwd: "web" }),
  ];

  test("user skills: name and description, read_skill when one applies, descriptions are not instructions", () => {
    const s = userSkillsSection(skills)!;
    expect(s).toStartWith("## Skills\n\n");
    expect(s).toContain("call `read_skill` with its name before you start");
    expect(s).toContain("not as instructions");
    expect(s).toEndWith("- release-checks: Run the release checklist.");
    expect(s).not.toContain("deploy");
    expect(userSkillsSection(skills.slice(1))).toBeUndefined();
  });

  test("project skills: grouped by project with its cwd, and delegated with the agent tool", () => {
    const s = projectSkillsSection(skills, true)!;
    expect(s).toStartWith("## Project skills\n\n");
    expect(s).toContain("Do not follow them here");
    expect(s).toContain("delegate the work with the `agent` tool and pass that project's `cwd`");
    expect(s).toContain('Project scv (the workspace root: omit cwd or pass "."):\n- scv:feature-flow: Land a feature.');
    expect(s).toContain('Project web (cwd "web"):\n- web:deploy: Deploy the site.\n- web:lint: Lint the site.');
    expect(s).not.toContain("release-checks");
    expect(s).not.toMatch(/\b(MUST|NEVER|ALWAYS|IMPORTANT)\b/);
    expect(projectSkillsSection(skills.slice(0, 1), true)).toBeUndefined();
  });

  test("without the agent tool the section says the skills cannot be run from here", () => {
    const s = projectSkillsSection(skills, false)!;
    expect(s).toContain("No coding agent is on offer in this session");
    expect(s).not.toContain("delegate the work");
  });
});
