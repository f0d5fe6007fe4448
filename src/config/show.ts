// The effective configuration as lines of `key = value  # source`, secrets shown only as set/unset.
import type { LoadedConfig } from "./loaded";
import { SECRET_KEYS } from "./secret-keys";
import { maskKeyFormats } from "../text/scrub";

export interface ShownEntry {
  key: string;
  value: unknown;
  source: string;
}

function flatten(value: unknown, prefix: string, out: [string, unknown][]) {
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0 && prefix) out.push([prefix, {}]);
    for (const [k, v] of entries) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else if (value !== undefined) out.push([prefix, value]);
}

export function effectiveEntries(loaded: LoadedConfig, env: NodeJS.ProcessEnv = process.env): ShownEntry[] {
  const pairs: [string, unknown][] = [];
  flatten(loaded.config, "", pairs);
  const entries = pairs.map(([key, value]) => {
    const secret = SECRET_KEYS.some((re) => re.test(key));
    const shown = secret
      ? value
        ? "set"
        : "unset"
      : key === "tools.bash_env" && Array.isArray(value)
        ? value.map((v) => String(v).replace(/=[\s\S]*$/, "=(set)")) // a value given here may be a secret
        : key.startsWith("hooks.") && Array.isArray(value)
          ? value.map((h) => ({ ...h, command: maskKeyFormats(String(h.command)) })) // a command may carry a key
          : typeof value === "string"
          ? withoutUrlCredentials(value)
          : value;
    return { key, value: shown, source: loaded.sources.get(key) ?? "default" };
  });
  // Key variables are named, and whether they are set is shown; their values never are.
  for (const [name, profile] of Object.entries(loaded.config.providers)) {
    if (profile.api_key_env) {
      entries.push({ key: `providers.${name}.api_key (from ${profile.api_key_env})`, value: env[profile.api_key_env] ? "set" : "unset", source: `env ${profile.api_key_env}` });
    }
  }
  return entries;
}

export function renderEntries(entries: ShownEntry[]): string {
  return entries.map((e) => `${e.key} = ${JSON.stringify(e.value)}  # ${e.source}`).join("\n");
}

/**
 * A URL's user name and password (say, a proxy's `http://user:pass@host`) and its query values (a
 * `base_url` ending `?key=…`) are secrets too: masked.
 */
export function withoutUrlCredentials(value: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\/([^/?#]*@|[^?#]*\?[^#]*=)/i.test(value)) return value;
  try {
    const url = new URL(value);
    if (!url.username && !url.password && !url.search) return value;
    if (url.username || url.password) {
      url.username = "***";
      url.password = url.password ? "***" : "";
    }
    const names = [...url.searchParams.keys()];
    if (names.length) url.search = names.map((n) => `${encodeURIComponent(n)}=***`).join("&");
    return url.toString();
  } catch {
    return value.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, "$1***@").replace(/([?&][^=&#]*)=[^&#]*/g, "$1=***");
  }
}
