// What a checkpoint covers: the workspace's regular files, found by one stat walk (no `git ls-files`, no
// hashing here). Left out, and named: version-control directories, what `.gitignore`/`.ignore` excludes, build
// and dependency folders, secret-like paths (never copied into the store), files over the size cap. Symbolic
// links are neither followed nor recorded.
import * as fs from "node:fs";
import { IgnoreFile, IgnoreStack } from "../fs/ignore-rules";
import { isSecretLikeChild } from "../fs/workspace-paths";

/** Directories never entered: version control (`.git` is never read or touched) and build or dependency output. */
export const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set([
  ".git", ".hg", ".svn", ".jj",
  "node_modules", "bower_components", ".pnpm-store", ".yarn", "target", "dist", ".venv", "venv", "__pycache__",
  ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox", ".next", ".nuxt", ".svelte-kit", ".turbo", ".parcel-cache",
  ".gradle", ".terraform", ".cache", "_build", ".zig-cache", "zig-out",
]);
const IGNORE_FILES = [".gitignore", ".ignore"];

/** One file as the walk saw it: what a later walk compares to decide whether it must be read again. */
export interface Seen {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  /** Permission bits (the executable bit is restored). */
  mode: number;
}

export interface Scan {
  files: Map<string, Seen>;
  /** What was left out and why, one line per kind (`node_modules/ (dependency or build folder)`). */
  skipped: string[];
}

export function scanWorkspace(workspace: string, maxFileBytes: number): Scan {
  const files = new Map<string, Seen>();
  const skippedDirs = new Set<string>();
  const big: string[] = [];
  let ignored = 0;
  let secret = 0;
  const stack = new IgnoreStack();
  const walk = (abs: string, rel: string, parents: string[]) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(abs, { withFileTypes: true });
    } catch {
      return;
    }
    const pushed = stack.push(rel, readIgnoreFiles(abs, entries));
    for (const entry of entries) {
      const isDir = entry.isDirectory();
      if (!isDir && !entry.isFile()) continue;
      const name = entry.name;
      const childRel = rel ? `${rel}/${name}` : name;
      if (isDir && SKIPPED_DIRECTORIES.has(name)) {
        skippedDirs.add(name);
        continue;
      }
      if (stack.ignored(childRel, isDir)) {
        ignored++;
        continue;
      }
      if (isSecretLikeChild(parents, name)) {
        secret++;
        continue;
      }
      const childAbs = `${abs}/${name}`;
      if (isDir) {
        walk(childAbs, childRel, [...parents, name.toLowerCase()]);
        continue;
      }
      let st: fs.Stats;
      try {
        st = fs.lstatSync(childAbs);
      } catch {
        continue; // gone since the listing
      }
      if (!st.isFile()) continue;
      if (st.size > maxFileBytes) {
        big.push(childRel);
        continue;
      }
      files.set(childRel, { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino, mode: st.mode & 0o777 });
    }
    if (pushed) stack.pop();
  };
  walk(workspace, "", []);
  const skipped: string[] = [];
  for (const d of [...skippedDirs].sort()) skipped.push(`${d}/ folders (version control, dependencies or build output)`);
  if (ignored) skipped.push(`${ignored} paths excluded by .gitignore or .ignore`);
  if (secret) skipped.push(`${secret} secret-like paths (.env, keys), never copied`);
  if (big.length) skipped.push(`${big.length} files over ${maxFileBytes} bytes ([checkpoints] max_file_bytes): ${big.slice(0, 5).join(", ")}${big.length > 5 ? ", …" : ""}`);
  return { files, skipped };
}

function readIgnoreFiles(dir: string, entries: fs.Dirent[]): IgnoreFile | undefined {
  const texts: string[] = [];
  for (const name of IGNORE_FILES) {
    if (!entries.some((e) => e.name === name && e.isFile())) continue;
    try {
      texts.push(fs.readFileSync(`${dir}/${name}`, "utf8"));
    } catch {
      // unreadable: no rules from it
    }
  }
  return texts.length ? IgnoreFile.parse(...texts) : undefined;
}

/** Whether a file must be read again: anything the walk sees differs, or it changed too close to the last look to trust. */
export function changedSince(now: Seen, before: Seen | undefined, lookedAt: number): boolean {
  if (!before) return true;
  if (now.size !== before.size || now.mtimeMs !== before.mtimeMs || now.ctimeMs !== before.ctimeMs || now.ino !== before.ino || now.mode !== before.mode) return true;
  // A write in the same clock tick as the last look leaves the same mtime: such a file is read again (git's "racy" rule).
  return now.mtimeMs >= lookedAt - 2;
}
