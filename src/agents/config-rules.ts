// The agents' configuration rules as config/ takes them (config/checks.ts): registered at start-up, loaded
// only when validation runs, with the files their verdicts depend on for the check cache's stamp. Imported by
// cli/main.ts before anything else runs, so it imports nothing (not even node:path).
import type { ConfigCheckProvider } from "../config/checks";

export const agentConfigRules: ConfigCheckProvider = {
  checks: () => (require("./config-checks") as typeof import("./config-checks")).agentConfigChecks,
  sources: [`${import.meta.dir}/config-checks.ts`, `${import.meta.dir}/descriptors.ts`],
};
