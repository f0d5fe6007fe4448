// What a `bash` command's environment holds: an allowlist of SCV's own variables (execution, locale, terminal,
// temporary directories) plus what `tools.bash_env` names, never the rest (provider, channel, search, cloud and
// agent keys stay with SCV); and, for one call, the secret bindings it asked for, whose values are then
// replaced in its output by `<redacted:TARGET>`.
import type { Config } from "../config/schema";
import { ToolError } from "../errors";

/** Variables every command gets when SCV has them (docs/security.md, "The bash environment"). */
export const BASH_ENV_ALLOWLIST = ["PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TERM", "COLORTERM", "NO_COLOR", "TMPDIR", "TMP", "TEMP"];
const LOCALE = /^LC_[A-Z_]+$/;
/** The process runner's tracking variables: they let a nested SCV's runs be found and carry no secret. */
const TRACKING = ["SCV_RUN_TAG", "SCV_PARENT"];

type Env = Readonly<Record<string, string | undefined>>;

/** The environment a `bash` command runs with (before any secret binding). */
export function bashEnvironment(env: Env, extra: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v !== undefined && (BASH_ENV_ALLOWLIST.includes(k) || LOCALE.test(k) || TRACKING.includes(k))) out[k] = v;
  }
  for (const entry of extra) {
    const eq = entry.indexOf("=");
    if (eq > 0) out[entry.slice(0, eq)] = entry.slice(eq + 1);
    else if (env[entry] !== undefined) out[entry] = env[entry]!;
  }
  return out;
}

/** The names `bash` would get, for `scv config show` (values are never shown: a listed one may be a secret). */
export function bashEnvironmentNames(env: Env, extra: readonly string[]): string[] {
  return Object.keys(bashEnvironment(env, extra)).filter((k) => !TRACKING.includes(k)).sort();
}

export interface BoundSecrets {
  /** Variables to add to the command's environment. */
  env: Record<string, string>;
  /** Replaces every exact occurrence of a bound value with `<redacted:TARGET>`. */
  redact(text: string): string;
  /** The earliest expiry among the bindings, in seconds from the call's start. */
  expiresInSeconds?: number;
  /** What the approval shows: target and source, never the value. */
  describe: string[];
}

type Binding = Config["tools"]["secret_bindings"][number];

/** A binding's name, the variable it sets: its target, or the source variable's own name. */
export function bindingName(b: Binding): string {
  return b.target ?? b.source.slice("env:".length);
}

/** How the approval shows the requested bindings; unknown names are refused here, before anyone is asked. */
export function describeBindings(bindings: readonly Binding[], names: readonly string[]): string[] {
  return names.map((name) => {
    const b = findBinding(bindings, name);
    return `${name} (from ${b.source}${b.expires_in_seconds ? `, expires after ${b.expires_in_seconds}s` : ""})`;
  });
}

function findBinding(bindings: readonly Binding[], name: string): Binding {
  const b = bindings.find((x) => bindingName(x) === name);
  if (!b) {
    const known = bindings.map(bindingName);
    throw new ToolError(`no secret binding named ${name}; ${known.length ? `configured: ${known.join(", ")}` : "none is configured (tools.secret_bindings in your user config)"}`);
  }
  return b;
}

/** Resolves the requested bindings from SCV's environment at run time. */
export function bindSecrets(bindings: readonly Binding[], names: readonly string[], env: Env): BoundSecrets {
  const out: Record<string, string> = {};
  const values: [string, string][] = [];
  let expires: number | undefined;
  for (const name of names) {
    const b = findBinding(bindings, name);
    const source = b.source.slice("env:".length);
    const value = env[source];
    if (!value) throw new ToolError(`secret binding ${name}: ${source} is not set in SCV's environment; set it where SCV starts`);
    out[name] = value;
    values.push([value, name]);
    if (b.expires_in_seconds) expires = Math.min(expires ?? Infinity, b.expires_in_seconds);
  }
  // Longest first, so a value that contains another is replaced whole.
  values.sort((a, b) => b[0].length - a[0].length);
  return {
    env: out,
    redact: (text) => values.reduce((t, [value, target]) => t.split(value).join(`<redacted:${target}>`), text),
    ...(expires !== undefined ? { expiresInSeconds: expires } : {}),
    describe: describeBindings(bindings, names),
  };
}
