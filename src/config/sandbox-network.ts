// `[sandbox.network]`, the table form of `[sandbox] network` (user config only): the shape and the syntax of
// its host patterns, checked when the config loads so a mistake is a config error naming the key and the fix.
// What the patterns mean, and the proxy that applies them, live in src/sandbox (egress-rules.ts, egress-proxy.ts).
import { isIP } from "node:net";
import type { z, z as z_ } from "zod";

/** The hosts each preset opens (any port). */
export const NETWORK_PRESETS: Readonly<Record<string, readonly string[]>> = {
  npm: ["registry.npmjs.org", "registry.yarnpkg.com", "npmjs.org", "www.npmjs.com"],
  pypi: ["pypi.org", "files.pythonhosted.org", "pypi.python.org"],
  crates: ["crates.io", "index.crates.io", "static.crates.io", "static.rust-lang.org"],
  go: ["proxy.golang.org", "sum.golang.org", "index.golang.org", "golang.org", "go.dev"],
  rubygems: ["rubygems.org", "index.rubygems.org", "*.rubygems.org"],
  maven: ["repo.maven.apache.org", "repo1.maven.org", "plugins.gradle.org", "services.gradle.org", "downloads.gradle.org"],
  debian: ["deb.debian.org", "security.debian.org", "archive.ubuntu.com", "security.ubuntu.com", "ports.ubuntu.com"],
  github: ["github.com", "*.github.com", "*.githubusercontent.com", "ghcr.io", "*.ghcr.io"],
  gitlab: ["gitlab.com", "*.gitlab.com", "registry.gitlab.com"],
};

/** `[sandbox.network]` as the user wrote it. */
export interface NetworkTable {
  allow: string[];
  deny: string[];
  presets: string[];
  mode: "read" | "full";
  allow_private: boolean;
  /** Test only: a hosts file the proxy resolves names from instead of DNS (see docs/configuration.md). */
  hosts_file?: string;
}

const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;
const FIX = 'write a host name ("registry.npmjs.org"), "*.example.org" for its subdomains, "*" for every public host, an IP address, or any of these with ":port"';

/** One pattern's parts: a lowercase name, `*`, `*.domain` or an IP address, and the port; throws what is wrong. */
export function parsePatternText(text: string): { host: string; port?: number; literal: boolean } {
  const raw = text.trim().toLowerCase();
  let host = raw;
  let port: number | undefined;
  const bracketed = /^\[([0-9a-f:.]+)\](?::(\d+))?$/.exec(raw);
  if (bracketed) {
    host = bracketed[1]!;
    port = bracketed[2] === undefined ? undefined : Number(bracketed[2]);
  } else if ((raw.match(/:/g) ?? []).length === 1) {
    const at = raw.lastIndexOf(":");
    host = raw.slice(0, at);
    if (!/^\d{1,5}$/.test(raw.slice(at + 1))) throw new Error(`"${text}" has no valid port after ":"; ${FIX}`);
    port = Number(raw.slice(at + 1));
  }
  if (port !== undefined && (port < 1 || port > 65535)) throw new Error(`"${text}": the port must be 1 to 65535`);
  if (host.endsWith(".")) host = host.slice(0, -1);
  const withPort = port === undefined ? {} : { port };
  if (isIP(host)) return { host, ...withPort, literal: true };
  if (host === "*") return { host, ...withPort, literal: false };
  const name = host.startsWith("*.") ? host.slice(2) : host;
  const labels = name.split(".");
  if (!name || name.includes("*") || !labels.every((l) => LABEL.test(l))) throw new Error(`"${text}" is not a host pattern; ${FIX}`);
  if (host.startsWith("*.") && labels.length < 2) throw new Error(`"${text}" would cover a whole top-level domain; name the domain ("*.example.org")`);
  return { host, ...withPort, literal: false };
}

/** An address outside public unicast (ipaddr.js's ranges; the proxy judges with src/net's fuller check). */
function looksPrivate(address: string): boolean {
  const ipaddr = require("ipaddr.js") as typeof import("ipaddr.js");
  try {
    return ipaddr.process(address).range() !== "unicast";
  } catch {
    return true;
  }
}

const patterns = (z: typeof z_) =>
  z.array(z.string()).superRefine((list, ctx) => {
    for (const [i, p] of list.entries()) {
      try {
        parsePatternText(p);
      } catch (e) {
        ctx.addIssue({ code: "custom", path: [i], message: (e as Error).message });
      }
    }
  });

/** The table's schema; a literal private address in `allow` needs `allow_private = true`. */
export const networkTableSchema = (z: typeof z_) =>
  z
    .strictObject({
      allow: patterns(z).default([]),
      deny: patterns(z).default([]),
      presets: z.array(z.enum(Object.keys(NETWORK_PRESETS) as [string, ...string[]], { error: `must be presets from: ${Object.keys(NETWORK_PRESETS).join(", ")}` })).default([]),
      mode: z.enum(["read", "full"], { error: 'must be "read" (only GET, HEAD and OPTIONS on plain HTTP) or "full"' }).default("full"),
      allow_private: z.boolean({ error: "must be true or false" }).default(false),
      hosts_file: z.string().refine((p) => p.startsWith("/"), "must be an absolute path").optional(),
    })
    .superRefine((t, ctx) => {
      if (t.allow_private) return;
      for (const [i, p] of t.allow.entries()) {
        let parsed;
        try {
          parsed = parsePatternText(p);
        } catch {
          continue; // reported above
        }
        if (parsed.literal && looksPrivate(parsed.host)) {
          ctx.addIssue({
            code: "custom",
            path: ["allow", i],
            message: `"${p}" is a private, loopback or link-local address, which the proxy refuses; set [sandbox.network] allow_private = true to let sandboxed commands reach exactly the addresses listed, or remove it`,
          });
        }
      }
    });

export type NetworkTableSchema = z.infer<ReturnType<typeof networkTableSchema>>;

/**
 * `[sandbox] network`: true, false, or the table. Not a zod union: a union reports only its own message, and a
 * mistake inside the table must name its key (`sandbox.network.mode`).
 */
export const networkSetting = (z: typeof z_) =>
  z.unknown().transform((v, ctx): boolean | NetworkTable => {
    if (typeof v === "boolean") return v;
    if (v && typeof v === "object" && !Array.isArray(v)) {
      const r = networkTableSchema(z).safeParse(v);
      if (r.success) return r.data;
      for (const issue of r.error.issues) ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
      return z.NEVER;
    }
    ctx.addIssue({ code: "custom", message: "must be true or false, or a [sandbox.network] table (allow, deny, presets, mode)" });
    return z.NEVER;
  });
