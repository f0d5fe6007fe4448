// What a sandboxed command is told about the egress proxy (its proxy variables), what its call's result says
// about hosts the proxy refused it, and the one line status views show.
import type { EgressEntry } from "./egress-proxy";
import type { EgressRules } from "./egress-rules";

/** The port the proxy listens on inside the command's namespace, and the fd the command holds that socket at. */
export const EGRESS_PORT = 43128;
export const EGRESS_FD = 1023;

/** The proxy variables of a sandboxed command: the common ones in both cases and the tool-specific few. */
export function proxyEnvironment(port: number): Record<string, string> {
  const http = `http://127.0.0.1:${port}`;
  const socks = `socks5h://127.0.0.1:${port}`;
  const local = "localhost,127.0.0.1,::1";
  return {
    HTTP_PROXY: http,
    HTTPS_PROXY: http,
    http_proxy: http,
    https_proxy: http,
    ALL_PROXY: socks,
    all_proxy: socks,
    NO_PROXY: local,
    no_proxy: local,
    // npm and pnpm, pip, cargo, Node's own fetch (Node 24 reads HTTP(S)_PROXY with this), Yarn 2+.
    npm_config_proxy: http,
    npm_config_https_proxy: http,
    PIP_PROXY: http,
    CARGO_HTTP_PROXY: http,
    NODE_USE_ENV_PROXY: "1",
    YARN_HTTP_PROXY: http,
    YARN_HTTPS_PROXY: http,
  };
}

/** One note per refused host for the call's result: which host, why, and how a person can allow it. */
export function refusalNotes(refused: EgressEntry[]): string[] {
  const seen = new Map<string, EgressEntry>();
  for (const e of refused) if (!seen.has(`${e.host}:${e.port}`)) seen.set(`${e.host}:${e.port}`, e);
  return [...seen.values()].map(
    (e) =>
      `the sandbox's network proxy refused ${e.host}:${e.port} (${e.via}): ${e.reason ?? "refused"}. ` +
      `Only a person can allow it: "${e.host}" in [sandbox.network] allow of the user config (or a preset). Running the same command again is refused the same way.`,
  );
}

/** For status views: how sandboxed commands reach the network. */
export function egressStatus(settings: { network: boolean; egress?: EgressRules }, namespaces: boolean): string {
  if (settings.network) return "network: every host ([sandbox] network = true)";
  if (!settings.egress) return "network: none ([sandbox.network] allow or presets open hosts through SCV's proxy)";
  if (!namespaces) return "network: none (the [sandbox.network] proxy needs namespaces, which this machine does not give)";
  const own = settings.egress.allow.filter((p) => !p.preset).map((p) => p.text);
  const presets = settings.egress.presets.map((p) => `preset ${p}`);
  const hosts = [...presets, ...own];
  const deny = settings.egress.deny.map((p) => p.text);
  return (
    `network: through SCV's egress proxy (a listener for each sandboxed command; log: scv sandbox log); allowed: ${hosts.length ? hosts.join(", ") : "nothing yet"}` +
    `${deny.length ? `; denied: ${deny.join(", ")}` : ""}${settings.egress.readOnly ? '; mode = "read"' : ""}`
  );
}
