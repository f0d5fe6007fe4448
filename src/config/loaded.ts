// What a configuration load returns and how it fails, shared by the cached path (load.ts, check-cache.ts) and
// the validating one (validate.ts) without either importing the other.
import { MiB } from "../fs/safe-read";
import type { Config } from "./schema";

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

export interface LoadedConfig {
  config: Config;
  /** Where each leaf key path's value came from: a file path, an env var, or "default". */
  sources: Map<string, string>;
  userFile: string;
  projectFile?: string;
}

/** A config file's text, null when there is no file, or why it could not be read (the full load reports it). */
export type ConfigText = string | null | ConfigError;

/** Everything a load depends on besides SCV's own code: the digest of the check cache covers all of it. */
export interface ConfigInputs {
  env: NodeJS.ProcessEnv;
  userFile: string;
  projectFile?: string;
  user: ConfigText;
  project: ConfigText;
}

/** The most a config file may hold; a workspace can ship a FIFO or a link to /dev/zero as one. */
export const MAX_CONFIG_BYTES = MiB;

export const DEFAULT_PROFILE_NAME = "openai";
/** The profile a first run makes when only ANTHROPIC_API_KEY is set. */
export const ANTHROPIC_PROFILE_NAME = "anthropic";
