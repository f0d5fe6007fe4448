// `[sandbox]` (user config only) resolved for one workspace: the mode, what stays hidden, what else is writable.
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { userHome } from "../user-home";
import type { SandboxMode, SandboxSettings } from "./policy";

export interface SandboxConfig {
  mode: SandboxMode | "off";
  writable_roots: string[];
  hidden_paths: string[];
  network: boolean;
  auto_run: boolean;
  required: boolean;
}

/** Under the home: credentials, sign-ins of the delegated agents, shell histories. */
const HOME_HIDDEN = [
  ".ssh", ".gnupg", ".aws", ".azure", ".config/gcloud", ".kube", ".docker/config.json", ".netrc", ".npmrc", ".pypirc",
  ".git-credentials", ".config/gh", ".codex/auth.json", ".claude/.credentials.json", ".claude.json", ".grok", ".pi/agent/auth.json",
  ".dsh", ".config/dsh", ".bash_history", ".zsh_history", ".history", ".sh_history", ".python_history", ".node_repl_history",
  ".psql_history", ".mysql_history", ".sqlite_history", ".lesshst", ".local/share/fish/fish_history", ".vault-token",
];
/** Outside the home: the machine's password hashes and the sockets that would let root run anything. */
const SYSTEM_HIDDEN = [
  "/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/sudoers.d", "/run/docker.sock", "/var/run/docker.sock",
  "/run/containerd/containerd.sock", "/run/podman/podman.sock", "/run/dbus/system_bus_socket", "/run/systemd/private",
];

/** The hidden paths every sandbox keeps, plus SSH_AUTH_SOCK when set. */
export function defaultHiddenPaths(home: string, scvHome: string, env: Readonly<Record<string, string | undefined>>): string[] {
  const out = [scvHome, ...HOME_HIDDEN.map((p) => join(home, p)), ...SYSTEM_HIDDEN];
  if (env.SSH_AUTH_SOCK?.startsWith("/")) out.push(env.SSH_AUTH_SOCK);
  return out;
}

/** A path and, when it is a symlink or lies under one, where it really is (both are hidden or writable). */
function withRealPath(p: string): string[] {
  try {
    const real = realpathSync(p);
    return real === p ? [p] : [p, real];
  } catch {
    return [p];
  }
}

/** The settings for `workspace`, or undefined when the user turned the sandbox off. */
export function sandboxSettings(
  config: SandboxConfig,
  ctx: { workspace: string; home: string; scvHome: string; env: Readonly<Record<string, string | undefined>> },
): SandboxSettings | undefined {
  if (config.mode === "off") return undefined;
  const hidden = [...defaultHiddenPaths(ctx.home, ctx.scvHome, ctx.env), ...config.hidden_paths].flatMap(withRealPath);
  return {
    mode: config.mode,
    workspace: withRealPath(ctx.workspace).at(-1)!,
    writableRoots: config.writable_roots.flatMap(withRealPath),
    hidden: [...new Set(hidden)],
    network: config.network,
    autoRun: config.auto_run,
    required: config.required,
    scvHome: ctx.scvHome,
  };
}

/** sandboxSettings for a session or command line: the home from the environment it runs with. */
export function sandboxSettingsIn(
  config: SandboxConfig,
  ctx: { workspace: string; scvHome: string; env: Readonly<Record<string, string | undefined>> },
): SandboxSettings | undefined {
  return sandboxSettings(config, { ...ctx, home: ctx.env.HOME || userHome(ctx.env) });
}
