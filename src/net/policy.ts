// The URL and address policy for every outbound request SCV makes on a model's behalf. A URL is judged by
// the host `new URL()` produces (it already canonicalises 0x7f.1, 2130706433, full-width digits, ...), and
// an address by ipaddr.js ranges plus the IPv6 forms that embed an IPv4 address, which ipaddr.js either
// reports as plain "unicast" (IPv4-compatible ::a.b.c.d) or names without looking inside (NAT64, 6to4, Teredo).
import type ipaddr from "ipaddr.js";

/**
 * node:net's isIP and ipaddr.js, loaded at the first address check: node:net brings Node's stream machinery
 * with it (about 3 ms), and running ipaddr.js's module body about half a millisecond, of a start-up that a
 * session offering web_fetch would otherwise pay before its first model request.
 */
let netIsIP: ((input: string) => number) | undefined;
const isIP = (input: string): number => (netIsIP ??= (require("node:net") as typeof import("node:net")).isIP)(input);
let ipaddrLib: typeof ipaddr | undefined;
const ip = (): typeof ipaddr => (ipaddrLib ??= require("ipaddr.js") as typeof ipaddr);

/** A request refused by policy or failed by the connector; the message is meant for the model and the user. */
export class NetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "NetError";
  }
}

/** Parses and checks a URL: http/https only, no userinfo. Relative URLs resolve against `base`. */
export function parseTargetUrl(raw: string | URL, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw new NetError(`"${String(raw).slice(0, 200)}" is not a valid URL; give an absolute http:// or https:// URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new NetError(`${url.protocol.slice(0, -1)}: URLs are refused; only http:// and https:// URLs can be fetched`);
  }
  if (url.username || url.password) {
    throw new NetError("URLs with embedded credentials (user:password@host) are refused; remove them from the URL");
  }
  if (!url.hostname) throw new NetError(`"${url.href}" has no host`);
  return url;
}

/** The host as a bare name or address: brackets removed, trailing dot removed, lowercase (IDNA already applied). */
export function bareHost(url: URL): string {
  let host = url.hostname;
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  if (host.endsWith(".")) host = host.slice(0, -1);
  return host.toLowerCase();
}

/** The TCP port the URL names or implies. */
export function portOf(url: URL): number {
  if (url.port) return Number(url.port);
  return url.protocol === "https:" ? 443 : 80;
}

/** The IP literal a URL's host is, or undefined for a name. Only canonical forms count (new URL made them so). */
export function ipLiteral(url: URL): string | undefined {
  const host = bareHost(url);
  return isIP(host) ? host : undefined;
}

export type AddressVerdict = { allowed: true } | { allowed: false; range: string };

/**
 * Classifies one address (canonical dotted IPv4 or IPv6 text). Anything ipaddr.js names other than "unicast"
 * is refused, IPv6 outside global unicast 2000::/3 is refused, and embedded IPv4 addresses are judged as IPv4.
 */
export function classifyAddress(address: string): AddressVerdict {
  const bare = address.replace(/^\[|\]$/g, "");
  const kind = isIP(bare.replace(/%.*$/, ""));
  if (kind === 4) return classifyV4(ip().IPv4.parse(bare));
  if (kind === 6) return classifyV6(ip().IPv6.parse(canonicalV6(bare)));
  return { allowed: false, range: "not an IP address" };
}

/**
 * IPv6 text in the URL standard's form (hex groups only). ipaddr.js reads a dotted tail as IPv4-mapped
 * whatever precedes it, so `::8.8.4.4` (IPv4-compatible, as getaddrinfo prints ::/96) would be judged as
 * `::ffff:8.8.4.4`. A zone id (`%eth0`), which URLs do not allow, is kept aside.
 */
function canonicalV6(text: string): string {
  const zone = text.indexOf("%");
  const address = zone < 0 ? text : text.slice(0, zone);
  if (!address.includes(".")) return text;
  const host = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  return zone < 0 ? host : host + text.slice(zone);
}

function classifyV4(addr: ipaddr.IPv4): AddressVerdict {
  const range = addr.range();
  return range === "unicast" ? { allowed: true } : { allowed: false, range: describeV4(range) };
}

function describeV4(range: string): string {
  if (range === "carrierGradeNat") return "shared address space (CGNAT 100.64.0.0/10)";
  if (range === "linkLocal") return "link-local (169.254.0.0/16, includes cloud metadata)";
  if (range === "reserved") return "reserved, documentation or benchmarking";
  return range;
}

function classifyV6(addr: ipaddr.IPv6): AddressVerdict {
  const parts = addr.parts; // eight 16-bit groups
  const range = addr.range();
  const embedded = (hi: number, lo: number, label: string): AddressVerdict => {
    const inner = classifyV4(v4From(hi, lo));
    return inner.allowed ? inner : { allowed: false, range: `${label} embedding ${v4From(hi, lo)} (${inner.range})` };
  };
  switch (range) {
    case "ipv4Mapped": // ::ffff:a.b.c.d
      return embedded(parts[6]!, parts[7]!, "IPv4-mapped");
    case "rfc6052":
      // 64:ff9b::/96 carries the IPv4 address in the last 32 bits. 64:ff9b:1::/48 is the local-use NAT64
      // prefix: sites choose where the IPv4 bits sit, and it only exists inside private networks.
      if (parts[1] === 0xff9b && parts[2] === 0 && parts[3] === 0 && parts[4] === 0 && parts[5] === 0) {
        return embedded(parts[6]!, parts[7]!, "NAT64");
      }
      return { allowed: false, range: "local-use NAT64 (64:ff9b:1::/48)" };
    case "6to4": // 2002:AABB:CCDD::/48
      return embedded(parts[1]!, parts[2]!, "6to4");
    case "teredo": {
      // 2001:0:SSSS:SSSS:flags:port:CCCC:CCCC: server in clear, client inverted.
      const server = embedded(parts[2]!, parts[3]!, "Teredo server");
      if (!server.allowed) return server;
      return embedded(parts[6]! ^ 0xffff, parts[7]! ^ 0xffff, "Teredo client");
    }
    case "unicast":
      break;
    default:
      return { allowed: false, range: describeV6(range) };
  }
  // ipaddr.js calls the deprecated IPv4-compatible ::a.b.c.d (::/96) "unicast"; it has no legitimate public use.
  if (parts.slice(0, 6).every((p) => p === 0)) {
    return { allowed: false, range: `IPv4-compatible (::/96, embeds ${v4From(parts[6]!, parts[7]!)})` };
  }
  // Everything outside 2000::/3 that ipaddr.js does not name is unallocated or special-purpose.
  if ((parts[0]! & 0xe000) !== 0x2000) return { allowed: false, range: "reserved (outside global unicast 2000::/3)" };
  return { allowed: true };
}

function describeV6(range: string): string {
  if (range === "uniqueLocal") return "unique-local (fc00::/7)";
  if (range === "linkLocal") return "link-local (fe80::/10)";
  if (range === "deprecatedSiteLocal") return "site-local (fec0::/10)";
  if (range === "rfc6145") return "IPv4-translated (::ffff:0:0:0/96)";
  return range;
}

function v4From(hi: number, lo: number): ipaddr.IPv4 {
  return new (ip().IPv4)([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}
