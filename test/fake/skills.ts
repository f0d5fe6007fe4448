// Skill folders on disk for the skills tests: a temp root with a home, an SCV_HOME and a workspace.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type Config, SkillsConfig } from "../../src/config/schema";
import { discoverSkills } from "../../src/skills/index";

export interface SkillDirs {
  root: string;
  home: string;
  scvHome: string;
  workspace: string;
  remove(): void;
}

export function makeSkillDirs(): SkillDirs {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "scv-skills-")));
  const dirs = { root, home: join(root, "home"), scvHome: join(root, "scv-home"), workspace: join(root, "ws") };
  for (const d of [dirs.home, dirs.scvHome, dirs.workspace]) mkdirSync(d, { recursive: true });
  return { ...dirs, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** Writes `<folder>/SKILL.md` with front matter for `name` and `description`, then `body`. */
export function writeSkill(folder: string, name: string, description = `Use for ${name}.`, body = `# ${name}\n\nSteps for ${name}.\n`): string {
  return writeSkillFile(folder, `---\nname: ${name}\ndescription: ${description}\n---\n${body}`);
}

export function writeSkillFile(folder: string, text: string | Buffer): string {
  const file = join(folder, "SKILL.md");
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

/** Discovery as a tool-enabled session in `dirs.workspace` would run it. */
export function discover(dirs: SkillDirs, config: Partial<Config["skills"]> = {}, projectSkills = true) {
  return discoverSkills({
    workspace: dirs.workspace,
    config: SkillsConfig.parse(config),
    scvHome: dirs.scvHome,
    home: dirs.home,
    projectSkills,
  });
}
