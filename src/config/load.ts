// Loads the layered configuration: built-in defaults < user file < project file < environment selectors.
// A load whose inputs match the last one persisted (check-cache.ts) is taken from there; only a miss reaches
// the zod schemas (validate.ts), loaded on demand so that a hit never builds them.
import { userHome } from "../user-home";
import { statSync } from "node:fs";
import { join } from "node:path";
import { readConfigCheck, writeConfigCheck } from "./check-cache";
import { ConfigError, type ConfigInputs, type ConfigText, type LoadedConfig, MAX_CONFIG_BYTES } from "./loaded";
import { readBoundedTextIfExists, SafeReadError } from "../fs/safe-read";
import type { Config } from "./schema";

export { ConfigError, DEFAULT_PROFILE_NAME, type LoadedConfig, MAX_CONFIG_BYTES } from "./loaded";

export function scvHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.SCV_HOME || join(userHome(env), ".scv");
}

/**
 * The last load, keyed by everything it read: `server --stdio` checks the configuration at start and loads it
 * again for session.start, and validating with zod is most of a nested child's start-up before its first model
 * request. Each caller gets its own copy, since callers may adjust the result.
 */
let lastLoad: { key: string; loaded: LoadedConfig } | undefined;

function readText(file: string | undefined): ConfigText {
  if (!file) return null;
  try {
    // Non-blocking, regular files only, bounded: a bad workspace file fails at once and blocks nothing else.
    return readBoundedTextIfExists(file, { what: "config file", maxBytes: MAX_CONFIG_BYTES }) ?? null;
  } catch (e) {
    if (e instanceof SafeReadError) return new ConfigError(e.message);
    throw e;
  }
}

export function loadConfig(opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): LoadedConfig {
  const env = opts.env ?? process.env;
  const userFile = join(scvHome(env), "config.toml");
  const projectFile = opts.cwd ? projectConfigFile(opts.cwd, userFile) : undefined;
  const inputs: ConfigInputs = { env, userFile, projectFile, user: readText(userFile), project: readText(projectFile) };
  // An unreadable file gets a key that matches no earlier load, so the full load runs and reports it.
  const text = (t: ConfigText) => (t instanceof ConfigError ? `\0unreadable ${Math.random()}` : t);
  // A workspace without a project file loads exactly what any other such workspace loads (its path is not part of
  // the result), so its path stays out of the key: `scv exec` run in a new directory still hits the cache.
  const projectKey = inputs.project === null ? null : (projectFile ?? null);
  const key = JSON.stringify([userFile, projectKey, text(inputs.user), text(inputs.project), env.SCV_PROVIDER ?? null, env.SCV_MODEL ?? null, firstRunKeys(env)]);
  if (lastLoad?.key !== key) lastLoad = { key, loaded: loadThroughCheckCache(inputs, key) };
  const { loaded } = lastLoad;
  return { ...loaded, config: structuredClone(loaded.config), sources: new Map(loaded.sources) };
}

/** Which provider keys are set (never their values): a first run without providers picks its profile by them. */
function firstRunKeys(env: NodeJS.ProcessEnv): number {
  return (env.ANTHROPIC_API_KEY ? 1 : 0) + (env.OPENAI_API_KEY ? 2 : 0);
}

/**
 * The project layer of a workspace, or undefined when it is the user file itself: in the home directory,
 * `<cwd>/.scv/config.toml` is `~/.scv/config.toml` (also through a symlink), which must be read once, as the user's.
 */
export function projectConfigFile(cwd: string, userFile: string): string | undefined {
  const file = join(cwd, ".scv", "config.toml");
  return isSameFile(file, userFile) ? undefined : file;
}

/** Both paths name one existing file (same device and inode, after symlinks). */
function isSameFile(a: string, b: string): boolean {
  const sa = statSync(a, { throwIfNoEntry: false });
  if (!sa) return false;
  const sb = statSync(b, { throwIfNoEntry: false });
  return !!sb && sa.dev === sb.dev && sa.ino === sb.ino;
}

function loadThroughCheckCache(inputs: ConfigInputs, key: string): LoadedConfig {
  const home = scvHome(inputs.env);
  const text = (t: ConfigText) => (typeof t === "string" ? t : null);
  const texts = { user: text(inputs.user), project: text(inputs.project) };
  const cached = readConfigCheck(home, key, texts);
  if (cached) return cached;
  const { loadValidated } = require("./validate") as typeof import("./validate");
  const loaded = loadValidated(inputs);
  writeConfigCheck(home, key, loaded, texts);
  return loaded;
}

/** The key for a profile, from api_key or the variable api_key_env names. Never logged. */
export function resolveApiKey(profile: Config["providers"][string], env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (profile.api_key) return profile.api_key;
  if (profile.api_key_env) return env[profile.api_key_env] || undefined;
  return undefined;
}
