// `[sandbox]` (user config only) resolved for one workspace: the mode, what stays hidden, what else is writable.
import { existsSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { userHome } from "../user-home";
import { otherPaths } from "./identity";
import { grantedPatterns } from "./egress-grants";
import { egressRules, parsePattern, type EgressRules, type NetworkTable } from "./egress-rules";
import type { SandboxMode, SandboxSettings } from "./policy";

export interface SandboxConfig {
  mode: SandboxMode | "off";
  writable_roots: string[];
  hidden_paths: string[];
  /** true: every host; false: none; a table: the hosts it allows, through SCV's egress proxy. */
  network: boolean | NetworkTable;
  auto_run: boolean | "always";
  required: boolean;
  allow_unix_sockets: string[];
}

/** Under the home: credentials, sign-ins of the delegated agents, shell histories. */
const HOME_HIDDEN = [
  ".ssh", ".gnupg", ".aws", ".azure", ".config/gcloud", ".kube", ".docker/config.json", ".netrc", ".npmrc", ".pypirc",
  ".git-credentials", ".config/gh", ".codex/auth.json", ".claude/.credentials.json", ".claude.json", ".grok", ".pi/agent/auth.json",
  ".dsh", ".config/dsh", ".bash_history", ".zsh_history", ".history", ".sh_history", ".python_history", ".node_repl_history",
  ".psql_history", ".mysql_history", ".sqlite_history", ".lesshst", ".local/share/fish/fish_history", ".vault-token",
  ".cargo/credentials.toml", ".cargo/credentials", ".local/share/keyrings", ".password-store", ".config/containers/auth.json",
  // Browser profiles: cookies and saved logins.
  ".mozilla", ".config/google-chrome", ".config/chromium", ".config/BraveSoftware", ".config/microsoft-edge", ".config/vivaldi",
  ".config/opera", "snap/firefox", "snap/chromium", ".var/app/org.mozilla.firefox", ".var/app/com.google.Chrome", ".var/app/org.chromium.Chromium",
  // Rootless container engines' sockets (outside the runtime directory).
  ".docker/run", ".local/share/containers/podman",
];
/** Outside the home: the machine's password hashes and the sockets that would let root run anything. */
const SYSTEM_HIDDEN = [
  "/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/sudoers.d", "/run/docker.sock", "/var/run/docker.sock",
  "/run/containerd/containerd.sock", "/run/podman/podman.sock", "/run/dbus/system_bus_socket", "/run/systemd/private",
  // Service-account tokens and mounted secrets (Kubernetes, Docker secrets).
  "/run/secrets", "/var/run/secrets",
];

/**
 * The hidden paths every sandbox keeps, plus SSH_AUTH_SOCK when set and the user's runtime directory
 * (XDG_RUNTIME_DIR, else /run/user/UID): the session bus, systemd's private socket, rootless Docker and Podman.
 */
export function defaultHiddenPaths(home: string, scvHome: string, env: Readonly<Record<string, string | undefined>>): string[] {
  const out = [scvHome, ...HOME_HIDDEN.map((p) => join(home, p)), ...SYSTEM_HIDDEN];
  if (env.SSH_AUTH_SOCK?.startsWith("/")) out.push(env.SSH_AUTH_SOCK);
  const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
  out.push(env.XDG_RUNTIME_DIR?.startsWith("/") ? env.XDG_RUNTIME_DIR : `/run/user/${uid ?? 0}`);
  if (env.DBUS_SESSION_BUS_ADDRESS) for (const m of env.DBUS_SESSION_BUS_ADDRESS.matchAll(/unix:path=([^,;]+)/g)) out.push(m[1]!);
  return out;
}

/** The rules with the hosts a person allowed "always" from a refusal's card (egress-grants.ts). */
function withGrants(rules: EgressRules, scvHome: string, workspace: string): EgressRules {
  const granted = grantedPatterns(scvHome, workspace).flatMap((p) => {
    try {
      return [{ ...parsePattern(p), text: `${p} (granted)` }];
    } catch {
      return []; // a hand-edited entry that is no pattern grants nothing
    }
  });
  return granted.length ? { ...rules, allow: [...rules.allow, ...granted] } : rules;
}

/** A path and, when it is a symlink or lies under one, where it really is (both are hidden or writable). */
function withRealPath(p: string): string[] {
  // Most listed paths do not exist on a given machine: a failed realpath's exception costs more than this check.
  if (!existsSync(p)) return [p];
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
  const named = [...new Set([...defaultHiddenPaths(ctx.home, ctx.scvHome, ctx.env), ...config.hidden_paths].flatMap(withRealPath))];
  // Hidden by identity: the same folders seen through another mount are hidden too (identity.ts). Only for those
  // that exist (a handful of the ~60): a missing path has no other name to be reached by, and the search runs at
  // every session's start, before the JIT has warmed up.
  const hidden = [...named, ...otherPaths(named.filter((p) => existsSync(p)))];
  const workspace = withRealPath(ctx.workspace).at(-1)!;
  return {
    mode: config.mode,
    workspace,
    writableRoots: config.writable_roots.flatMap(withRealPath),
    hidden,
    network: config.network === true,
    ...(typeof config.network === "object" ? { egress: withGrants(egressRules(config.network), ctx.scvHome, workspace) } : {}),
    autoRun: config.auto_run !== false,
    ...(config.auto_run === "always" ? { autoRunPartial: true } : {}),
    required: config.required,
    allowUnixSockets: config.allow_unix_sockets,
    home: withRealPath(ctx.home).at(-1)!,
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

/** A parent SCV's sandbox as it sends it to a nested SCV (session.start's `sandbox_ceiling`). */
export interface SandboxCeiling {
  mode: SandboxMode;
  network: boolean;
  auto_run: boolean | "always";
  required: boolean;
  writable_roots: string[];
  hidden_paths: string[];
  allow_unix_sockets: string[];
}

/** What a nested SCV sends its child: this session's sandbox, every hidden path resolved (the child's home is another). */
export function ceilingOf(settings: SandboxSettings): SandboxCeiling {
  return {
    mode: settings.mode,
    network: settings.network,
    auto_run: settings.autoRunPartial ? "always" : settings.autoRun,
    required: settings.required,
    writable_roots: settings.writableRoots,
    hidden_paths: settings.hidden,
    allow_unix_sockets: settings.allowUnixSockets ?? [],
  };
}

/** `config` made at most as open as `ceiling`: a nested SCV is never more permissive than its parent. */
export function underCeiling(config: SandboxConfig, ceiling: SandboxCeiling): SandboxConfig {
  const autoRun = config.auto_run === false || ceiling.auto_run === false ? false : config.auto_run === "always" && ceiling.auto_run === "always" ? "always" : true;
  return {
    mode: config.mode === "read-only" || ceiling.mode === "read-only" ? "read-only" : ceiling.mode,
    // A parent without the network gives none; a parent with every host lets the child's own choice stand.
    network: ceiling.network ? config.network : false,
    auto_run: autoRun,
    required: config.required || ceiling.required,
    writable_roots: config.writable_roots.filter((r) => ceiling.writable_roots.includes(r)),
    hidden_paths: [...new Set([...config.hidden_paths, ...ceiling.hidden_paths])],
    allow_unix_sockets: config.allow_unix_sockets.filter((s) => ceiling.allow_unix_sockets.includes(s)),
  };
}
