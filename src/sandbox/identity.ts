// Hidden by identity, not by spelling: the same file can be reached through more than one path when a folder is
// mounted twice (`mount --bind ~ /data/home`, a project folder bind-mounted with the home inside it, a container
// volume). The mount table (/proc/self/mountinfo) says which mounts show the same file system and from which of
// its folders, so every other path of a hidden file or folder is found and hidden too (mounts.ts covers each,
// landlock.ts leaves each out). Hard links to a hidden file are not found this way (see docs/security.md).
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { under } from "./paths";

interface Mount {
  /** major:minor of the file system. */
  dev: string;
  /** The folder of that file system the mount shows. */
  root: string;
  /** Where it is shown. */
  point: string;
}

/** mountinfo escapes space, tab, newline and backslash as octal (`\040`). */
const unescape = (s: string) => s.replace(/\\([0-7]{3})/g, (_m, o: string) => String.fromCharCode(parseInt(o, 8)));

export function parseMountInfo(text: string): Mount[] {
  const out: Mount[] = [];
  for (const line of text.split("\n")) {
    const f = line.split(" ");
    if (f.length < 5 || !f[2]?.includes(":")) continue;
    out.push({ dev: f[2], root: unescape(f[3]!), point: unescape(f[4]!) });
  }
  return out;
}


/**
 * Every other path through which `paths` (absolute, symlinks resolved) can be reached, by the mount table: for
 * each mount of the same file system whose folder holds the hidden path, that path seen through it; for each
 * mount that shows a folder inside the hidden path, its mount point as a whole.
 */
export function otherPaths(paths: readonly string[], mounts: readonly Mount[] = readMounts()): string[] {
  if (!mounts.length) return [];
  const out = new Set<string>();
  for (const p of paths) {
    // The mount the path is seen through: the last (topmost) one with the longest mount point above it.
    let own: Mount | undefined;
    for (const m of mounts) if (under(p, m.point) && (!own || m.point.length >= own.point.length)) own = m;
    if (!own) continue;
    const inFs = join(own.root, relative(own.point, p));
    for (const m of mounts) {
      if (m === own || m.dev !== own.dev) continue;
      let alias: string | undefined;
      if (under(inFs, m.root)) alias = join(m.point, relative(m.root, inFs));
      else if (under(m.root, inFs)) alias = m.point;
      if (alias && alias !== p && !paths.includes(alias)) out.add(alias);
    }
  }
  return [...out];
}

function readMounts(): Mount[] {
  try {
    return parseMountInfo(readFileSync("/proc/self/mountinfo", "utf8"));
  } catch {
    return [];
  }
}
