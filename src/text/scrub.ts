// The one scrubber for configured secrets (provider keys, search keys, extra header values) in text that came
// back from a service: error messages, echoed bodies, search results. A service can echo a key as is, inside a
// URL (percent-encoded), inside JSON (escaped), or quote only its end ("key ending in MARK-123"); all of these
// are replaced.
import { findSecretShape } from "./redact";

export interface ScrubOptions {
  /** What replaces a secret (default "***"). */
  replacement?: string;
  /**
   * Also replace the key's first 8 characters (keys of 12+) and any run of its last 4+ characters, as masked
   * echoes quote them. Meant for the one key a service was sent; default true.
   */
  partial?: boolean;
}

/** Secrets shorter than this are not scrubbed as whole values: they would hit ordinary words. */
const MIN_SECRET = 4;
const MIN_QUOTED_END = 4;

/** The forms a value takes when a service echoes it: raw, percent-encoded (both hex cases, form style), JSON-escaped. */
export function secretForms(secret: string): string[] {
  const forms = new Set<string>([secret]);
  const pct = encodeURIComponent(secret);
  forms.add(pct);
  forms.add(pct.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()));
  forms.add(new URLSearchParams({ k: secret }).toString().slice(2)); // form encoding: space as +
  const json = JSON.stringify(secret).slice(1, -1);
  forms.add(json);
  forms.add(json.replace(/\//g, "\\/"));
  // Every non-alphanumeric character as \uXXXX, as some encoders write them.
  forms.add(secret.replace(/[^A-Za-z0-9]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`));
  return [...forms].filter((f) => f.length >= MIN_SECRET).sort((a, b) => b.length - a.length);
}

/**
 * The secret as other encoders write it: base64 (standard and URL-safe, at each of the three byte offsets it can
 * start at inside a longer encoding, keeping only the characters its own bytes decide), hex in both cases, and
 * reversed. Literal texts, so the scrubber replaces them and a detector finds them with `includes`.
 */
export function encodedForms(secret: string): string[] {
  const bytes = Buffer.from(secret, "utf8");
  const forms = new Set<string>();
  for (let lead = 0; lead < 3; lead++) {
    const b64 = Buffer.concat([Buffer.alloc(lead), bytes]).toString("base64").replace(/=+$/, "");
    const part = b64.slice(Math.ceil((8 * lead) / 6), Math.floor((8 * (lead + bytes.length)) / 6));
    forms.add(part);
    forms.add(part.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  const hex = bytes.toString("hex");
  forms.add(hex);
  forms.add(hex.toUpperCase());
  forms.add([...secret].reverse().join(""));
  return [...forms].filter((f) => f.length >= MIN_SECRET && f !== secret);
}

/** Spaces, line breaks, zero-width and joining characters a secret may be spread out with. */
const SPREAD = /[\s\u00ad\u034f\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]+/g;
/** Secrets shorter than this are not looked for once text is squeezed of separators: they would hit ordinary text. */
const MIN_SQUEEZED = 10;

const squeeze = (text: string) => text.replace(SPREAD, "").replace(/[^\p{L}\p{N}]+/gu, "");

/**
 * Whether `text` holds one of `secrets` in any form the scrubber knows (raw, percent, JSON, base64, hex,
 * reversed), or spread out with spaces, punctuation or zero-width characters between its characters (`s k - 1 2`,
 * `s\u200bk…`). For refusing to keep text (memory), where a form the scrubber cannot cut out still counts.
 */
/**
 * Why text must not be kept (memory, a skill): it looks like a key, token or password, or holds one of `known`
 * (configured secrets of 8 characters or more) in any form holdsSecret knows. Undefined when it can be kept.
 */
export function secretIn(text: string, known: readonly string[] = []): string | undefined {
  return findSecretShape(text) ?? (holdsSecret(text, known.filter((s) => s.length >= 8)) ? "a configured secret" : undefined);
}

export function holdsSecret(text: string, secrets: readonly (string | undefined)[]): boolean {
  const given = secrets.filter((s): s is string => !!s && s.length >= MIN_SECRET);
  if (!given.length) return false;
  let squeezed: string | undefined;
  for (const secret of given) {
    if ([...secretForms(secret), ...encodedForms(secret)].some((f) => text.includes(f))) return true;
    const re = anyPercentEncoding(secret);
    re.lastIndex = 0;
    const hit = re.test(text);
    re.lastIndex = 0;
    if (hit) return true;
    const bare = squeeze(secret);
    if (bare.length < MIN_SQUEEZED) continue;
    squeezed ??= squeeze(text);
    const reversed = [...bare].reverse().join("");
    if (squeezed.includes(bare) || squeezed.includes(reversed) || encodedForms(bare).some((f) => f.length >= MIN_SQUEEZED && squeezed!.includes(f))) return true;
  }
  return false;
}

/** Hex digits of a byte, each letter matching either case: 0x2d -> "2[dD]". */
function hexEitherCase(byte: number): string {
  return byte
    .toString(16)
    .toUpperCase()
    .padStart(2, "0")
    .replace(/[A-F]/g, (c) => `[${c}${c.toLowerCase()}]`);
}

const encodedPatterns = new Map<string, RegExp>();
const MAX_CACHED_PATTERNS = 64;

/**
 * The secret with any mix of its characters percent-encoded (upper- or lower-case hex, `+` for a space), the raw
 * secret among them: an encoder may escape every non-alphanumeric character (`sk%2DMARK`), or more, or fewer,
 * than `encodeURIComponent` does.
 */
function anyPercentEncoding(secret: string): RegExp {
  let re = encodedPatterns.get(secret);
  if (re) return re;
  const utf8 = new TextEncoder();
  let source = "";
  for (const ch of secret) {
    const encoded = [...utf8.encode(ch)].map((b) => `%${hexEitherCase(b)}`).join("");
    const literal = ch.replace(/[\\^$.*+?()[\]{}|\/-]/g, "\\$&");
    source += `(?:${literal}|${encoded}${ch === " " ? "|\\+" : ""})`;
  }
  re = new RegExp(source, "g");
  if (encodedPatterns.size >= MAX_CACHED_PATTERNS) encodedPatterns.clear();
  encodedPatterns.set(secret, re);
  return re;
}

/** Replaces every known form of each secret; with `partial`, also the first key's prefix and quoted end. */
export function scrubKnown(text: string, secrets: readonly (string | undefined)[], opts: ScrubOptions = {}): string {
  const rep = opts.replacement ?? "***";
  let out = text;
  const given = secrets.filter((s): s is string => !!s && s.length >= MIN_SECRET);
  for (const secret of given) {
    out = out.replace(anyPercentEncoding(secret), rep);
    // Base64, hex and reversed forms only for secrets long enough that they cannot be ordinary text.
    const forms = secret.length >= 8 ? [...secretForms(secret), ...encodedForms(secret)].sort((a, b) => b.length - a.length) : secretForms(secret);
    for (const form of forms) out = out.split(form).join(rep);
  }
  const key = given[0];
  if (key && opts.partial !== false && key === secrets[0]) {
    if (key.length >= 12) out = out.split(key.slice(0, 8)).join(rep);
    out = scrubQuotedEnd(out, key, rep);
  }
  return out;
}

/**
 * Every run of the key's last characters of length 4 or more ("ending in MARK-123", "…c66a"). A run longer
 * than the key's last 4 is removed whole, so no extra character of the key stays.
 */
function scrubQuotedEnd(text: string, key: string, rep: string): string {
  if (key.length < MIN_QUOTED_END + 2) return text; // a short key was removed whole above; its end is the key
  const tail = key.slice(-MIN_QUOTED_END);
  let out = "";
  let from = 0;
  for (let at = text.indexOf(tail); at !== -1; at = text.indexOf(tail, at + tail.length)) {
    let start = at;
    // Extend backwards while the text keeps matching the key from its end.
    for (let k = key.length - MIN_QUOTED_END - 1; k >= 0 && start > from && text[start - 1] === key[k]; k--) start--;
    out += text.slice(from, start) + rep;
    from = at + tail.length;
  }
  return out + text.slice(from);
}

/**
 * Well-known key formats, masked wherever text is kept or searched (stored sessions, search results), whether
 * or not the key is configured here: a key pasted into a prompt or printed by a command is still a key.
 */
/** A key starts at a word boundary, or right after a JSON escape (`\n` before a key in a stored record). */
const START = String.raw`(?:(?<=\\[nrtbf])|(?<![A-Za-z0-9_]))`;
const KEY_FORMATS: RegExp[] = [
  /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY-----[\s\S]*?-----END \1PRIVATE KEY-----/g, // PEM private keys
  ...[
    String.raw`sk-ant-[A-Za-z0-9_-]{16,}`, // Anthropic
    String.raw`sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`, // OpenAI and compatible
    String.raw`gh[pousr]_[A-Za-z0-9]{30,}`, // GitHub tokens
    String.raw`github_pat_[A-Za-z0-9_]{30,}`, // GitHub fine-grained tokens
    String.raw`xox[abp]-[A-Za-z0-9-]{10,}`, // Slack
    String.raw`(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])`, // AWS access key IDs
    String.raw`AIza[0-9A-Za-z_-]{35}`, // Google API keys
  ].map((source) => new RegExp(START + source, "g")),
];

/** Masks every well-known key format in `text` (see KEY_FORMATS). */
export function maskKeyFormats(text: string, replacement = "***"): string {
  let out = text;
  for (const re of KEY_FORMATS) out = out.replace(re, (m) => (m.startsWith("-----BEGIN") ? `-----BEGIN PRIVATE KEY-----${replacement}-----END PRIVATE KEY-----` : replacement));
  return out;
}

/**
 * Secrets that are not in the configuration the server reads (a chat platform's token from its login, later
 * MCP and binding secrets): each source registers a function returning its current values, and every
 * scrubSecrets call includes them. Process-wide on purpose: a secret known anywhere in the process is a secret
 * for everything it writes.
 */
const registered = new Map<string, () => readonly (string | undefined)[]>();

export function registerSecretSource(name: string, values: () => readonly (string | undefined)[]): void {
  registered.set(name, values);
}

export function registeredSecrets(): string[] {
  const out: string[] = [];
  for (const values of registered.values()) {
    try {
      for (const v of values()) if (v) out.push(v);
    } catch {
      // a source that cannot say today contributes nothing
    }
  }
  return out;
}

/**
 * The one detector for text that is kept or shown later: every configured secret given, every registered one,
 * in any of their encodings, and every well-known key format, replaced with `***`.
 */
export function scrubSecrets(text: string, configured: readonly (string | undefined)[]): string {
  const secrets = [...configured, ...registeredSecrets()].filter((s): s is string => !!s && s.length >= 8);
  const out = secrets.length ? scrubKnown(text, secrets, { partial: false }) : text;
  return maskKeyFormats(out);
}
