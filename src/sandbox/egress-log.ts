// Reading the egress proxy's log ($SCV_HOME/state/sandbox-network.jsonl) for `scv sandbox log`.
import { readFileSync } from "node:fs";
import { egressLogFile, type EgressEntry } from "./egress-proxy";

/** The entries at or after `since` (ms since the epoch), oldest first; a missing log has none. */
export function readEgressLog(scvHome: string, since = 0): EgressEntry[] {
  let text: string;
  try {
    text = readFileSync(egressLogFile(scvHome), "utf8");
  } catch {
    return [];
  }
  const out: EgressEntry[] = [];
  for (const line of text.split("\n")) {
    if (!line) continue;
    try {
      const e = JSON.parse(line) as EgressEntry;
      if (Date.parse(e.time) >= since) out.push(e);
    } catch {
      // a line cut short by a crash
    }
  }
  return out;
}
