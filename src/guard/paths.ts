// Paths as the guard judges them: every spelling of one place made one path before any check. Repeated
// slashes, `.` and `..` are resolved, `/proc/<pid>/root/…` is the path it leads to and `/proc/<pid>/cwd/…` the
// workspace (the command's working directory), and `~`, `~USER`, `$HOME`, `$SCV_HOME` and `$PWD` are spelled
// out. Secret-like names come from the one list the file tools use (isSecretLikePath).
import { posix } from "node:path";
import { isSecretLikePath } from "../fs/workspace-paths";
import type { Word } from "./tokenize";

export interface PathContext {
  workspace: string;
  home: string;
  scvHome: string;
}

const PROC_LINK = /^\/proc\/(?:self|thread-self|\d+)(?:\/task\/\d+)?\/(root|cwd)(?=\/|$)/;

/** `value` as one absolute, lexically resolved path (relative paths from `cwd`, by default the workspace). */
export function normalPath(value: string, ctx: PathContext, cwd = ctx.workspace): string {
  // The /proc links are followed before `..` is resolved: `/proc/self/cwd/..` is the workspace's parent.
  let p = (value.startsWith("/") ? value : `${cwd}/${value}`).replace(/\/+/g, "/").replace(/\/(?:\.\/)+/g, "/");
  for (let hops = 0; hops < 8; hops++) {
    const m = PROC_LINK.exec(p);
    if (!m) break;
    const rest = p.slice(m[0].length);
    p = (m[1] === "root" ? `/${rest}` : `${ctx.workspace}/${rest}`).replace(/\/+/g, "/");
  }
  p = posix.normalize(p);
  if (PROC_LINK.test(p) && value !== p) return normalPath(p, ctx, cwd);
  if (p.length > 1 && p.endsWith("/")) p = p.slice(0, -1);
  return p.startsWith("//") ? p.replace(/^\/+/, "/") : p;
}

export function within(path: string, dir: string): boolean {
  return dir === "/" || path === dir || path.startsWith(`${dir}/`);
}

/** Devices that hold nothing secret; the rest of /dev is a disk, a terminal or a socket. */
const PLAIN_DEVICES = new Set(["/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/stdin", "/dev/stdout", "/dev/stderr"]);
/**
 * What the guard adds to the file tools' list (defense in depth, as it always asked): host keys, sudoers, bash's
 * network paths, any `.env*` name (`.envrc`), and SSH key names with a suffix (`id_rsa_work`; not `.pub`).
 */
const GUARD_EXTRA = /(?:^|\/)(?:ssh_host_[^/]*key[^/]*|\.env[^/]*|id_(?:rsa|dsa|ecdsa|ed25519)(?![^/]*\.pub$)[^/]*)$|(?:^|\/)\.env[^/]*\/|^\/etc\/(?:g?shadow|sudoers)|^\/dev\/(?:tcp|udp)\//i;

/** Whether a path (as written in an argument) names a credential, SCV's home, process memory or a device. */
export function secretPath(value: string, ctx: PathContext): boolean {
  if (!value) return false;
  const abs = normalPath(value, ctx);
  if (PLAIN_DEVICES.has(abs)) return false;
  if (within(abs, ctx.scvHome) || GUARD_EXTRA.test(abs)) return true;
  // Judged below the workspace or the home directory, so a workspace under /root is not all secret.
  const base = within(abs, ctx.workspace) ? ctx.workspace : within(abs, ctx.home) ? ctx.home : undefined;
  if (isSecretLikePath(base ? abs.slice(base.length + 1) : abs)) return true;
  return !value.startsWith("/") && isSecretLikePath(value);
}

/** The user name a home directory belongs to, as `~NAME` spells it. */
function homeOwner(home: string): string {
  return home.slice(home.lastIndexOf("/") + 1);
}

/**
 * The path a word names, with `~`, `~USER`, `$HOME`, `$SCV_HOME` and `$PWD` spelled out and resolved; undefined
 * when only the shell could know it (another expansion, a substitution, someone else's `~USER`).
 */
export function pathOf(w: Word, ctx: PathContext, cwd = ctx.workspace): string | undefined {
  return pathOfText(w.raw.replace(/["']/g, ""), ctx, cwd);
}

export function pathOfText(text: string, ctx: PathContext, cwd = ctx.workspace): string | undefined {
  let p = text;
  const tilde = /^~([A-Za-z0-9._-]*)(?=\/|$)/.exec(p);
  if (tilde) {
    const user = tilde[1]!;
    if (user && user !== homeOwner(ctx.home)) return undefined;
    p = ctx.home + p.slice(tilde[0].length);
  }
  p = p
    .replace(/^\$\{?HOME\}?(?=\/|$)/, ctx.home)
    .replace(/^\$\{?SCV_HOME\}?(?=\/|$)/, ctx.scvHome)
    .replace(/^\$\{?PWD\}?(?=\/|$)/, cwd);
  if (/[$`]/.test(p) || p.startsWith("~")) return undefined;
  p = p.replace(/\\(.)/g, "$1");
  return normalPath(p, ctx, cwd);
}

/** Whether a word spells a home directory that is not the user's: `~bob`, `~root`. */
export function otherUsersHome(text: string, ctx: PathContext): boolean {
  const tilde = /^~([A-Za-z0-9._-]+)(?=\/|$)/.exec(text);
  return !!tilde && tilde[1] !== homeOwner(ctx.home);
}
