// The checking resolver: a host is resolved once, every address it returns is checked, and the caller
// connects only to the checked addresses, so a name cannot be rebound between the check and the connect.
import { bareHost, classifyAddress, ipLiteral, NetError, portOf } from "./policy";

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to all its addresses; tests inject one so no real DNS is asked. */
export type LookupFn = (hostname: string) => Promise<ResolvedAddress[]>;

export interface AddressPolicy {
  /** web.allow_private_addresses: lifts the address check entirely (user-only setting). */
  allowPrivate?: boolean;
  /** A narrow exception, used by tests to admit exactly their own loopback server's port. */
  allow?: (address: string, port: number) => boolean;
  lookup?: LookupFn;
}

/** A host whose addresses passed the check; connect only to these. */
export interface CheckedTarget {
  host: string;
  port: number;
  addresses: string[];
}

export const systemLookup: LookupFn = async (hostname) => {
  // node:dns loads at the first lookup: loading it costs a nested SCV child about half a millisecond of start-up.
  const { promises: dns } = await import("node:dns");
  const found = await dns.lookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** Resolves and checks the URL's host. Throws NetError naming the refused address or the DNS failure. */
export async function resolveChecked(url: URL, policy: AddressPolicy): Promise<CheckedTarget> {
  const host = bareHost(url);
  const port = portOf(url);
  const literal = ipLiteral(url);
  let addresses: string[];
  if (literal) {
    addresses = [literal];
  } else {
    let found: ResolvedAddress[];
    try {
      found = await (policy.lookup ?? systemLookup)(host);
    } catch (e) {
      // Fail closed: no answer means no connection.
      const code = (e as { code?: string }).code;
      throw new NetError(`could not resolve ${host}${code ? ` (${code})` : ""}; check the host name`);
    }
    addresses = [...new Set(found.map((a) => a.address))];
    if (addresses.length === 0) throw new NetError(`could not resolve ${host}: no addresses`);
  }
  if (!policy.allowPrivate) {
    for (const address of addresses) {
      if (policy.allow?.(address, port)) continue;
      const verdict = classifyAddress(address);
      if (!verdict.allowed) {
        const via = literal ? "" : `${host} resolves to `;
        throw new NetError(
          `refused: ${via}${address}, a ${verdict.range} address; only public addresses can be fetched` +
            " (web.allow_private_addresses lifts this)",
        );
      }
    }
  }
  return { host, port, addresses };
}
