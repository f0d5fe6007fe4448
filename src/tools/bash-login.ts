// The login environment, once per session: what `bash -l` sets up (PATH, version managers' variables, aliases,
// functions) is captured by one login shell, written to a snapshot file, and every command then runs in a plain
// `bash -c` that reads the snapshot through BASH_ENV (read before the command is parsed, so aliases work as they
// would in the login shell). The snapshot is captured again when a profile file changes (size, mtime, inode).
//
// What the snapshot may hold: the variables the login shell exported that differ from the environment it was
// started with (itself the allowlist, docs/security.md), never SCV's tracking or temporary-directory variables,
// never a secret binding's name or source, and never a value shaped like a key; aliases, functions and whether
// aliases expand. It lives in a private folder (0700, files 0600) under the user's cache, which the sandbox
// shows read-only: `$SCV_HOME` is hidden there, and the sandbox's /tmp is per command.
import { mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomHex } from "../digest";
import type { RunOptions, RunResult } from "../process";
import { findSecretShape } from "../text/redact";

/** How long a login shell may take to print its environment before commands run without it. */
export const CAPTURE_TIMEOUT_MS = 10_000;
/** The files bash -l reads (and those they commonly read), whose change means a new capture. */
const SYSTEM_PROFILES = ["/etc/profile", "/etc/profile.d", "/etc/bash.bashrc", "/etc/bashrc", "/etc/environment"];
const USER_PROFILES = [".bash_profile", ".bash_login", ".profile", ".bashrc", ".bash_aliases"];
/** Never taken from the login shell: bash's own, the runner's tracking, and what the sandbox sets per command. */
const NEVER = new Set(["PWD", "OLDPWD", "SHLVL", "_", "BASH_ENV", "ENV", "SCV_RUN_TAG", "SCV_PARENT", "TMPDIR", "TMP", "TEMP", "SHELLOPTS", "BASHOPTS", "PS1", "PS2", "PS4", "PROMPT_COMMAND"]);
/** Files in the snapshot folder older than this are from sessions that ended without removing theirs. */
const STALE_MS = 7 * 24 * 3600 * 1000;

export interface ShellCommand {
  argv: string[];
  env: Record<string, string>;
  /** Something about the login profile to tell once (it printed, failed or hung). */
  note?: string;
}

export interface LoginShellOptions {
  home: string;
  /** The user's cache folder (XDG_CACHE_HOME or ~/.cache); the snapshots go under scv/shell there. */
  cacheDir: string;
  /** Variable names that must never come from the snapshot (secret bindings' targets and sources). */
  exclude: readonly string[];
  /** How long the capture may take (default CAPTURE_TIMEOUT_MS). */
  captureTimeoutMs?: number;
}

interface Snapshot {
  key: string;
  /** The file, or undefined when the capture failed (commands then run without the profile). */
  path?: string;
  text?: string;
  written?: { size: number; mtimeMs: number };
  note?: string;
}

/** Runs the capture: unsandboxed or in the call's sandbox. */
export type CaptureRunner = (run: RunOptions) => Promise<RunResult>;

/**
 * One session's login environment. `command()` turns a command into the argv and environment of a plain shell
 * with the snapshot; the first call of each placement (host or sandbox) captures it. `close()` removes the files.
 */
export class LoginShell {
  private readonly snapshots = new Map<string, Snapshot>();
  private readonly pending = new Map<string, Promise<Snapshot>>();
  private readonly told = new Set<string>();
  private readonly dir: string;
  private readonly timeoutMs: number;

  constructor(private readonly opts: LoginShellOptions) {
    this.dir = join(opts.cacheDir, "scv", "shell");
    this.timeoutMs = opts.captureTimeoutMs ?? CAPTURE_TIMEOUT_MS;
  }

  /** Where the snapshots live, so a sandboxed call can check the folder is not hidden from it. */
  get folder(): string {
    return this.dir;
  }

  async command(command: string, base: { cwd: string; env: Record<string, string>; placement: string; capture: CaptureRunner }): Promise<ShellCommand> {
    const key = profilesKey(this.opts.home);
    let snap = this.snapshots.get(base.placement);
    if (!snap || snap.key !== key) snap = await this.capture(key, base);
    const env = { ...base.env };
    if (snap.path && this.ensureWritten(snap)) env.BASH_ENV = snap.path;
    // Told once: again only when a new capture has something else to say.
    const note = snap.note && !this.told.has(snap.note) ? snap.note : undefined;
    if (note) this.told.add(note);
    return { argv: ["/bin/bash", "-c", command], env, ...(note ? { note } : {}) };
  }

  close(): void {
    for (const snap of this.snapshots.values()) if (snap.path) rmSync(snap.path, { force: true });
    this.snapshots.clear();
  }

  private capture(key: string, base: { cwd: string; env: Record<string, string>; placement: string; capture: CaptureRunner }): Promise<Snapshot> {
    const id = `${base.placement}\0${key}`;
    let p = this.pending.get(id);
    if (!p) {
      p = this.captureNow(key, base).finally(() => this.pending.delete(id));
      this.pending.set(id, p);
    }
    return p;
  }

  private async captureNow(key: string, base: { cwd: string; env: Record<string, string>; placement: string; capture: CaptureRunner }): Promise<Snapshot> {
    const mark = `__SCV_LOGIN_${randomHex(8)}__`;
    let result: RunResult | undefined;
    let failure: string | undefined;
    try {
      result = await base.capture({
        argv: ["/bin/bash", "-lc", dumpScript(mark)],
        cwd: base.cwd,
        env: base.env,
        stdin: "null",
        timeoutMs: this.timeoutMs,
        captureBytes: 8 * 1024 * 1024,
      });
    } catch (e) {
      failure = e instanceof Error ? e.message : String(e);
    }
    const old = this.snapshots.get(base.placement);
    if (old?.path) rmSync(old.path, { force: true });
    const parsed = result ? parseDump(result.stdout.text, mark) : undefined;
    let snap: Snapshot;
    if (!result || !parsed || result.stdout.truncated) {
      const why = failure ?? (result?.timedOut ? `did not finish within ${this.timeoutMs / 1000} s` : result?.stdout.truncated ? "printed more than 8 MiB" : `ended (exit ${result?.exitCode ?? result?.signal}) before it printed its environment`);
      snap = { key, note: `your login profile (bash -l) ${why}; commands run in a plain bash -c without it until a profile file changes` };
    } else {
      const text = snapshotText(parsed, base.env, this.opts.exclude);
      const path = join(this.dir, `${randomHex(8)}.sh`);
      snap = { key, path, text };
      const printed = Buffer.byteLength(parsed.printed) + (result.stderr.totalBytes ?? 0);
      if (printed > 0) snap.note = `your login profile (bash -l) printed ${printed} bytes, left out of command output (commands run with a snapshot of its environment)`;
      this.sweep();
    }
    this.snapshots.set(base.placement, snap);
    return snap;
  }

  /** True when the snapshot file holds what was captured (written again when removed or changed). */
  private ensureWritten(snap: Snapshot): boolean {
    try {
      const st = statSync(snap.path!);
      if (snap.written && st.size === snap.written.size && st.mtimeMs === snap.written.mtimeMs) return true;
    } catch {
      // missing: written below
    }
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      const tmp = `${snap.path}.${randomHex(4)}.tmp`;
      writeFileSync(tmp, snap.text!, { mode: 0o600 });
      renameSync(tmp, snap.path!);
      const st = statSync(snap.path!);
      snap.written = { size: st.size, mtimeMs: st.mtimeMs };
      return true;
    } catch {
      return false; // the command runs without the profile rather than not at all
    }
  }

  /** Removes snapshots that sessions killed before closing left behind. */
  private sweep(): void {
    try {
      const now = Date.now();
      for (const name of readdirSync(this.dir)) {
        const p = join(this.dir, name);
        if (now - statSync(p).mtimeMs > STALE_MS) rmSync(p, { force: true });
      }
    } catch {
      // no folder yet, or a file went while we looked
    }
  }
}

/** The login shell's script: a marker (what the profile printed comes before it), the variables, then the code. */
function dumpScript(mark: string): string {
  return [
    `printf '\\n%s\\n' '${mark}'`,
    `for __scv_n in $(compgen -e); do printf '%s=%s\\0' "$__scv_n" "\${!__scv_n}"; done`,
    `printf '\\n%s\\n' '${mark}'`,
    "alias -p",
    "declare -f",
    "shopt -p expand_aliases",
  ].join("\n");
}

interface Dump {
  printed: string;
  vars: Map<string, string>;
  code: string;
}

function parseDump(out: string, mark: string): Dump | undefined {
  const first = out.indexOf(`\n${mark}\n`);
  if (first < 0) return undefined;
  const rest = out.slice(first + mark.length + 2);
  const second = rest.indexOf(`\n${mark}\n`);
  if (second < 0) return undefined;
  const vars = new Map<string, string>();
  for (const entry of rest.slice(0, second).split("\0")) {
    const eq = entry.indexOf("=");
    if (eq > 0) vars.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return { printed: out.slice(0, first), vars, code: rest.slice(second + mark.length + 2) };
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The snapshot file: what the login shell changed in the environment, then its aliases and functions. */
export function snapshotText(dump: Dump, started: Record<string, string>, exclude: readonly string[]): string {
  const lines = ["# SCV: the login shell's environment (bash -l), read through BASH_ENV by each command", "unset BASH_ENV"];
  const skip = (name: string) => NEVER.has(name) || exclude.includes(name) || name.startsWith("BASH_FUNC_");
  for (const [name, value] of dump.vars) {
    if (!NAME.test(name) || skip(name) || started[name] === value || findSecretShape(value)) continue;
    lines.push(`export ${name}=${quote(value)}`);
  }
  for (const name of Object.keys(started)) if (!dump.vars.has(name) && !skip(name) && NAME.test(name)) lines.push(`unset ${name}`);
  lines.push(dump.code);
  return `${lines.join("\n")}\n`;
}

/** Size, mtime and inode of every profile file (or its absence): a change means a new capture. */
export function profilesKey(home: string): string {
  const parts: string[] = [];
  for (const p of [...SYSTEM_PROFILES, ...USER_PROFILES.map((n) => join(home, n))]) {
    try {
      const st = statSync(p);
      parts.push(`${st.ino}:${st.size}:${st.mtimeMs}`);
    } catch {
      parts.push("-");
    }
  }
  return parts.join("|");
}
