// Display redaction for delegated agents' progress lines and error text. A heuristic that keeps status lines
// short and avoids echoing obvious secrets, not a guarantee: paths keep their last two components, URLs lose
// their query and fragment, and values that look like credentials become "…".

const MASK = "…";
const SECRET_WORD = "(?:key|token|secret|password|passwd)";

/** Tokens with a well-known credential prefix (API keys, personal access tokens, JWTs). */
const KNOWN_TOKENS =
  /\b(?:sk-[A-Za-z0-9_-]{8,}|(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{16,}|glpat-[A-Za-z0-9_-]{16,}|xox[abposr]-[A-Za-z0-9-]{8,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{20,}|xai-[A-Za-z0-9]{16,}|hf_[A-Za-z0-9]{16,}|npm_[A-Za-z0-9]{20,}|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+)/g;
/**
 * An authorization scheme and its credential. The credential must look like one (an inner capital, a digit or
 * a symbol, or 20+ letters), so prose such as "Missing bearer or basic authentication in header" is left alone.
 * Case-sensitive after the scheme (the scheme itself matches any case), so a capital can mark a credential.
 */
const BEARER = /\b([Bb][Ee][Aa][Rr][Ee][Rr]|[Bb][Aa][Ss][Ii][Cc]|[Tt][Oo][Kk][Ee][Nn])\s+(?:(?=[A-Za-z0-9._~+/=-][a-z]*[A-Z0-9._~+/=-])[A-Za-z0-9._~+/=-]{6,}|[A-Za-z]{20,}(?![A-Za-z0-9._~+/=-]))/g;
const VALUE = `("[^"]*"|'[^']*'|[^\\s"']+)`;
/**
 * NAME=value where the name mentions a key, token, secret, or password (env assignments, query-like pairs),
 * including a name that is only the word itself (`TOKEN=…`, `KEY=…`).
 */
const ASSIGNMENT = new RegExp(`\\b((?:[A-Za-z_][A-Za-z0-9_.-]*)?${SECRET_WORD}[A-Za-z0-9_.-]*)=${VALUE}`, "gi");
/** --name value / --name=value for such names. */
const FLAG = new RegExp(`(--?[A-Za-z0-9-]*${SECRET_WORD}[A-Za-z0-9-]*)(\\s+|=)${VALUE}`, "gi");
/** "name": "value" in JSON-ish text. */
const JSON_PAIR = new RegExp(`("[A-Za-z0-9_.-]*${SECRET_WORD}[A-Za-z0-9_.-]*"\\s*:\\s*)("[^"]*"|[^\\s,}]+)`, "gi");
const URL = /\b[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^\s"'<>`]+/g;
const PATH = /(?:~|\.{1,2})?(?:\/[^\s"'`<>|;&(),=:]+)+\/?|[\w.@+-]+(?:\/[^\s"'`<>|;&(),=:]+){2,}\/?/g;

/**
 * The credential shapes, in the order they are masked: each with what it is (for a refusal that says why) and
 * how it is masked. The one list both redactSecrets and findSecretShape read, so a format added here is both
 * masked in output and refused where text must not hold a key at all (memory).
 */
const SHAPES: { what: string; pattern: RegExp; mask: (...groups: string[]) => string }[] = [
  { what: "an authorization header value", pattern: BEARER, mask: (_m, scheme) => `${scheme} ${MASK}` },
  { what: "a credential passed as an option", pattern: FLAG, mask: (_m, name, sep) => `${name}${sep}${MASK}` },
  { what: "a key, token or password assignment", pattern: ASSIGNMENT, mask: (_m, name) => `${name}=${MASK}` },
  { what: "a key, token or password field", pattern: JSON_PAIR, mask: (_m, name) => `${name}"${MASK}"` },
  { what: "an API key or access token", pattern: KNOWN_TOKENS, mask: () => MASK },
];

/** Masks values that look like credentials. Used for progress lines, error text and stderr tails. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const shape of SHAPES) out = out.replace(shape.pattern, shape.mask as (...a: string[]) => string);
  return out;
}

/** What the first credential-looking value in `text` looks like (`an API key or access token`), or undefined. */
export function findSecretShape(text: string): string | undefined {
  for (const shape of SHAPES) {
    shape.pattern.lastIndex = 0;
    const hit = shape.pattern.test(text);
    shape.pattern.lastIndex = 0;
    if (hit) return shape.what;
  }
  return undefined;
}

/** A URL without its query, fragment or user info. */
function trimUrl(url: string): string {
  let out = url.replace(/[?#].*$/, "");
  out = out.replace(/^([a-zA-Z][a-zA-Z0-9+.-]*:\/\/)[^/@]*@/, "$1");
  return out;
}

/** A path reduced to its last two components. */
export function shortPath(p: string): string {
  const parts = p.split("/").filter((c) => c !== "");
  return parts.length > 2 ? parts.slice(-2).join("/") : p;
}

function shortenPaths(text: string): string {
  return text.replace(PATH, (m) => shortPath(m));
}

/** One short status line: secrets masked, URLs trimmed, paths shortened, one line, bounded. */
export function redactProgress(line: string, maxChars = 200): string {
  const first = line.replace(/\r/g, "").split("\n").find((l) => l.trim() !== "") ?? "";
  const masked = redactSecrets(first.replace(/\p{Cc}/gu, " ").trim());
  let out = "";
  let at = 0;
  for (const m of masked.matchAll(URL)) {
    out += shortenPaths(masked.slice(at, m.index)) + trimUrl(m[0]);
    at = m.index + m[0].length;
  }
  out += shortenPaths(masked.slice(at));
  return out.length > maxChars ? `${out.slice(0, maxChars - 1)}${MASK}` : out;
}
