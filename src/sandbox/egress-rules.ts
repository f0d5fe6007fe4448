// `[sandbox.network]`: which hosts a sandboxed command may reach through SCV's egress proxy (egress-proxy.ts).
// Patterns are `host`, `*.domain` (its subdomains, not the domain itself), `*` (every public host), an IP
// address, each with an optional `:port`; deny wins over allow; presets name the hosts of the common package
// registries and forges. Pure: parsing and matching only, so config validation and the proxy say the same thing.
import { NETWORK_PRESETS, parsePatternText, type NetworkTable } from "../config/sandbox-network";
import { classifyAddress } from "../net";

export { NETWORK_PRESETS, type NetworkTable };

export interface HostPattern {
  /** As written (for messages). */
  text: string;
  /** A lowercase name, an IP address, `*`, or `*.domain`. */
  host: string;
  /** Undefined: any port. */
  port?: number;
  /** An IP address in a range the proxy otherwise refuses (private, loopback, link-local, CGNAT). */
  privateLiteral?: boolean;
  /** The preset it came from. */
  preset?: string;
}

export interface EgressRules {
  allow: HostPattern[];
  deny: HostPattern[];
  presets: string[];
  readOnly: boolean;
  hostsFile?: string;
}

/** A pattern parsed (config/sandbox-network.ts checks the syntax) and, for an IP address, judged by src/net. */
export function parsePattern(text: string): HostPattern {
  const p = parsePatternText(text);
  if (!p.literal) return { text, host: p.host, ...(p.port === undefined ? {} : { port: p.port }) };
  const verdict = classifyAddress(p.host);
  return { text, host: p.host, ...(p.port === undefined ? {} : { port: p.port }), ...(verdict.allowed ? {} : { privateLiteral: true }) };
}

/** The rules from the table; throws naming the key and the fix (the config schema reports it). */
export function egressRules(table: NetworkTable): EgressRules {
  const at = (key: string, list: string[]) =>
    list.map((p) => {
      try {
        return parsePattern(p);
      } catch (e) {
        throw new Error(`[sandbox.network] ${key}: ${(e as Error).message}`);
      }
    });
  const allow = at("allow", table.allow);
  const deny = at("deny", table.deny);
  for (const p of table.presets) {
    if (!NETWORK_PRESETS[p]) throw new Error(`[sandbox.network] presets: "${p}" is not a preset; use any of ${Object.keys(NETWORK_PRESETS).join(", ")}`);
    allow.push(...NETWORK_PRESETS[p]!.map((h) => ({ ...parsePattern(h), text: `${h} (preset ${p})`, preset: p })));
  }
  // A private address counts only with allow_private (the config refuses one without it; this is the proxy's own say).
  if (!table.allow_private) for (const p of allow) delete p.privateLiteral;
  return { allow, deny, presets: table.presets, readOnly: table.mode === "read", ...(table.hosts_file ? { hostsFile: table.hosts_file } : {}) };
}

function matches(p: HostPattern, host: string, port: number): boolean {
  if (p.port !== undefined && p.port !== port) return false;
  if (p.host === "*") return true;
  if (p.host.startsWith("*.")) return host.endsWith(p.host.slice(1));
  return p.host === host;
}

export type HostVerdict = { allowed: true; by: string } | { allowed: false; reason: string };

/** Whether `host:port` (a lowercase name or canonical address) may be reached: deny wins, then allow. */
export function judgeHost(rules: EgressRules, host: string, port: number): HostVerdict {
  const denied = rules.deny.find((p) => matches(p, host, port));
  if (denied) return { allowed: false, reason: `denied by [sandbox.network] deny "${denied.text}"` };
  const allowed = rules.allow.find((p) => matches(p, host, port));
  if (allowed) return { allowed: true, by: allowed.text };
  return { allowed: false, reason: "not in [sandbox.network] allow or its presets" };
}

/** A resolved address the user listed literally (with allow_private): the proxy connects to it although private. */
export function listedAddress(rules: EgressRules, address: string, port: number): boolean {
  return rules.allow.some((p) => p.privateLiteral && p.host === address && (p.port === undefined || p.port === port));
}

/** The methods `mode = "read"` lets through on plain HTTP. */
export const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
