// Connections a person approved with "always": per workspace (or every workspace) and server, bound to the launch's fingerprint (so
// a changed command line, URL or variable list asks again). $SCV_HOME/state/mcp-approvals.json, private.
import { join } from "node:path";
import { ensurePrivateDir, readStateJson, stateDir, writePrivateFileAtomic } from "../process/delegation-records";

interface Grant {
  workspace: string;
  server: string;
  fingerprint: string;
}

const MAX_GRANTS = 1000;
/** The workspace of a grant kept for every workspace (approval.resolve `remember: "user"`). */
export const EVERY_WORKSPACE = "*";
const fileOf = (scvHome: string) => join(stateDir(scvHome), "mcp-approvals.json");

function read(scvHome: string): Grant[] {
  try {
    const data = readStateJson(fileOf(scvHome), "MCP approvals") as { grants?: unknown };
    if (!Array.isArray(data.grants)) return [];
    return data.grants.filter(
      (g): g is Grant => !!g && typeof g === "object" && typeof g.workspace === "string" && typeof g.server === "string" && typeof g.fingerprint === "string",
    );
  } catch {
    return []; // none yet, or unreadable: the person is asked
  }
}

export function isRemembered(scvHome: string, grant: Grant): boolean {
  return read(scvHome).some((g) => (g.workspace === grant.workspace || g.workspace === EVERY_WORKSPACE) && g.server === grant.server && g.fingerprint === grant.fingerprint);
}

/** Keeps the approval; the oldest are dropped past MAX_GRANTS. Best effort: failing to keep it only means asking again. */
export function remember(scvHome: string, grant: Grant): void {
  try {
    const kept = read(scvHome).filter((g) => !(g.workspace === grant.workspace && g.server === grant.server));
    kept.push(grant);
    ensurePrivateDir(stateDir(scvHome));
    writePrivateFileAtomic(fileOf(scvHome), `${JSON.stringify({ grants: kept.slice(-MAX_GRANTS) }, null, 1)}\n`);
  } catch {
    // asked again next session
  }
}
