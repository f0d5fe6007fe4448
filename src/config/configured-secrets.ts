// Every secret the configuration holds, for the scrubber (src/text/scrub.ts) to keep out of anything SCV stores
// or prints: every provider profile's key and header values (the active one first, so its key is scrubbed in
// every form), the search keys, MCP servers' header values, bearer tokens and secret-named env values, and the values of bash's
// secret bindings. Secrets outside the configuration register with registerSecretSource.
import { resolveApiKey } from "./load";
import type { Config } from "./schema";

const SECRET_NAME = /KEY|TOKEN|SECRET|PASSW|AUTH|CREDENTIAL/i;

export function configuredSecrets(config: Config, env: NodeJS.ProcessEnv, activeProfile?: string): string[] {
  const profiles = Object.entries(config.providers).sort(([a], [b]) => Number(b === activeProfile) - Number(a === activeProfile));
  const ofProfile = (p: Config["providers"][string]) => [resolveApiKey(p, env), ...Object.values(p.headers)];
  const search = [config.web.brave_api_key, env[config.web.brave_api_key_env]];
  const mcp = Object.values(config.mcp?.servers ?? {}).flatMap((server) => [
    ...Object.values(server.headers ?? {}),
    // Env values by a secret-sounding name only: a server's env also carries paths and modes, which must stay.
    ...(Array.isArray(server.env) ? [] : Object.entries(server.env ?? {}).filter(([name]) => SECRET_NAME.test(name)).map(([, v]) => v)),
    server.bearer_token_env ? env[server.bearer_token_env] : undefined,
  ]);
  const bindings = (config.tools.secret_bindings ?? []).map((b) => env[b.source.slice("env:".length)]);
  const telegram = config.channels.telegram ? [env[config.channels.telegram.token_env]] : [];
  return [...profiles.flatMap(([, p]) => ofProfile(p)), ...search, ...mcp, ...bindings, ...telegram].filter((v): v is string => !!v);
}
