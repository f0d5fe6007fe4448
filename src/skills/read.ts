// Reading a discovered skill's SKILL.md. The catalog holds real paths from session start; between then and now
// a folder may have been swapped for a symbolic link, so containment is checked again, on the path and on the
// open descriptor, before any byte is returned.
import { realpathSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { isInside, readBoundedPrefix, SafeReadError } from "../fs/safe-read";
import type { Skill } from "./discover";

/** A skill that can no longer be read safely; the message says why. */
export class SkillReadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SkillReadError";
  }
}

/**
 * At most `maxBytes` of the skill's SKILL.md (or, with `file`, of a file inside the skill's folder that SKILL.md
 * names: a reference, a script, a template) as text, cut on a character boundary; `truncated` when more follows.
 */
export function readSkill(skill: Skill, maxBytes: number, file?: string): { text: string; truncated: boolean; path: string } {
  const path = file === undefined ? skill.file : skillFilePath(skill, file);
  let real: string;
  try {
    real = realpathSync(skill.dir);
  } catch {
    throw new SkillReadError(`skill ${skill.name} is gone: its folder ${skill.dir} no longer exists`);
  }
  if (real !== skill.dir || !isInside(skill.root, real)) {
    throw new SkillReadError(
      `skill ${skill.name} changed after the session started: its folder ${skill.dir} now leads to ${real}; refused. Start a new session to pick up moved skills`,
    );
  }
  try {
    const what = file === undefined ? `SKILL.md of skill ${skill.name}` : `${file} of skill ${skill.name}`;
    // `within` is checked on the open descriptor: a symbolic link anywhere on the way out of the folder is refused.
    const { bytes, truncated } = readBoundedPrefix(path, { what, maxBytes, followSymlink: false, within: skill.dir });
    if (bytes.subarray(0, 8192).includes(0)) {
      throw new SkillReadError(`${file} of skill ${skill.name} is a binary file; read_skill shows text files only`);
    }
    // stream: true leaves out a character the cut split in two instead of decoding it as U+FFFD.
    return { text: new TextDecoder().decode(bytes, { stream: truncated }), truncated, path };
  } catch (e) {
    if (e instanceof SafeReadError) throw new SkillReadError(e.message);
    throw e;
  }
}

/** A file path a skill's SKILL.md names, relative to its folder: refused when absolute or when it climbs out. */
function skillFilePath(skill: Skill, file: string): string {
  if (isAbsolute(file) || file.startsWith("~")) {
    throw new SkillReadError(`file ${JSON.stringify(file)} must be a path relative to the skill's folder (as SKILL.md names it), not an absolute path`);
  }
  const parts = file.split(/[\\/]+/);
  if (parts.includes("..")) {
    throw new SkillReadError(`file ${JSON.stringify(file)} climbs out of the skill's folder with ".."; read_skill reads only files inside ${skill.name}'s folder`);
  }
  const path = resolve(skill.dir, file);
  if (!isInside(skill.dir, path) || path === skill.dir) {
    throw new SkillReadError(`file ${JSON.stringify(file)} is not a file inside skill ${skill.name}'s folder`);
  }
  return path;
}
