// What a sandbox actually enforces on this machine, in words: shown by doctor, status, the approval card and once
// per session where something is missing. Never more than the launcher applies (launcher.ts, mounts.ts).
import type { SandboxMode, SandboxSupport } from "./policy";

export interface Enforcement {
  /** Something can be enforced at all (Landlock or namespaces). */
  available: boolean;
  mode: SandboxMode;
  landlockAbi: number;
  enforced: string[];
  /** Parts of the policy this kernel cannot enforce. */
  missing: string[];
  /** A private mount and network namespace (`.git`'s data writable for git alone, sockets hidden by path). */
  namespaces: boolean;
  /**
   * Writes, the network and signals all enforced (Landlock ABI 6 or later and namespaces): only then does
   * `auto_run` let a command run unasked, unless the user chose `auto_run = "always"`.
   */
  whole: boolean;
  /** One line: `workspace-write (Landlock ABI 7, namespaces)`, or why nothing is enforced. */
  summary: string;
}

export function describeEnforcement(settings: { mode: SandboxMode; network: boolean; egress?: unknown }, support: SandboxSupport): Enforcement {
  const abi = support.landlockAbi;
  const ns = support.namespaces;
  const enforced: string[] = [];
  const missing: string[] = [];
  if (abi) {
    enforced.push(settings.mode === "workspace-write" ? "writes only in the workspace, its private temporary directory and writable_roots" : "writes only in its private temporary directory");
    enforced.push("hidden paths neither readable nor writable");
    if (abi < 3) missing.push("truncating files outside the writable places (Landlock ABI 3)");
  } else {
    missing.push("file access rules (no Landlock on this kernel): writes outside the workspace and reads of hidden paths are not blocked");
  }
  if (ns) {
    enforced.push(".git and .scv read-only", "/tmp is the command's private directory", "the rest of the file system read-only (even to root)");
    enforced.push("the host's Unix sockets out of reach by path (except [sandbox] allow_unix_sockets)");
    if (!settings.network && settings.egress) enforced.push("the network only through SCV's proxy, to the hosts [sandbox.network] allows (a network namespace; the proxy resolves and checks every address)");
    else if (!settings.network) enforced.push("no network at all (a network namespace: TCP, UDP, IPv4, IPv6, loopback)");
  } else {
    if (abi && settings.mode === "workspace-write") enforced.push(".git and .scv read-only (without a mount namespace new entries at the workspace's top level cannot be created either)");
    missing.push(`a private /tmp (the command's TMPDIR is private; /tmp is ${abi ? "not writable" : "shared"})`);
    if (!settings.network) {
      if (abi >= 4) {
        enforced.push("no TCP (Landlock)");
        missing.push("blocking UDP and Unix sockets by path (needs a network and mount namespace)");
      } else missing.push("blocking the network (needs Landlock ABI 4 or a network namespace)");
    }
    if (settings.egress && !settings.network) missing.push("the [sandbox.network] proxy (it needs namespaces): commands get no network");
    missing.push(`namespaces (${support.namespacesProblem ?? "not available"})`);
  }
  if (ns && support.pidns) {
    enforced.push("its own PID namespace: what the command starts ends with it (daemons too), and no process outside is visible, signalled, reniced or limited");
  } else if (ns) {
    missing.push("a PID namespace (x86_64 only): what a command leaves running is stopped by SCV's process tracking, not by the kernel, and it can renice processes of the same user");
  }
  if (abi >= 6) enforced.push("SCV, its death watch and every process outside the sandbox out of reach of signals and abstract sockets");
  else missing.push("signal scoping (Landlock ABI 6): a sandboxed command can signal processes of the same user outside it");
  const available = abi > 0 || ns;
  const summary = available
    ? `${settings.mode} (${abi ? `Landlock ABI ${abi}` : "no Landlock"}${ns ? (support.userns ? ", namespaces in a user namespace" : ", namespaces") : ", no namespaces"}${settings.network ? ", network allowed" : settings.egress && ns ? ", network through the proxy" : ""})`
    : "no sandbox on this machine: the kernel offers neither Landlock nor namespaces";
  const whole = abi >= 6 && ns;
  return { available, mode: settings.mode, landlockAbi: abi, enforced, missing, namespaces: ns, whole, summary };
}
