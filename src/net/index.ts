// The network concern's public surface: the SSRF-guarded connector for every request SCV makes on a model's
// behalf (web_fetch now; MCP HTTP and callbacks later), and the options a session derives for it.
import type { Config } from "../config/schema";
import type { ConnectorOptions } from "./fetch";
import { bareHost } from "./policy";
import type { LookupFn } from "./resolver";

export type { ConnectorOptions, GuardedRequest, GuardedResponse } from "./fetch";
export type { HtmlText } from "./html-text";
export { linksFor } from "./links";
export type { Page } from "./page";

// The page reader, with the connector and the HTML reader under it, loads at the first fetch: a session
// offering web_fetch would otherwise load them between a nested SCV child's spawn and its first model request.
export const fetchPage = async (...args: Parameters<typeof import("./page")["fetchPage"]>) => (await import("./page")).fetchPage(...args);
export { bareHost, classifyAddress, NetError, parseTargetUrl, type AddressVerdict } from "./policy";
export { resolveChecked, systemLookup, type AddressPolicy, type CheckedTarget, type LookupFn, type ResolvedAddress } from "./resolver";

/**
 * What in-process code (tests) may put in `scope.services.net` to steer the connector without any global
 * switch: a fake resolver, a narrow address exception for its own loopback server, its own CA, and the
 * Brave endpoint of a fake server. Production sessions leave it unset.
 */
export interface NetOverrides {
  lookup?: LookupFn;
  allow?: (address: string, port: number) => boolean;
  tls?: { ca?: string | string[] };
  braveEndpoint?: string;
}

/** Everything a web tool needs to make requests, from config plus optional overrides. */
export interface NetOptions extends ConnectorOptions {
  /** web.fetch_max_bytes: the most body bytes read (after decompression). */
  maxBytes: number;
  braveEndpoint?: string;
}

export interface NetScope {
  config: Config;
  version: string;
  services: { net?: NetOverrides };
}

export function netOptions(scope: NetScope): NetOptions {
  const web = scope.config.web;
  const overrides = scope.services.net ?? {};
  return {
    allowPrivate: web.allow_private_addresses,
    allow: overrides.allow,
    lookup: overrides.lookup,
    tls: overrides.tls,
    braveEndpoint: overrides.braveEndpoint,
    userAgent: `scv/${scope.version}`,
    timeoutMs: web.fetch_timeout_seconds * 1000,
    maxRedirects: web.max_redirects,
    maxBytes: web.fetch_max_bytes,
  };
}

/** Host names in web.auto_approve_domains, normalised the way `new URL()` normalises a host. */
export function autoApproveHosts(config: Config): Set<string> {
  const hosts = new Set<string>();
  for (const entry of config.web.auto_approve_domains) {
    try {
      const text = entry.trim();
      const url = new URL(text.includes("://") ? text : `https://${text}/`);
      hosts.add(bareHost(url)); // the form web_fetch compares: no brackets, no trailing dot
    } catch {
      // An entry that is no host name can match nothing.
    }
  }
  return hosts;
}
