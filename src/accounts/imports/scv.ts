// `scv agents import scv` (also `login scv`): gives the nested SCV behind the `scv` agent a copy of SCV's own
// active provider in $SCV_HOME/agents/scv/config.toml (0600, atomic): `[provider] active = "scv"`, a
// `[providers.scv]` profile with the key resolved now, and `[web] search = "provider"` when SCV uses hosted
// search. Other settings already in that file are kept; an unreadable file is left untouched.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseToml, stringify as toToml } from "smol-toml";
import { writePrivateFileAtomic } from "../../fs/private-file";
import { ConfigFile } from "../../config/schema";
import { descriptorFor } from "../../agents/descriptors";
import { agentEnvironment, preparePrivateHome } from "../../agents/environment";
import { type Io, type LoginContext, LoginError } from "../login-io";
import { scvActiveProvider } from "../../agents/signin";
import { writeImportRecord } from "./digest";
import { activeProviderCopy, endpointHost, type ProviderCopy, providerDigest } from "./scv-provider";

export function scvConfigFile(home: string): string {
  return join(home, "config.toml");
}

export function importScv(ctx: LoginContext, io: Io): number {
  const copy = activeProviderCopy(ctx.config, ctx.env, { allowKeyless: true });
  const environment = agentEnvironment(descriptorFor("scv")!, { scvHome: ctx.scvHome, env: ctx.env, full: false });
  const file = scvConfigFile(environment.home);
  const text = withProvider(readExisting(file), copy);
  preparePrivateHome(environment);
  writePrivateFileAtomic(file, text);
  writeImportRecord(ctx.scvHome, {
    agent: "scv",
    source: `SCV's provider "${copy.name}"`,
    command: "scv agents import scv",
    digest: providerDigest(copy, "scv"),
  });
  io.stdout.write(
    `scv: copied SCV's provider "${copy.name}" (${copy.wire_api} API, model ${copy.model}, endpoint ${endpointHost(copy.base_url)}${copy.key ? "" : ", no key: the profile sets none, as a local endpoint needs none"}) into ${file} (mode 0600)${copy.hostedSearch ? ', with [web] search = "provider"' : ""}\n`,
  );
  return 0;
}

function readExisting(file: string): Record<string, unknown> {
  if (!existsSync(file)) return {};
  try {
    const parsed = parseToml(readFileSync(file, "utf8")) as Record<string, unknown>;
    return parsed;
  } catch (e) {
    throw new LoginError(`${file} cannot be read as TOML, so it was left untouched (${(e as Error).message.split("\n")[0]}); fix or remove it, then run this again`);
  }
}

/** The nested SCV's config with the copied provider; validated against SCV's own schema before it is written. */
export function withProvider(existing: Record<string, unknown>, c: ProviderCopy): string {
  const config: Record<string, any> = { ...existing };
  config.provider = { ...(config.provider as object), active: "scv" };
  config.providers = { ...(config.providers as object) };
  config.providers.scv = {
    kind: c.kind,
    wire_api: c.wire_api,
    model: c.model,
    base_url: c.base_url,
    timeout_seconds: c.timeout_seconds,
    ...(Object.keys(c.headers).length ? { headers: c.headers } : {}),
    ...(c.key ? { api_key: c.key } : {}),
  };
  if (c.hostedSearch) config.web = { ...(config.web as object), search: "provider" };
  const checked = ConfigFile.safeParse(config);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw new LoginError(`the nested SCV's config would not be valid (${issue.path.join(".")}: ${issue.message}); nothing was written`);
  }
  return toToml(config);
}

/** `provider P, model M, endpoint H` from the nested SCV's config, never its key. */
export function scvStatusDetail(home: string): string | undefined {
  const active = scvActiveProvider(home);
  if (!active) return undefined;
  const model = typeof active.profile.model === "string" ? active.profile.model : "gpt-5.5";
  const url = typeof active.profile.base_url === "string" ? active.profile.base_url : "https://api.openai.com/v1";
  return `provider ${JSON.stringify(active.name)}, model ${JSON.stringify(model)}, endpoint ${endpointHost(url)}`;
}
