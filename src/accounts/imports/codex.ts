// `scv agents import codex [--from DIR]`: copies an existing Codex setup (from DIR, $CODEX_HOME or ~/.codex)
// into the private CODEX_HOME. config.toml is copied whole; auth.json only when it holds an API key (a ChatGPT
// sign-in's rotating refresh token must stay in one home). Both are validated before either is written;
// copies are atomic, 0600, and never printed.
import { existsSync, readFileSync } from "node:fs";
import { userHome } from "../../user-home";
import { join, resolve } from "node:path";
import { parse as parseToml } from "smol-toml";
import { writePrivateFileAtomic } from "../../fs/private-file";
import { descriptorFor } from "../../agents/descriptors";
import { agentEnvironment, isWithheld, preparePrivateHome } from "../../agents/environment";
import { type Io, type LoginContext, LoginError } from "../login-io";
import { digestOf, writeImportRecord } from "./digest";

interface CodexSource {
  dir: string;
  config: string;
  parsed: Record<string, unknown>;
  /** auth.json as it will be written (API key only), or undefined when none is copied. */
  auth?: string;
  authNote?: string;
}

export function codexSourceDir(env: LoginContext["env"], from?: string): string {
  if (from) return resolve(from);
  return env.CODEX_HOME || join(userHome(env), ".codex");
}

const MAX_BYTES = 1024 * 1024;

function readSource(dir: string, name: string, required: boolean): string | undefined {
  const file = join(dir, name);
  if (!existsSync(file)) {
    if (required) throw new LoginError(`no ${name} in ${dir}; give the directory of a Codex setup with --from DIR`);
    return undefined;
  }
  const text = readFileSync(file, "utf8");
  if (Buffer.byteLength(text) > MAX_BYTES) throw new LoginError(`${file} is larger than 1 MiB; is this a Codex home?`);
  return text;
}

/** Reads and validates the source; throws without writing anything when either file is not usable. */
export function readCodexSource(dir: string): CodexSource {
  const config = readSource(dir, "config.toml", true)!;
  let parsed: Record<string, unknown>;
  try {
    parsed = parseToml(config) as Record<string, unknown>;
  } catch (e) {
    throw new LoginError(`${join(dir, "config.toml")} is not valid TOML (${(e as Error).message.split("\n")[0]}); nothing was copied`);
  }
  const authText = readSource(dir, "auth.json", false);
  if (authText === undefined) return { dir, config, parsed };
  let auth: Record<string, unknown>;
  try {
    auth = JSON.parse(authText);
    if (!auth || typeof auth !== "object" || Array.isArray(auth)) throw new Error("not a JSON object");
  } catch (e) {
    throw new LoginError(`${join(dir, "auth.json")} is not valid JSON (${(e as Error).message}); nothing was copied`);
  }
  const key = auth.OPENAI_API_KEY;
  const chatgpt = !!auth.tokens || auth.auth_mode === "chatgpt";
  if (typeof key === "string" && key.trim()) {
    return { dir, config, parsed, auth: `${JSON.stringify({ OPENAI_API_KEY: key }, null, 2)}\n`, authNote: chatgpt ? "its ChatGPT sign-in was not copied (only the API key)" : undefined };
  }
  return { dir, config, parsed, authNote: chatgpt ? "auth.json holds a ChatGPT sign-in, which is never copied; use `scv agents login codex` for that" : undefined };
}

export function codexDigest(source: CodexSource): string {
  return digestOf([
    ["config.toml", source.config],
    ["auth.json", source.auth ?? ""],
  ]);
}

export function importCodex(ctx: LoginContext, from: string | undefined, io: Io): number {
  const dir = codexSourceDir(ctx.env, from);
  const source = readCodexSource(dir);
  const environment = agentEnvironment(descriptorFor("codex")!, { scvHome: ctx.scvHome, env: ctx.env, full: false });
  preparePrivateHome(environment);
  const home = environment.stateDir!;
  writePrivateFileAtomic(join(home, "config.toml"), source.config);
  if (source.auth) writePrivateFileAtomic(join(home, "auth.json"), source.auth);
  writeImportRecord(ctx.scvHome, { agent: "codex", source: dir, command: `scv agents import codex${from ? ` --from ${dir}` : ""}`, digest: codexDigest(source) });
  io.stdout.write(`${codexReport(source, home, ctx.env).join("\n")}\n`);
  return 0;
}

const word = (v: unknown) => (typeof v === "string" && /^[\w.:/@[\]-]{1,128}$/.test(v) ? v : undefined);

function codexReport(s: CodexSource, home: string, env: LoginContext["env"]): string[] {
  const c = s.parsed;
  const lines = [`codex: copied config.toml from ${s.dir} into ${home} (mode 0600)`];
  const facts = [
    ["model", word(c.model) ?? "(Codex default)"],
    ["provider", word(c.model_provider) ?? "openai"],
    ["approval_policy", word(c.approval_policy) ?? "(default)"],
    ["sandbox_mode", word(c.sandbox_mode) ?? "(default)"],
  ];
  lines.push(`  ${facts.map(([k, v]) => `${k} ${v}`).join(", ")}`);
  lines.push(s.auth ? "  auth.json: API key copied" : "  auth.json: not copied (no API key in it)");
  if (s.authNote) lines.push(`  note: ${s.authNote}`);
  const providers = (c.model_providers ?? {}) as Record<string, Record<string, unknown>>;
  for (const [name, p] of Object.entries(providers)) {
    const envKey = p && typeof p === "object" ? word(p.env_key) : undefined;
    if (!envKey) continue;
    const reason = isWithheld(envKey)
      ? `SCV removes ${envKey} from delegated agents`
      : `the user service does not load your shell profile, so ${envKey} is likely unset there`;
    lines.push(`  warning: provider ${word(name) ?? "?"} reads its key from env_key ${envKey}, but ${reason}; put the key in auth.json (OPENAI_API_KEY) or use experimental_bearer_token`);
  }
  return lines;
}
