// Hosts a person allowed from a refusal's card "always" ($SCV_HOME/state/sandbox-network-grants.json): for one
// workspace, or for every workspace. They join `[sandbox.network] allow` when the settings are made (settings.ts);
// the model cannot write them (SCV's home is hidden from sandboxed commands).
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** Workspace path (or `*` for every workspace) → patterns (`host:port`). */
type Grants = Record<string, string[]>;

const grantsFile = (scvHome: string) => join(scvHome, "state", "sandbox-network-grants.json");

function readGrants(scvHome: string): Grants {
  try {
    const g = JSON.parse(readFileSync(grantsFile(scvHome), "utf8")) as Grants;
    return g && typeof g === "object" ? g : {};
  } catch {
    return {};
  }
}

/** The patterns granted for `workspace` (its own and every workspace's). */
export function grantedPatterns(scvHome: string, workspace: string): string[] {
  const g = readGrants(scvHome);
  const list = (k: string) => (Array.isArray(g[k]) ? g[k]!.filter((p) => typeof p === "string") : []);
  return [...new Set([...list(workspace), ...list("*")])];
}

/** Keeps `pattern` for `workspace`, or for every workspace with `*`. */
export function addNetworkGrant(scvHome: string, workspace: string, pattern: string): void {
  const g = readGrants(scvHome);
  g[workspace] = [...new Set([...(g[workspace] ?? []), pattern])];
  const file = grantsFile(scvHome);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(g, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
}
