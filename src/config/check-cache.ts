// The config check cache: $SCV_HOME/state/config-check.json remembers the last configuration that passed
// validation, so that a process whose config files did not change skips zod. Why: every nested `scv server
// --stdio` child loads the configuration before its first model request, and building the schemas and parsing
// cost about 3 ms per process although the files rarely change.
//
// The file holds a digest, the loaded result with every secret value replaced by null, and nothing else. The
// digest covers everything the load read (both files' paths and texts, SCV_PROVIDER, SCV_MODEL), SCV's version
// and build, and the stored result itself; on a match the result is used as it stands, its secrets put back
// from the config files. So the file is trusted like config.toml itself: it is the user's own (0600 in SCV's
// 0700 state directory), and an edit, a torn write or other corruption only makes it miss. Deleting it is
// always safe. This module must not load the schemas (src/config/schema.ts values, zod): that is its point.
import { mkdirSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { sha256Hex } from "../digest";
import { VERSION } from "../version";
import type { LoadedConfig } from "./loaded";
import { writePrivateFileAtomic } from "../fs/private-file";
import { MiB, readBoundedTextIfExists } from "../fs/safe-read";
import { registeredCheckSources } from "./checks";
import { SECRET_KEYS } from "./secret-keys";
import { withoutUrlCredentials } from "./show";

const FORMAT = 1;
// The file is `{"scv_config_check":1,"sum":"<sha256>","loaded":<result>}`: the sum covers the inputs and the
// result's exact text.
const HEAD = `{"scv_config_check":${FORMAT},"sum":"`;
const MID = `","loaded":`;
const TAIL = "}\n";
const SUM_LENGTH = 64;

export const configCheckFile = (scvHome: string) => join(scvHome, "state", "config-check.json");

/** The stored form of a LoadedConfig: JSON, secrets as null, sources as entries. */
interface Stored {
  config: LoadedConfig["config"];
  sources: [string, string][];
  /** Where config had a secret, now null. */
  secrets: string[][];
  userFile: string;
  projectFile?: string;
}

type Texts = { user: string | null; project: string | null };

/** The result stored for `key` (everything the load read), or undefined: no file, another key, or damaged. */
export function readConfigCheck(scvHome: string, key: string, texts: Texts): LoadedConfig | undefined {
  try {
    const text = readBoundedTextIfExists(configCheckFile(scvHome), { what: "config check cache", maxBytes: 8 * MiB, followSymlink: false });
    if (!text?.startsWith(HEAD) || !text.endsWith(TAIL)) return undefined;
    const sum = text.slice(HEAD.length, HEAD.length + SUM_LENGTH);
    if (!text.startsWith(MID, HEAD.length + SUM_LENGTH)) return undefined;
    const stored = text.slice(HEAD.length + SUM_LENGTH + MID.length, -TAIL.length);
    if (sum !== checkSum(key, stored)) return undefined;
    return fromStored(JSON.parse(stored), texts);
  } catch {
    return undefined; // unreadable or malformed: a miss
  }
}

/**
 * Stores a successful load for `key`, only if reading it back gives exactly `loaded`. Best effort: a home
 * that does not exist or cannot be written simply has no cache.
 */
export function writeConfigCheck(scvHome: string, key: string, loaded: LoadedConfig, texts: Texts): void {
  try {
    const secrets: string[][] = [];
    const stored = JSON.stringify({
      config: withoutSecrets(loaded.config, [], secrets) as Stored["config"],
      sources: [...loaded.sources],
      secrets,
      userFile: loaded.userFile,
      projectFile: loaded.projectFile,
    } satisfies Stored);
    if (!Bun.deepEquals(fromStored(JSON.parse(stored), texts), loaded, true)) return;
    const state = join(scvHome, "state");
    try {
      mkdirSync(state, { mode: 0o700 }); // not recursive: a load never creates SCV_HOME itself
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") return;
    }
    writePrivateFileAtomic(configCheckFile(scvHome), sealConfigCheck(key, stored), { durable: false });
  } catch {
    // No cache this time; the next load validates again.
  }
}

/** The file's text for a stored result (JSON) of the load `key` names. */
export function sealConfigCheck(key: string, stored: string): string {
  return `${HEAD}${checkSum(key, stored)}${MID}${stored}${TAIL}`;
}

function checkSum(key: string, stored: string): string {
  return sha256Hex(`${JSON.stringify([FORMAT, VERSION, codeStamp(), key])}\n${stored}`);
}

let stamp: string | undefined;
/**
 * Which code judged the stored result. Development builds share a version, so a rebuilt binary (its size and
 * time) or, run from source, an edited config module misses too.
 */
function codeStamp(): string {
  if (stamp !== undefined) return stamp;
  const files = [process.execPath];
  if (!import.meta.path.startsWith("/$bunfs/")) {
    files.push(...readdirSync(import.meta.dir).map((f) => join(import.meta.dir, f)));
    files.push(...registeredCheckSources());
  }
  stamp = files
    .map((f) => {
      try {
        const s = statSync(f);
        return `${f} ${s.size} ${s.mtimeMs}`;
      } catch {
        return f;
      }
    })
    .join("\n");
  return stamp;
}

/** A secret by its key, or a value that holds one (a URL with a user name or password). */
function isSecret(path: string[], value: unknown): boolean {
  const key = path.join(".");
  return typeof value === "string" && (SECRET_KEYS.some((re) => re.test(key)) || withoutUrlCredentials(value) !== value);
}

/** A copy of `value` with each secret replaced by null; `found` collects their paths. */
function withoutSecrets(value: unknown, path: string[], found: string[][]): unknown {
  if (isSecret(path, value)) {
    found.push(path);
    return null;
  }
  if (Array.isArray(value)) return value.map((v, i) => withoutSecrets(v, [...path, String(i)], found));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutSecrets(v, [...path, k], found)]));
  }
  return value;
}

const isStrings = (v: unknown, length?: number): v is string[] =>
  Array.isArray(v) && (length === undefined || v.length === length) && v.every((s) => typeof s === "string");
const at = (value: unknown, path: string[]): unknown =>
  path.reduce<unknown>((v, k) => (v && typeof v === "object" && Object.hasOwn(v, k) ? (v as Record<string, unknown>)[k] : undefined), value);

/** The stored result as a LoadedConfig, its secrets put back from the files their sources name; throws if it cannot be. */
function fromStored(stored: Stored, texts: Texts): LoadedConfig {
  const { config, sources, secrets, userFile, projectFile } = stored;
  const wellFormed =
    !!config &&
    typeof config === "object" &&
    Array.isArray(sources) &&
    sources.every((e) => isStrings(e, 2)) &&
    Array.isArray(secrets) &&
    secrets.every((p) => isStrings(p) && p.length > 0) &&
    typeof userFile === "string" &&
    (projectFile === undefined || typeof projectFile === "string");
  if (!wellFormed) throw new Error("config check cache: unexpected shape");
  const sourceOf = new Map(sources);
  const parsed = new Map<string, unknown>();
  for (const path of secrets) {
    // Sources name leaves, and an array is one leaf: an element's source is its array's.
    const file = path.map((_, i) => sourceOf.get(path.slice(0, path.length - i).join("."))).find(Boolean);
    const text = file === userFile ? texts.user : file === projectFile ? texts.project : null;
    if (!file || text === null) throw new Error("config check cache: a secret from no file");
    if (!parsed.has(file)) parsed.set(file, parseToml(text));
    const value = at(parsed.get(file), path);
    const parent = at(config, path.slice(0, -1));
    const key = path.at(-1)!;
    if (!isSecret(path, value) || !parent || typeof parent !== "object" || (parent as Record<string, unknown>)[key] !== null) {
      throw new Error("config check cache: a secret that is not in the files");
    }
    (parent as Record<string, unknown>)[key] = value;
  }
  return { config, sources: sourceOf, userFile, projectFile };
}
