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

const VERSION_CONTROL = new Set([".git", ".hg", ".svn", ".jj"]);
const DEPENDENCIES = new Set(["node_modules", "bower_components", ".pnpm-store", ".yarn", ".venv", "venv", ".gradle", ".terraform"]);
const CACHES = new Set(["__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox", ".cache", ".parcel-cache", ".turbo"]);

/** A skipped folder in words that fit it: what it is, and how it comes back without a checkpoint. */
export function skippedFolderWords(name: string): string {
  if (VERSION_CONTROL.has(name)) return `${name}/ (version control: it keeps its own history)`;
  if (DEPENDENCIES.has(name)) return `${name}/ (installed dependencies: reinstalled by their package manager)`;
  if (CACHES.has(name)) return `${name}/ (caches: rebuilt when needed)`;
  return `${name}/ (build output: rebuilt by the build)`;
}

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

/** One folder as the last walk listed it: what a later walk reuses when no event says the folder changed. */
export interface FolderScan {
  files: [string, Seen][];
  /** Subfolders walked into (names). */
  dirs: string[];
  ignore?: IgnoreFile;
  skippedDirs: string[];
  ignored: number;
  secret: number;
  big: string[];
}

/** Folders (workspace-relative, "" for the root) as last listed. */
export type FolderCache = Map<string, FolderScan>;

/** A full walk of the workspace (every folder listed, every file stat'ed). */
export function scanWorkspace(workspace: string, maxFileBytes: number): Scan {
  return scanFolders(workspace, maxFileBytes).scan;
}

/**
 * Walks the workspace, listing again only the folders in `dirty` (and those not in `cache`); every other folder's
 * listing and file stats come from `cache`. With `dirty = "all"` (or no cache) every folder is listed. `onFolder`
 * is called before a folder is listed (a watch is added there first, so no change after the listing is missed).
 */
export function scanFolders(
  workspace: string,
  maxFileBytes: number,
  opts: { cache?: FolderCache; dirty?: ReadonlySet<string> | "all"; onFolder?: (abs: string, rel: string) => void } = {},
): { scan: Scan; cache: FolderCache; listed: number } {
  const files = new Map<string, Seen>();
  const skippedDirs = new Set<string>();
  const big: string[] = [];
  let ignored = 0;
  let secret = 0;
  let listed = 0;
  const cache: FolderCache = new Map();
  const stack = new IgnoreStack();
  const reuse = (rel: string) => (opts.dirty === "all" || opts.dirty?.has(rel) ? undefined : opts.cache?.get(rel));
  const walk = (abs: string, rel: string, parents: string[]) => {
    let folder = reuse(rel);
    if (!folder) {
      opts.onFolder?.(abs, rel);
      folder = listFolder(abs, rel, parents, stack, maxFileBytes);
      listed++;
      if (!folder) return;
    }
    cache.set(rel, folder);
    for (const [name, seen] of folder.files) files.set(rel ? `${rel}/${name}` : name, seen);
    for (const d of folder.skippedDirs) skippedDirs.add(d);
    ignored += folder.ignored;
    secret += folder.secret;
    big.push(...folder.big);
    const pushed = stack.push(rel, folder.ignore);
    for (const name of folder.dirs) walk(`${abs}/${name}`, rel ? `${rel}/${name}` : name, [...parents, name.toLowerCase()]);
    if (pushed) stack.pop();
  };
  walk(workspace, "", []);
  const skipped: string[] = [];
  for (const d of [...skippedDirs].sort()) skipped.push(skippedFolderWords(d));
  if (ignored) skipped.push(`${ignored} paths excluded by .gitignore or .ignore`);
  if (secret) skipped.push(`${secret} secret-like paths (.env, keys), never copied`);
  if (big.length) skipped.push(`${big.length} files over ${maxFileBytes} bytes ([checkpoints] max_file_bytes): ${big.slice(0, 5).join(", ")}${big.length > 5 ? ", …" : ""}`);
  return { scan: { files, skipped }, cache, listed };
}

/** Lists one folder: its covered files (stat'ed), the subfolders to walk, what it leaves out. */
function listFolder(abs: string, rel: string, parents: string[], stack: IgnoreStack, maxFileBytes: number): FolderScan | undefined {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(abs, { withFileTypes: true });
  } catch {
    return undefined;
  }
  const ignore = readIgnoreFiles(abs, entries);
  const folder: FolderScan = { files: [], dirs: [], ...(ignore ? { ignore } : {}), skippedDirs: [], ignored: 0, secret: 0, big: [] };
  const pushed = stack.push(rel, ignore);
  for (const entry of entries) {
    const isDir = entry.isDirectory();
    if (!isDir && !entry.isFile()) continue;
    const name = entry.name;
    const childRel = rel ? `${rel}/${name}` : name;
    if (isDir && SKIPPED_DIRECTORIES.has(name)) {
      folder.skippedDirs.push(name);
      continue;
    }
    if (stack.ignored(childRel, isDir)) {
      folder.ignored++;
      continue;
    }
    if (isSecretLikeChild(parents, name)) {
      folder.secret++;
      continue;
    }
    if (isDir) {
      folder.dirs.push(name);
      continue;
    }
    let st: fs.Stats;
    try {
      st = fs.lstatSync(`${abs}/${name}`);
    } catch {
      continue; // gone since the listing
    }
    if (!st.isFile()) continue;
    if (st.size > maxFileBytes) {
      folder.big.push(childRel);
      continue;
    }
    folder.files.push([name, { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino, mode: st.mode & 0o777 }]);
  }
  if (pushed) stack.pop();
  return folder;
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
