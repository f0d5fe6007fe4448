// Path tests the sandbox's parent side and its launcher share (node:fs only, so the launcher stays cheap to load).
import { accessSync, constants, lstatSync } from "node:fs";
import { join } from "node:path";

/** There, as itself (a dangling symlink counts). */
export function exists(p: string): boolean {
  try {
    // Without throwing for a missing path: an exception per missing path was most of a command's start.
    return lstatSync(p, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

/** `p` is `dir` or lies below it. */
export function under(p: string, dir: string): boolean {
  return p === dir || dir === "/" || p.startsWith(dir.endsWith("/") ? dir : `${dir}/`);
}

/** The program `name` runs, found on `path` as execve needs it (a name with a slash is taken as it is). */
export function resolveProgram(name: string, path: string | undefined): string {
  if (name.includes("/")) return name;
  for (const dir of (path ?? "/usr/bin:/bin").split(":")) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return name;
}
