// Walking the workspace for the search tools (grep, glob): files under a start path in name order, without
// following symbolic links, skipping version-control directories, what `.gitignore`/`.ignore` files exclude and
// secret-like paths (unless the caller named one explicitly).
import * as fs from "node:fs";
import * as path from "node:path";
import { IgnoreFile, IgnoreStack } from "./ignore-rules";
import { isSecretLikeChild } from "./workspace-paths";

const VCS_DIRECTORIES = new Set([".git", ".hg", ".svn", ".jj"]);
const IGNORE_FILES = [".gitignore", ".ignore"];

export interface WalkOptions {
  /** The workspace root, resolved through symlinks. */
  workspace: string;
  /** A real path inside the workspace (a directory, or a file that is yielded alone). */
  start: string;
  /** The caller named a secret-like path itself (after approval): do not skip what lies under it. */
  includeSecretLike: boolean;
  /** Checked between directories and files; true ends the walk. */
  stop(): boolean;
}

export interface WalkedFile {
  /** Relative to the workspace, with `/` separators. */
  rel: string;
  abs: string;
}

export interface WalkCounts {
  /** Entries left out by ignore files. */
  ignored: number;
  /** Entries left out because their path looks like it holds secrets. */
  secretLike: number;
}

/** Files under `start`, depth first in name order. `counts` is filled as the walk goes. */
export function* walkWorkspace(opts: WalkOptions, counts: WalkCounts = { ignored: 0, secretLike: 0 }): Generator<WalkedFile> {
  const startRel = toRel(opts.workspace, opts.start);
  const stack = new IgnoreStack();
  // The ignore files of every directory above the start still apply to it (the workspace root downwards).
  const parts = startRel === "" ? [] : startRel.split("/");
  let st: fs.Stats;
  try {
    st = fs.lstatSync(opts.start);
  } catch {
    return;
  }
  const aboveCount = st.isDirectory() ? parts.length : parts.length - 1;
  for (let i = 0; i <= aboveCount; i++) {
    const rel = parts.slice(0, i).join("/");
    if (i < aboveCount || !st.isDirectory()) stack.push(rel, readIgnoreFiles(path.join(opts.workspace, rel)));
  }
  if (st.isFile()) {
    yield { rel: startRel, abs: opts.start };
    return;
  }
  if (!st.isDirectory()) return;
  yield* walkDirectory(opts, stack, counts, opts.start, startRel, parts.map((p) => p.toLowerCase()));
}

/** `parents`: the lower-case components of `rel`, for the secret-like check of each entry. */
function* walkDirectory(opts: WalkOptions, stack: IgnoreStack, counts: WalkCounts, abs: string, rel: string, parents: string[]): Generator<WalkedFile> {
  if (opts.stop()) return;
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(abs, { withFileTypes: true });
  } catch {
    return; // unreadable directories are skipped, as a search does
  }
  const pushed = stack.push(rel, readIgnoreFiles(abs, entries));
  try {
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (opts.stop()) return;
      const isDir = entry.isDirectory();
      if (!isDir && !entry.isFile()) continue; // symbolic links, devices, sockets: never followed or read
      if (isDir && VCS_DIRECTORIES.has(entry.name)) continue;
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      if (stack.ignored(childRel, isDir)) {
        counts.ignored++;
        continue;
      }
      if (!opts.includeSecretLike && isSecretLikeChild(parents, entry.name)) {
        counts.secretLike++;
        continue;
      }
      const childAbs = `${abs}/${entry.name}`;
      if (isDir) yield* walkDirectory(opts, stack, counts, childAbs, childRel, [...parents, entry.name.toLowerCase()]);
      else yield { rel: childRel, abs: childAbs };
    }
  } finally {
    if (pushed) stack.pop();
  }
}

/**
 * Whether the ignore files exclude a workspace-relative path as a walk from the workspace root finds it: the path
 * itself or a folder above it matches a rule of a `.gitignore` or `.ignore` on the way down.
 */
export function ignoredInWorkspace(workspace: string, rel: string, isDir: boolean): boolean {
  const parts = rel.split("/").filter((p) => p !== "" && p !== ".");
  const stack = new IgnoreStack();
  for (let i = 0; i < parts.length; i++) {
    const dir = parts.slice(0, i).join("/");
    stack.push(dir, readIgnoreFiles(path.join(workspace, dir)));
    if (stack.ignored(parts.slice(0, i + 1).join("/"), i < parts.length - 1 || isDir)) return true;
  }
  return false;
}

function readIgnoreFiles(dir: string, entries?: fs.Dirent[]): IgnoreFile | undefined {
  const texts: string[] = [];
  for (const name of IGNORE_FILES) {
    if (entries && !entries.some((e) => e.name === name && e.isFile())) continue;
    try {
      const file = path.join(dir, name);
      if (!entries && !fs.lstatSync(file).isFile()) continue;
      texts.push(fs.readFileSync(file, "utf8"));
    } catch {
      // none here
    }
  }
  return texts.length ? IgnoreFile.parse(...texts) : undefined;
}

function toRel(workspace: string, abs: string): string {
  const rel = path.relative(workspace, abs);
  return rel.split(path.sep).join("/");
}
