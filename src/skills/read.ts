// Reading a discovered skill's SKILL.md. The catalog holds real paths from session start; between then and now
// a folder may have been swapped for a symbolic link, so containment is checked again, on the path and on the
// open descriptor, before any byte is returned.
import { realpathSync } from "node:fs";
import { isInside, readBoundedPrefix, SafeReadError } from "../fs/safe-read";
import type { Skill } from "./discover";

/** A skill that can no longer be read safely; the message says why. */
export class SkillReadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SkillReadError";
  }
}

/** At most `maxBytes` of the skill's SKILL.md as text, cut on a character boundary; `truncated` when more follows. */
export function readSkill(skill: Skill, maxBytes: number): { text: string; truncated: boolean } {
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
    const { bytes, truncated } = readBoundedPrefix(skill.file, { what: `SKILL.md of skill ${skill.name}`, maxBytes, followSymlink: false, within: skill.dir });
    // stream: true leaves out a character the cut split in two instead of decoding it as U+FFFD.
    return { text: new TextDecoder().decode(bytes, { stream: truncated }), truncated };
  } catch (e) {
    if (e instanceof SafeReadError) throw new SkillReadError(e.message);
    throw e;
  }
}
