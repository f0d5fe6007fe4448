// Every secret the configuration holds, for the scrubber (src/text/scrub.ts) to keep out of anything SCV stores
// or prints: every provider profile's key and header values (the active one first, so its key is scrubbed in
// every form) and the search keys. Secrets outside the configuration register with registerSecretSource.
import { resolveApiKey } from "./load";
import type { Config } from "./schema";

export function configuredSecrets(config: Config, env: NodeJS.ProcessEnv, activeProfile?: string): string[] {
  const profiles = Object.entries(config.providers).sort(([a], [b]) => Number(b === activeProfile) - Number(a === activeProfile));
  const ofProfile = (p: Config["providers"][string]) => [resolveApiKey(p, env), ...Object.values(p.headers)];
  const search = [config.web.brave_api_key, env[config.web.brave_api_key_env]];
  return [...profiles.flatMap(([, p]) => ofProfile(p)), ...search].filter((v): v is string => !!v);
}
