// pi on any OpenAI-compatible endpoint: `scv agents login pi --openai-compatible` (asks, or takes --base-url,
// --wire-api, --model, then reads the key without echo) and `scv agents import pi --from-scv-provider` (takes
// all four from SCV's active provider) write pi's own files in .pi/agent, each atomically with mode 0600:
// provider `scv` in models.json, its key in auth.json, and defaultProvider/defaultModel in settings.json.
// Other providers and settings are kept. Layout verified with pi 1.6.0 (reference/agent-cli-formats.md).
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writePrivateFileAtomic } from "../../fs/private-file";
import { MODEL_PATTERN } from "../../config/schema";
import { descriptorFor } from "../../agents/descriptors";
import { agentEnvironment, preparePrivateHome } from "../../agents/environment";
import { checkKey, type Io, type LoginContext, LoginError, readHidden, readPiped } from "../login-io";
import { forgetImport, writeImportRecord } from "./digest";
import { activeProviderCopy, endpointHost, providerDigest } from "./scv-provider";

export const PI_PROVIDER = "scv";
/** pi's `models.json` apiKey is required when a provider lists models; the real key lives in auth.json. */
const KEY_IN_AUTH_JSON = "SCV_PI_KEY_IS_IN_AUTH_JSON";

export interface PiEndpoint {
  baseUrl: string;
  wireApi: "responses" | "chat";
  model: string;
  key: string;
  headers?: Record<string, string>;
}

type Json = Record<string, any>;

function readJsonFile(file: string): Json {
  if (!existsSync(file)) return {};
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new LoginError(`${file} is not valid JSON (${(e as Error).message}), so nothing was written; fix or remove it, then run this again`);
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) throw new LoginError(`${file} does not hold a JSON object, so nothing was written; fix or remove it`);
  return value as Json;
}

/** Writes the three files after reading (and so validating) all of them; other entries are preserved. */
export function writePiEndpoint(dir: string, e: PiEndpoint): void {
  const files = { models: join(dir, "models.json"), auth: join(dir, "auth.json"), settings: join(dir, "settings.json") };
  const models = readJsonFile(files.models);
  const auth = readJsonFile(files.auth);
  const settings = readJsonFile(files.settings);
  if (models.providers !== undefined && (typeof models.providers !== "object" || Array.isArray(models.providers))) {
    throw new LoginError(`${files.models}: "providers" is not an object, so nothing was written; fix or remove it`);
  }
  const responses = e.wireApi === "responses";
  models.providers = {
    ...models.providers,
    [PI_PROVIDER]: {
      baseUrl: e.baseUrl,
      api: responses ? "openai-responses" : "openai-completions",
      apiKey: KEY_IN_AUTH_JSON,
      // pi's default `session_id` header is refused by proxies that reject underscores in header names.
      ...(responses ? { compat: { sessionAffinityFormat: "openai-nosession" } } : {}),
      ...(e.headers && Object.keys(e.headers).length ? { headers: e.headers } : {}),
      models: [{ id: e.model }],
    },
  };
  auth[PI_PROVIDER] = { type: "api_key", key: e.key };
  settings.defaultProvider = PI_PROVIDER;
  settings.defaultModel = e.model;
  for (const [file, value] of [[files.models, models], [files.auth, auth], [files.settings, settings]] as const) {
    writePrivateFileAtomic(file, `${JSON.stringify(value, null, 2)}\n`);
  }
}

function checkEndpoint(baseUrl: string, wireApi: string, model: string): PiEndpoint["wireApi"] {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new LoginError(`--base-url ${JSON.stringify(baseUrl)} is not a URL; give one such as https://api.example.com/v1`, 2);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new LoginError("--base-url must be an http:// or https:// URL", 2);
  if (url.username || url.password) throw new LoginError("--base-url must not carry a user name or password; the key is asked for separately", 2);
  if (wireApi !== "responses" && wireApi !== "chat") throw new LoginError(`--wire-api must be responses or chat, not ${JSON.stringify(wireApi)}`, 2);
  if (!MODEL_PATTERN.test(model)) throw new LoginError("--model must be 1-128 ASCII letters, digits, or ._:/@[]- and not start with - or @", 2);
  return wireApi;
}

const OPTIONS = ["--base-url", "--wire-api", "--model"] as const;

/** `--openai-compatible [--base-url U] [--wire-api W] [--model M]`; anything else is refused without echo. */
export function parsePiOptions(args: readonly string[]): Partial<Record<(typeof OPTIONS)[number], string>> {
  const out: Partial<Record<(typeof OPTIONS)[number], string>> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--openai-compatible") continue;
    const eq = a.indexOf("=");
    const name = (eq > 0 ? a.slice(0, eq) : a) as (typeof OPTIONS)[number];
    if (!OPTIONS.includes(name)) {
      throw new LoginError("unexpected argument; `scv agents login pi --openai-compatible` takes only --base-url URL, --wire-api responses|chat and --model ID (the key is asked for)", 2);
    }
    const value = eq > 0 ? a.slice(eq + 1) : args[++i];
    if (value === undefined) throw new LoginError(`${name} needs a value`, 2);
    out[name] = value;
  }
  return out;
}

async function ask(io: Io, question: string, given: string | undefined): Promise<string> {
  if (given !== undefined) return given.trim();
  if (!io.stdin.isTTY) throw new LoginError(`${question.split(" (")[0]} is missing: pass it as an option (${OPTIONS.join(", ")}) when stdin is not a terminal`, 2);
  io.stderr.write(question);
  for await (const line of readLinesOnce(io.stdin)) return line.trim();
  throw new LoginError("cancelled", 130);
}

async function* readLinesOnce(stdin: NodeJS.ReadStream): AsyncGenerator<string> {
  let buf = "";
  for await (const chunk of stdin as AsyncIterable<Buffer | string>) {
    buf += chunk.toString();
    const nl = buf.indexOf("\n");
    if (nl >= 0) {
      stdin.pause();
      yield buf.slice(0, nl);
      return;
    }
  }
}

export async function loginPiOpenAiCompatible(ctx: LoginContext, args: readonly string[], io: Io): Promise<number> {
  const opts = parsePiOptions(args);
  const baseUrl = await ask(io, "Base URL (such as https://api.example.com/v1): ", opts["--base-url"]);
  const wire = await ask(io, "Wire API (responses or chat) [responses]: ", opts["--wire-api"] ?? (io.stdin.isTTY ? undefined : "responses"));
  const model = await ask(io, "Default model: ", opts["--model"]);
  const wireApi = checkEndpoint(baseUrl, wire || "responses", model);
  const key = io.stdin.isTTY ? await readHidden(io, "API key (input hidden): ") : await readPiped(io.stdin);
  checkKey(key);
  const dir = preparePi(ctx);
  writePiEndpoint(dir, { baseUrl, wireApi, model, key });
  forgetImport(ctx.scvHome, "pi"); // this sign-in replaces any imported copy of SCV's provider
  io.stdout.write(`pi: provider "scv" (${wireApi} API, endpoint ${endpointHost(baseUrl)}) is pi's default with model ${model}; files in ${dir} (mode 0600)\n`);
  return 0;
}

export function importPiFromScvProvider(ctx: LoginContext, io: Io): number {
  const copy = activeProviderCopy(ctx.config, ctx.env);
  const dir = preparePi(ctx);
  // Without allowKeyless the copy always has a key (a keyless profile is refused above).
  writePiEndpoint(dir, { baseUrl: copy.base_url, wireApi: copy.wire_api, model: copy.model, key: copy.key!, headers: copy.headers });
  writeImportRecord(ctx.scvHome, {
    agent: "pi",
    source: `SCV's provider "${copy.name}"`,
    command: "scv agents import pi --from-scv-provider",
    digest: providerDigest(copy, "pi"),
  });
  io.stdout.write(
    `pi: copied SCV's provider "${copy.name}" as pi's default provider "scv" (${copy.wire_api} API, model ${copy.model}, endpoint ${endpointHost(copy.base_url)}); files in ${dir} (mode 0600)\n`,
  );
  return 0;
}

function preparePi(ctx: LoginContext): string {
  const environment = agentEnvironment(descriptorFor("pi")!, { scvHome: ctx.scvHome, env: ctx.env, full: false });
  preparePrivateHome(environment);
  return environment.stateDir!;
}

/** `scv agents logout pi`: auth.json, the `scv` provider, and a default that points at it. */
export function logoutPi(dir: string): string[] {
  const done: string[] = [];
  const auth = join(dir, "auth.json");
  if (existsSync(auth)) {
    rmSync(auth, { force: true });
    done.push(`removed ${auth}`);
  }
  const modelsFile = join(dir, "models.json");
  const models = safeJson(modelsFile);
  if (models?.providers && typeof models.providers === "object" && PI_PROVIDER in models.providers) {
    delete models.providers[PI_PROVIDER];
    writePrivateFileAtomic(modelsFile, `${JSON.stringify(models, null, 2)}\n`);
    done.push(`removed provider "scv" from ${modelsFile}`);
  }
  const settingsFile = join(dir, "settings.json");
  const settings = safeJson(settingsFile);
  if (settings?.defaultProvider === PI_PROVIDER) {
    delete settings.defaultProvider;
    delete settings.defaultModel;
    writePrivateFileAtomic(settingsFile, `${JSON.stringify(settings, null, 2)}\n`);
    done.push(`removed the default provider "scv" from ${settingsFile}`);
  }
  return done;
}

function safeJson(file: string): Json | undefined {
  try {
    const v = JSON.parse(readFileSync(file, "utf8"));
    return v && typeof v === "object" && !Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

const NAME = /^[\w.@/-]{1,64}$/;
const shown = (v: unknown) => (typeof v === "string" && NAME.test(v) ? v : undefined);

/** pi's status: default provider, its API and endpoint host, the model, and which providers have sign-ins. */
export function piStatusDetail(dir: string): string {
  const settings = safeJson(join(dir, "settings.json")) ?? {};
  const providers = (safeJson(join(dir, "models.json"))?.providers ?? {}) as Json;
  const signIns = Object.keys(safeJson(join(dir, "auth.json")) ?? {}).filter((p) => NAME.test(p));
  const parts: string[] = [];
  const provider = shown(settings.defaultProvider);
  if (provider) {
    const custom = providers[provider] as Json | undefined;
    const api = shown(custom?.api);
    const where = custom ? `${api ?? "api ?"}, endpoint ${endpointHost(custom.baseUrl)}` : "built in";
    parts.push(`default provider ${provider} (${where})`);
  } else parts.push("no default provider");
  const model = shown(settings.defaultModel);
  if (model) parts.push(`model ${model}`);
  parts.push(signIns.length ? `stored sign-ins: ${signIns.join(", ")}` : "no stored sign-ins");
  return parts.join(", ");
}
