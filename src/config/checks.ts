// Validation rules other concerns add to the configuration. config/ sits below them and cannot import them,
// so they register here (the agents' rules: which agent takes a model, an effort, …). The entry point
// registers them before any configuration loads (src/cli/main.ts; tests in test/preload.ts). This module stays
// tiny: it is imported at start-up, and the rules themselves load only when a load misses the check cache.
import type { CrossCheck } from "./schema";

export interface ConfigCheckProvider {
  /** The rules; called only when validation runs, so a cached load never loads them. */
  checks(): readonly CrossCheck[];
  /**
   * The source files the rules' verdicts depend on. Run from source, editing one invalidates the config check
   * cache (config/check-cache.ts); a compiled binary is covered by its own stamp.
   */
  sources: readonly string[];
}

const providers: ConfigCheckProvider[] = [];

export function registerConfigChecks(provider: ConfigCheckProvider): void {
  if (!providers.includes(provider)) providers.push(provider);
}

export function registeredChecks(): CrossCheck[] {
  return providers.flatMap((p) => p.checks());
}

export function registeredCheckSources(): string[] {
  return providers.flatMap((p) => p.sources);
}
