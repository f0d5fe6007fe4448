// Path tests the sandbox's parent side and its launcher share (node:fs only, so the launcher stays cheap to load).
import { lstatSync } from "node:fs";

/** There, as itself (a dangling symlink counts). */
export function exists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/** `p` is `dir` or lies below it. */
export function under(p: string, dir: string): boolean {
  return p === dir || dir === "/" || p.startsWith(dir.endsWith("/") ? dir : `${dir}/`);
}
