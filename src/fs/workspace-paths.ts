// Workspace containment for tools that take a path: a workspace-relative path becomes a real absolute path
// inside the workspace or a refusal the model can act on. Also the lexical secret-like name heuristic, shared
// by read, the agent tool's ACP risk mapping and chat attachments (visibility only, not a confidentiality boundary).
import * as fs from "node:fs";
import * as path from "node:path";
import { lazySchema } from "../lazy-schema";
import { ToolError } from "../errors";

/** A path refused by the containment rules; the message says what was wrong and what to give instead. */
export class WorkspacePathError extends ToolError {
  constructor(message: string) {
    super(message);
    this.name = "WorkspacePathError";
  }
}

/** The argument schema every path-taking tool uses for a workspace-relative path. */
export const WorkspacePath = lazySchema((z) => z
  .string()
  .min(1, "must not be empty; give a file path relative to the workspace")
  .max(4096, "must be at most 4096 characters")
  .refine((p) => !p.includes("\0"), "must not contain a NUL byte")
  .refine((p) => p.isWellFormed(), "must be valid UTF-8 text"));

export interface ResolveOptions {
  /**
   * Resolve a path that is about to be written: missing trailing components are allowed (the caller creates
   * them), and the workspace root itself or a path ending in "/" is refused. Without it the path must exist.
   */
  forWrite?: boolean;
}

/**
 * The real absolute path `requested` names inside `workspace`, resolving every symlink. Refuses absolute paths,
 * `..` escapes, symlinks (parent or final component) that resolve outside, dangling or looping symlinks, and
 * non-directories used as directories. The returned path has no symlink components at the time of the call;
 * callers that open it use O_NOFOLLOW and `assertOpenedInside` to close the window after this check.
 */
export function resolveInWorkspace(workspace: string, requested: string, opts: ResolveOptions = {}): string {
  if (typeof requested !== "string" || requested === "") {
    throw new WorkspacePathError("path is empty; give a file path relative to the workspace");
  }
  const shown = JSON.stringify(requested);
  if (requested.includes("\0")) throw new WorkspacePathError(`path ${shown} contains a NUL byte; remove it`);
  const root = realWorkspace(workspace);
  if (path.isAbsolute(requested)) {
    const rel = path.relative(root, path.resolve(requested));
    const hint = isInsideRelative(rel) ? `: use "${rel || "."}"` : "";
    throw new WorkspacePathError(`path ${shown} is absolute; give a path relative to the workspace${hint}`);
  }
  // Lexical first: ".." may not climb out, whatever the symlinks say. We never hand the raw path to the OS.
  const lexical = path.resolve(root, requested);
  if (!isInside(root, lexical)) throw new WorkspacePathError(`path ${shown} is outside the workspace`);

  // The longest prefix that exists (lstat, so a dangling symlink counts as existing and is caught below).
  let existing = lexical;
  const missing: string[] = [];
  while (!lexists(existing, shown)) {
    missing.unshift(path.basename(existing));
    existing = path.dirname(existing);
  }
  let real: string;
  try {
    real = fs.realpathSync(existing);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const which = JSON.stringify(path.relative(root, existing) || ".");
    if (code === "ENOENT") {
      throw new WorkspacePathError(`path ${shown} goes through ${which}, a symbolic link whose target does not exist; refused`);
    }
    if (code === "ELOOP") throw new WorkspacePathError(`path ${shown} goes through a symbolic link loop at ${which}; refused`);
    throw new WorkspacePathError(`path ${shown} cannot be resolved: ${code ?? (e as Error).message}`);
  }
  if (!isInside(root, real)) {
    throw new WorkspacePathError(`path ${shown} is outside the workspace: it resolves through a symbolic link to a location outside it`);
  }
  if (missing.length > 0) {
    if (!fs.statSync(real).isDirectory()) {
      throw new WorkspacePathError(`path ${shown}: ${JSON.stringify(path.relative(root, real))} is not a directory`);
    }
    if (!opts.forWrite) throw new WorkspacePathError(`path ${shown} does not exist in the workspace`);
  }
  const resolved = path.join(real, ...missing);
  if (opts.forWrite) {
    if (resolved === root) throw new WorkspacePathError(`path ${shown} is the workspace root; name a file inside it`);
    if (requested.endsWith("/")) throw new WorkspacePathError(`path ${shown} ends with "/"; name a file, not a directory`);
  }
  return resolved;
}

/**
 * Checks, through an open descriptor, that what was opened is still inside the workspace (a parent directory
 * swapped for a symlink after resolveInWorkspace would show here). A no-op where /proc is not mounted.
 */
export function assertOpenedInside(fd: number, workspace: string, requested: string): void {
  let actual: string;
  try {
    actual = fs.readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return;
  }
  if (!isInside(realWorkspace(workspace), actual)) {
    throw new WorkspacePathError(`path ${JSON.stringify(requested)} is outside the workspace: it changed to a symbolic link while being opened`);
  }
}

/** The path as the model gave it, quoted only when it has characters that would make a result line ambiguous. */
export function displayPath(requested: string): string {
  return /[\s"\\\]\p{Cc}]/u.test(requested) ? JSON.stringify(requested) : requested;
}

/** True when `candidate` (absolute) is `root` or below it. */
export function isInside(root: string, candidate: string): boolean {
  return isInsideRelative(path.relative(root, candidate));
}

function isInsideRelative(rel: string): boolean {
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

function realWorkspace(workspace: string): string {
  try {
    return fs.realpathSync(workspace);
  } catch (e) {
    throw new ToolError(`the workspace ${JSON.stringify(workspace)} is not accessible: ${(e as NodeJS.ErrnoException).code ?? e}`);
  }
}

/** lstat-based existence (existsSync follows links and would call a dangling link missing). */
function lexists(p: string, shown: string): boolean {
  try {
    fs.lstatSync(p);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return false;
    throw new WorkspacePathError(`path ${shown} cannot be inspected: ${code ?? (e as Error).message}`);
  }
}

// ---- The secret-like name heuristic --------------------------------------------------------------------------
// Mirrors the chat_attach design's list: credential and key locations under a home directory, host secrets, and
// secret-like file names. Matched lexically (no filesystem access) and case-insensitively, on any component.

const SECRET_DIRECTORIES = new Set([
  ".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker", ".password-store",
  ".codex", ".claude", ".grok", ".scv", ".mozilla",
]);
const SECRET_FILES = new Set([
  ".netrc", "_netrc", ".git-credentials", ".npmrc", ".pypirc", ".claude.json", ".pgpass",
  // Shell and REPL histories: commands typed with keys and passwords in them.
  ".bash_history", ".zsh_history", ".sh_history", ".history", ".ash_history", ".python_history", ".node_repl_history",
  ".psql_history", ".mysql_history", ".sqlite_history", ".rediscli_history", ".lesshst",
]);
/** Component sequences (lower case) that name a credential store wherever they appear. */
const SECRET_SEQUENCES = [
  [".cargo", "credentials"],
  [".cargo", "credentials.toml"],
  [".config", "gh"],
  [".config", "gcloud"],
  [".config", "hub"],
  [".config", "google-chrome"],
  [".config", "chromium"],
  [".config", "bravesoftware"],
  [".config", "microsoft-edge"],
  [".local", "share", "keyrings"],
  [".local", "share", "fish"],
];
const SECRET_EXTENSIONS = [".pem", ".key", ".p12", ".pfx", ".kdbx"];
const SECRET_SUBSTRINGS = ["credential", "private_key"];
const SSH_KEY_NAME = /^id_(rsa|dsa|ecdsa|ed25519|xmss)(_sk)?$/;
/** Host locations, matched only on absolute paths (the whole path or anything below it). */
const HOST_SECRETS = [
  "/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/ssh", "/etc/sudoers", "/etc/sudoers.d",
  "/root", "/proc", "/sys", "/dev",
];

/**
 * Whether a path looks like it holds secrets, judged from its name alone: `.env` files, key and certificate
 * extensions, SSH key names, names containing "credential" or "private_key", credential directories such as
 * `.ssh` or `.aws`, and (for absolute paths) host secrets such as /etc/shadow. Never touches the filesystem.
 */
export function isSecretLikePath(p: string): boolean {
  if (!p) return false;
  const normal = path.posix.normalize(p.toLowerCase());
  if (normal.startsWith("/") && HOST_SECRETS.some((h) => normal === h || normal.startsWith(`${h}/`))) return true;
  const parts = normal.split("/").filter((c) => c !== "" && c !== ".");
  for (let i = 0; i < parts.length; i++) {
    const name = parts[i]!;
    if (SECRET_DIRECTORIES.has(name) || SECRET_FILES.has(name) || isSecretFileName(name)) return true;
    if (SECRET_SEQUENCES.some((seq) => seq.every((c, k) => parts[i + k] === c))) return true;
  }
  return false;
}

/**
 * isSecretLikePath for one more component of a relative path whose parents were already judged not secret-like
 * (a directory walk): `parents` are the lower-case components above. Same answer, without re-reading the parents.
 */
export function isSecretLikeChild(parents: readonly string[], name: string): boolean {
  const lower = name.toLowerCase();
  if (SECRET_DIRECTORIES.has(lower) || SECRET_FILES.has(lower) || isSecretFileName(lower)) return true;
  return SECRET_SEQUENCES.some((seq) => seq[seq.length - 1] === lower && seq.length - 1 <= parents.length && seq.every((c, k) => k === seq.length - 1 || parents[parents.length - (seq.length - 1) + k] === c));
}

function isSecretFileName(name: string): boolean {
  if (name === ".env" || name.startsWith(".env.") || name.endsWith(".env")) return true;
  if (SECRET_SUBSTRINGS.some((s) => name.includes(s))) return true;
  if (SECRET_EXTENSIONS.some((ext) => name.endsWith(ext))) return true;
  return SSH_KEY_NAME.test(name);
}
