// Finding skills at session start: user skill roots by plain name, and the workspace's and its child projects'
// `.agents/skills` and `.claude/skills` under `<project>:<name>`. The result is a name → canonical path map;
// nothing here throws, every folder that is not a usable skill becomes a diagnostic saying why.
import { lstatSync, opendirSync, realpathSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import type { Config } from "../config/schema";
import { isInside, KiB, readBoundedPrefix, SafeReadError } from "../fs/safe-read";
import { parseFrontMatter } from "./front-matter";

/** The most of SKILL.md discovery reads: the front matter must close within it. */
export const FRONT_MATTER_BYTES = 16 * KiB;
/** The most entries read from one directory (a skill root, or the workspace when looking for child projects). */
export const MAX_DIRECTORY_ENTRIES = 4096;
const PROJECT_SKILL_DIRS = [".agents/skills", ".claude/skills"];
const MAX_PROJECT_NAME_CHARS = 128;

/** A project in the workspace: its name in skill names, and the `cwd` that delegates to it. */
export interface SkillProject {
  name: string;
  /** "." for the workspace root, else the child directory's name. */
  cwd: string;
}

export interface Skill {
  /** What `read_skill` takes: the plain name for a user skill, `<project>:<name>` for a project skill. */
  name: string;
  description: string;
  kind: "user" | "project";
  project?: SkillProject;
  /** The real path of the root the skill was found under, at discovery. */
  root: string;
  /** The skill folder's real path at discovery. */
  dir: string;
  /** `dir/SKILL.md`. */
  file: string;
}

export interface SkippedSkill {
  path: string;
  reason: string;
}

export interface SkillCatalog {
  skills: Skill[];
  skipped: SkippedSkill[];
  byName: ReadonlyMap<string, Skill>;
}

export interface DiscoverOptions {
  /** The workspace root's real path. */
  workspace: string;
  config: Config["skills"];
  scvHome: string;
  /** The user's home directory (for `~/.agents/skills` and `~/` in skills.roots). */
  home: string;
  /** Map the workspace's project skills too (tool-enabled sessions). */
  projectSkills: boolean;
}

interface Root {
  /** The path as configured or found (diagnostics name this). */
  path: string;
  kind: Skill["kind"];
  project?: SkillProject;
}

export function discoverSkills(opts: DiscoverOptions): SkillCatalog {
  const skills: Skill[] = [];
  const skipped: SkippedSkill[] = [];
  const byName = new Map<string, Skill>();
  const seenRoots = new Set<string>();
  if (!opts.config.enabled) return { skills, skipped, byName };
  const skip = (path: string, reason: string) => void skipped.push({ path, reason });

  const roots = userRoots(opts);
  if (opts.projectSkills) roots.push(...projectRoots(opts.workspace, skip));
  for (const root of roots) {
    const realRoot = resolveRoot(root, opts.workspace, skip);
    if (!realRoot || seenRoots.has(realRoot)) continue;
    seenRoots.add(realRoot);
    for (const entry of listDirectory(realRoot, root.path, skip)) {
      const folder = join(root.path, entry);
      if (skills.length >= opts.config.max_skills) {
        skip(folder, `not read: this session already has skills.max_skills (${opts.config.max_skills}) skills; raise skills.max_skills to see more`);
        continue;
      }
      const found = readSkillFolder(folder, join(realRoot, entry), realRoot, root, skip);
      if (!found) continue;
      const first = byName.get(found.name);
      if (first?.dir === found.dir) {
        skip(folder, `the same folder as skill "${first.name}" (${first.dir}), found already through another path`);
        continue;
      }
      if (first) {
        skip(folder, `duplicate skill name "${found.name}": ${found.file} is skipped, ${first.file} (found first) is used`);
        continue;
      }
      byName.set(found.name, found);
      skills.push(found);
    }
  }
  return { skills, skipped, byName };
}

/** `$SCV_HOME/skills`, `~/.agents/skills`, then `skills.roots` in order: the first root to name a skill wins. */
function userRoots(opts: DiscoverOptions): Root[] {
  const paths = [join(opts.scvHome, "skills"), join(opts.home, ".agents", "skills")];
  for (const r of opts.config.roots) paths.push(r.startsWith("~/") ? join(opts.home, r.slice(2)) : r);
  return paths.map((path) => ({ path, kind: "user" }));
}

/** The workspace's own skill folders, then each child project's, one level down, in name order. */
function projectRoots(workspace: string, skip: (path: string, reason: string) => void): Root[] {
  const roots: Root[] = [];
  const add = (dir: string, project: SkillProject) => {
    if (project.name.length > MAX_PROJECT_NAME_CHARS || /[\p{Cc}:]/u.test(project.name)) {
      skip(dir, `the project name ${JSON.stringify(project.name)} cannot name skills: it has a colon or control characters, or is longer than ${MAX_PROJECT_NAME_CHARS} characters; rename the directory`);
      return;
    }
    for (const sub of PROJECT_SKILL_DIRS) roots.push({ path: join(dir, sub), kind: "project", project });
  };
  const hasSkillDirs = (dir: string) => PROJECT_SKILL_DIRS.some((sub) => exists(join(dir, sub)));
  if (hasSkillDirs(workspace)) add(workspace, { name: basename(workspace) || "workspace", cwd: "." });
  for (const child of listDirectory(workspace, workspace, skip)) {
    const dir = join(workspace, child);
    if (hasSkillDirs(dir) && isProjectDirectory(dir, workspace)) add(dir, { name: child, cwd: child });
  }
  return roots;
}

/** A child that is a directory whose real path stays in the workspace (a symlink out of it is not a project of it). */
function isProjectDirectory(dir: string, workspace: string): boolean {
  try {
    return statSync(dir).isDirectory() && isInside(workspace, realpathSync(dir));
  } catch {
    return false;
  }
}

/** The root's real path, or undefined when it is missing (quietly) or unusable (with a diagnostic). */
function resolveRoot(root: Root, workspace: string, skip: (path: string, reason: string) => void): string | undefined {
  if (!exists(root.path)) return undefined;
  let real: string;
  try {
    real = realpathSync(root.path);
    if (!statSync(real).isDirectory()) {
      skip(root.path, "this skill root is not a directory");
      return undefined;
    }
  } catch (e) {
    skip(root.path, `this skill root cannot be read: ${errorCode(e)}`);
    return undefined;
  }
  if (root.kind === "project" && !isInside(workspace, real)) {
    skip(root.path, `this project skill root is a symbolic link leading outside the workspace (to ${real}); project skills must live in the workspace`);
    return undefined;
  }
  return real;
}

/** Up to MAX_DIRECTORY_ENTRIES names in `dir`, hidden ones left out, sorted so discovery order is stable. */
function listDirectory(dir: string, shown: string, skip: (path: string, reason: string) => void): string[] {
  const names: string[] = [];
  try {
    const handle = opendirSync(dir);
    try {
      for (let entry = handle.readSync(); entry; entry = handle.readSync()) {
        if (entry.name.startsWith(".")) continue;
        if (names.length === MAX_DIRECTORY_ENTRIES) {
          skip(shown, `has more than ${MAX_DIRECTORY_ENTRIES} entries; only the first ${MAX_DIRECTORY_ENTRIES} read were considered`);
          break;
        }
        names.push(entry.name);
      }
    } finally {
      handle.closeSync();
    }
  } catch (e) {
    skip(shown, `cannot be listed: ${errorCode(e)}`);
  }
  return names.sort();
}

/** One candidate folder: a skill, or undefined after recording why not. */
function readSkillFolder(folder: string, underRealRoot: string, realRoot: string, root: Root, skip: (path: string, reason: string) => void): Skill | undefined {
  let dir: string;
  try {
    dir = realpathSync(underRealRoot);
  } catch (e) {
    skip(folder, errorCode(e) === "ENOENT" ? "a symbolic link whose target does not exist" : `cannot be resolved: ${errorCode(e)}`);
    return undefined;
  }
  if (!isInside(realRoot, dir) || dir === realRoot) {
    skip(folder, `a symbolic link leading outside its skill root (to ${dir}); a skill folder must live in its root`);
    return undefined;
  }
  if (!isDirectory(dir)) {
    skip(folder, "not a folder; a skill is a folder holding SKILL.md");
    return undefined;
  }
  const file = join(dir, "SKILL.md");
  let text: string;
  try {
    const { bytes } = readBoundedPrefix(file, { what: "SKILL.md", maxBytes: FRONT_MATTER_BYTES, followSymlink: false, within: dir });
    text = new TextDecoder().decode(bytes, { stream: true });
  } catch (e) {
    if (e instanceof SafeReadError && e.reason === "missing") skip(folder, "has no SKILL.md; a skill is a folder holding SKILL.md");
    else skip(folder, e instanceof SafeReadError ? e.message : `cannot read SKILL.md: ${(e as Error).message}`);
    return undefined;
  }
  const front = parseFrontMatter(text, FRONT_MATTER_BYTES);
  if (!front.ok) {
    skip(folder, front.problem);
    return undefined;
  }
  const name = root.project ? `${root.project.name}:${front.name}` : front.name;
  return { name, description: front.description, kind: root.kind, project: root.project, root: realRoot, dir, file };
}

function exists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function errorCode(e: unknown): string {
  return (e as NodeJS.ErrnoException).code ?? (e as Error).message;
}
