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
  /**
   * Set when `files` is the previous recording's map patched in place (patchFolders): the only paths whose
   * record may differ from that recording's, each with the record it had there (undefined: not there).
   */
  patched?: Map<string, Seen | undefined>;
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
  const cache: FolderCache = new Map();
  const walk: Walk = {
    maxFileBytes,
    stack: new IgnoreStack(),
    cache,
    reuse: (rel) => (opts.dirty === "all" || opts.dirty?.has(rel) ? undefined : opts.cache?.get(rel)),
    onFolder: opts.onFolder,
    took: (rel, folder) => {
      for (const [name, seen] of folder.files) files.set(joinRel(rel, name), seen);
    },
    listed: 0,
  };
  walkFrom(walk, workspace, "", []);
  return { scan: { files, skipped: skippedLines(cache.values(), maxFileBytes) }, cache, listed: walk.listed };
}

/**
 * The last walk patched in place (`cache` and `files`, both from it): only the folders in `dirty` are listed
 * again, their new subfolders walked and their removed ones dropped with everything below, so the work follows
 * what changed, not the workspace's size. The scan's `patched` names every path whose record may differ, with the
 * record it had (undefined: it was not there).
 */
export function patchFolders(
  workspace: string,
  maxFileBytes: number,
  opts: { cache: FolderCache; files: Map<string, Seen>; dirty: ReadonlySet<string>; onFolder?: (abs: string, rel: string) => void },
): { scan: Scan; listed: number } {
  const { cache, files } = opts;
  const patched = new Map<string, Seen | undefined>();
  const set = (path: string, seen: Seen | undefined) => {
    if (!patched.has(path)) patched.set(path, files.get(path));
    if (seen) files.set(path, seen);
    else files.delete(path);
  };
  const dropFiles = (rel: string, folder: FolderScan) => {
    for (const [name] of folder.files) set(joinRel(rel, name), undefined);
  };
  const dropTree = (rel: string) => {
    for (const [k, folder] of cache) {
      if (rel !== "" && k !== rel && !k.startsWith(`${rel}/`)) continue;
      dropFiles(k, folder);
      cache.delete(k);
    }
  };
  let listed = 0;
  const walkNew = (stack: IgnoreStack, abs: string, rel: string, parents: string[]) => {
    const walk: Walk = { maxFileBytes, stack, cache, reuse: () => undefined, onFolder: opts.onFolder, took: (r, f) => f.files.forEach(([name, seen]) => set(joinRel(r, name), seen)), listed: 0 };
    walkFrom(walk, abs, rel, parents);
    listed += walk.listed;
  };
  // Shallowest first: a folder removed with its parent's listing is gone before its own turn comes.
  for (const rel of [...opts.dirty].sort((a, b) => depthOf(a) - depthOf(b))) {
    const abs = rel ? `${workspace}/${rel}` : workspace;
    const { stack, parents } = ancestry(cache, rel);
    const old = cache.get(rel);
    if (!old) {
      // Not walked last time (unreadable then): walked now if its parent's listing still names it.
      const cut = rel.lastIndexOf("/");
      if (rel && cache.get(cut < 0 ? "" : rel.slice(0, cut))?.dirs.includes(rel.slice(cut + 1))) walkNew(stack, abs, rel, parents);
      continue;
    }
    opts.onFolder?.(abs, rel);
    const folder = listFolder(abs, rel, parents, stack, maxFileBytes);
    listed++;
    if (!folder) {
      dropTree(rel);
      continue;
    }
    dropFiles(rel, old);
    for (const [name, seen] of folder.files) set(joinRel(rel, name), seen);
    cache.set(rel, folder);
    const now = new Set(folder.dirs);
    for (const d of old.dirs) if (!now.has(d)) dropTree(joinRel(rel, d));
    const had = new Set(old.dirs);
    const pushed = stack.push(rel, folder.ignore);
    for (const d of folder.dirs) if (!had.has(d)) walkNew(stack, `${abs}/${d}`, joinRel(rel, d), [...parents, d.toLowerCase()]);
    if (pushed) stack.pop();
  }
  return { scan: { files, skipped: skippedLines(cache.values(), maxFileBytes), patched }, listed };
}

/** One walk's state: where folders come from (`reuse`, else listed) and what is done with each one taken. */
interface Walk {
  maxFileBytes: number;
  stack: IgnoreStack;
  cache: FolderCache;
  reuse(rel: string): FolderScan | undefined;
  onFolder?: (abs: string, rel: string) => void;
  took(rel: string, folder: FolderScan): void;
  listed: number;
}

/** Walks `rel` and every folder below it, each from `reuse` or listed, into `cache` (in walk order). */
function walkFrom(w: Walk, abs: string, rel: string, parents: string[]): void {
  let folder = w.reuse(rel);
  if (!folder) {
    w.onFolder?.(abs, rel);
    folder = listFolder(abs, rel, parents, w.stack, w.maxFileBytes);
    w.listed++;
    if (!folder) return;
  }
  w.cache.set(rel, folder);
  w.took(rel, folder);
  const pushed = w.stack.push(rel, folder.ignore);
  for (const name of folder.dirs) walkFrom(w, `${abs}/${name}`, joinRel(rel, name), [...parents, name.toLowerCase()]);
  if (pushed) w.stack.pop();
}

/** The ignore rules above `rel` (every ancestor's, from the cache) and its path's names, lower-cased. */
function ancestry(cache: FolderCache, rel: string): { stack: IgnoreStack; parents: string[] } {
  const stack = new IgnoreStack();
  const names = rel ? rel.split("/") : [];
  let at = "";
  for (const name of names) {
    stack.push(at, cache.get(at)?.ignore);
    at = joinRel(at, name);
  }
  return { stack, parents: names.map((n) => n.toLowerCase()) };
}

/** What the folders leave out, one line per kind. */
function skippedLines(folders: Iterable<FolderScan>, maxFileBytes: number): string[] {
  const skippedDirs = new Set<string>();
  const big: string[] = [];
  let bigCount = 0;
  let ignored = 0;
  let secret = 0;
  for (const folder of folders) {
    for (const d of folder.skippedDirs) skippedDirs.add(d);
    ignored += folder.ignored;
    secret += folder.secret;
    bigCount += folder.big.length;
    for (const name of folder.big) if (big.length < 5) big.push(name);
  }
  const skipped: string[] = [];
  for (const d of [...skippedDirs].sort()) skipped.push(skippedFolderWords(d));
  if (ignored) skipped.push(`${ignored} paths excluded by .gitignore or .ignore`);
  if (secret) skipped.push(`${secret} secret-like paths (.env, keys), never copied`);
  if (bigCount) skipped.push(`${bigCount} files over ${maxFileBytes} bytes ([checkpoints] max_file_bytes): ${big.join(", ")}${bigCount > 5 ? ", …" : ""}`);
  return skipped;
}

const joinRel = (rel: string, name: string) => (rel ? `${rel}/${name}` : name);

function depthOf(rel: string): number {
  let n = rel ? 1 : 0;
  for (let i = 0; i < rel.length; i++) if (rel.charCodeAt(i) === 47) n++;
  return n;
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
