// Where a Feishu channel's app ID, secret and owner come from: [channels.feishu] and the variable its
// app_secret_env names, else what `scv channels login feishu` stored in $SCV_HOME/channels/feishu/<account>.json
// (0600, written atomically). The secret is never printed.
import { join } from "node:path";
import { ensurePrivateDir, tryUnlink, writePrivateFileAtomic } from "../../fs/private-file";
import { KiB, readBoundedTextIfExists } from "../../fs/safe-read";
import type { FeishuChannelConfig } from "../../config/schema";
import { baseUrlFor, type FeishuCredentials } from "./api";

export type FeishuConfig = import("zod").infer<typeof FeishuChannelConfig>;

export interface StoredFeishu {
  app_id: string;
  app_secret: string;
  owner_open_id?: string;
  /** The domain the app was registered on (`feishu`, `lark` or a base URL). */
  domain?: string;
  saved: string;
}

export function credentialsFile(scvHome: string, account: string): string {
  return join(scvHome, "channels", "feishu", `${account}.json`);
}

export function readStored(scvHome: string, account: string): StoredFeishu | undefined {
  const text = readBoundedTextIfExists(credentialsFile(scvHome, account), { what: "Feishu credentials", maxBytes: 64 * KiB, followSymlink: false });
  if (!text) return undefined;
  try {
    const v = JSON.parse(text) as StoredFeishu;
    return typeof v.app_id === "string" && typeof v.app_secret === "string" ? v : undefined;
  } catch {
    return undefined;
  }
}

export function writeStored(scvHome: string, account: string, value: Omit<StoredFeishu, "saved">): string {
  const file = credentialsFile(scvHome, account);
  ensurePrivateDir(join(scvHome, "channels", "feishu"));
  writePrivateFileAtomic(file, `${JSON.stringify({ ...value, saved: new Date().toISOString() }, null, 2)}\n`);
  return file;
}

export function removeStored(scvHome: string, account: string): boolean {
  return tryUnlink(credentialsFile(scvHome, account));
}

export interface ResolvedFeishu {
  creds?: FeishuCredentials;
  owner: string;
  /** Why there are no credentials, and how to fix it. */
  problem?: string;
}

/** The channel's credentials and owner from config, the environment and the stored login. */
export function resolveFeishu(cfg: FeishuConfig, scvHome: string, env: NodeJS.ProcessEnv): ResolvedFeishu {
  let stored: StoredFeishu | undefined;
  try {
    stored = readStored(scvHome, cfg.account);
  } catch {
    stored = undefined;
  }
  const appId = cfg.app_id ?? stored?.app_id;
  const owner = cfg.owner_open_id ?? (stored && stored.app_id === appId ? stored.owner_open_id : undefined) ?? "";
  const baseUrl = baseUrlFor(cfg.domain ?? (stored && stored.app_id === appId ? stored.domain : undefined) ?? "feishu");
  if (!appId) return { owner, problem: "no Feishu app: run `scv channels login feishu`, or set app_id and app_secret_env in [channels.feishu]" };
  if (cfg.app_secret_env) {
    const secret = env[cfg.app_secret_env];
    if (!secret) return { owner, problem: `the variable ${cfg.app_secret_env} (app_secret_env) is not set in the daemon's environment` };
    return { owner, creds: { appId, appSecret: secret, baseUrl } };
  }
  if (stored && stored.app_id === appId) return { owner, creds: { appId, appSecret: stored.app_secret, baseUrl } };
  return { owner, problem: `no secret for ${appId}: run \`scv channels login feishu --app-id ${appId}\`, or set app_secret_env in [channels.feishu]` };
}
