// `scv agents import grok [--from DIR]`: copies your own Grok config.toml (from DIR, $GROK_HOME or ~/.grok)
// into the private .grok/config.toml, merged by top-level table: your tables win, and tables only SCV's copy
// has (such as the [marketplace] state Grok writes there) are kept. The merge is validated before anything is
// written; it prints the profiles and default model, never a key. auth.json sign-ins are never copied.
import { existsSync, readFileSync } from "node:fs";
import { userHome } from "../../user-home";
import { join, resolve } from "node:path";
import { parse as parseToml, stringify as toToml } from "smol-toml";
import { writePrivateFileAtomic } from "../../fs/private-file";
import { descriptorFor } from "../../agents/descriptors";
import { agentEnvironment, preparePrivateHome } from "../../agents/environment";
import { type Io, type LoginContext, LoginError } from "../login-io";
import { digestOf, writeImportRecord } from "./digest";

export function grokSourceDir(env: LoginContext["env"], from?: string): string {
  if (from) return resolve(from);
  return env.GROK_HOME || join(userHome(env), ".grok");
}

function parseFile(file: string, what: string): Record<string, unknown> {
  try {
    return parseToml(readFileSync(file, "utf8")) as Record<string, unknown>;
  } catch (e) {
    throw new LoginError(`${what} ${file} is not valid TOML (${(e as Error).message.split("\n")[0]}); nothing was written`);
  }
}

export function readGrokSource(dir: string): string {
  const file = join(dir, "config.toml");
  if (!existsSync(file)) throw new LoginError(`no config.toml in ${dir}; give the directory of a Grok setup with --from DIR`);
  return readFileSync(file, "utf8");
}

export function grokDigest(text: string): string {
  return digestOf([["config.toml", text]]);
}

/** Your tables win; tables only SCV's copy has are kept. Validated by parsing the result back. */
export function mergeGrokConfig(yours: Record<string, unknown>, ours: Record<string, unknown>): { text: string; merged: Record<string, unknown> } {
  const merged = { ...ours, ...yours };
  const text = toToml(merged);
  parseToml(text);
  const models = merged.models as Record<string, unknown> | undefined;
  const wanted = models?.default;
  if (typeof wanted === "string" && !profileKeys(merged).includes(wanted) && !modelIds(merged).includes(wanted)) {
    throw new LoginError(`[models] default = ${JSON.stringify(wanted)} names no profile in the config; nothing was written`);
  }
  return { text, merged };
}

/** Profile keys: `[model.<key>]` tables, and tables under [models] other than `default`. */
function profileKeys(config: Record<string, unknown>): string[] {
  const keys: string[] = [];
  for (const section of ["model", "models"]) {
    const t = config[section];
    if (t && typeof t === "object" && !Array.isArray(t)) {
      for (const [k, v] of Object.entries(t)) if (v && typeof v === "object") keys.push(k);
    }
  }
  return keys;
}

function modelIds(config: Record<string, unknown>): string[] {
  const ids: string[] = [];
  for (const section of ["model", "models"]) {
    const t = config[section] as Record<string, unknown> | undefined;
    for (const v of Object.values(t ?? {})) {
      const p = v as Record<string, unknown>;
      if (p && typeof p === "object") for (const f of ["id", "model", "model_id"]) if (typeof p[f] === "string") ids.push(p[f] as string);
    }
  }
  return ids;
}

export function importGrok(ctx: LoginContext, from: string | undefined, io: Io): number {
  const dir = grokSourceDir(ctx.env, from);
  const text = readGrokSource(dir);
  const yours = parseFile(join(dir, "config.toml"), "your Grok config");
  const environment = agentEnvironment(descriptorFor("grok")!, { scvHome: ctx.scvHome, env: ctx.env, full: false });
  const target = join(environment.stateDir!, "config.toml");
  const ours = existsSync(target) ? parseFile(target, "SCV's copy") : {};
  const { text: merged, merged: config } = mergeGrokConfig(yours, ours);
  preparePrivateHome(environment);
  writePrivateFileAtomic(target, merged);
  writeImportRecord(ctx.scvHome, { agent: "grok", source: dir, command: `scv agents import grok${from ? ` --from ${dir}` : ""}`, digest: grokDigest(text) });
  const safe = (s: string) => (/^[\w.:/@[\]-]{1,128}$/.test(s) ? s : "?");
  const profiles = profileKeys(config).map(safe);
  const dflt = (config.models as Record<string, unknown> | undefined)?.default;
  io.stdout.write(
    `grok: merged ${join(dir, "config.toml")} into ${target} (mode 0600)\n  profiles: ${profiles.join(", ") || "none"}\n  default model: ${typeof dflt === "string" ? safe(dflt) : "(Grok default)"}\n  auth.json sign-ins are never copied\n`,
  );
  return 0;
}
