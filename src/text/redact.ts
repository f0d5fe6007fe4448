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

/** Masks values that look like credentials. Used for progress lines, error text and stderr tails. */
export function redactSecrets(text: string): string {
  return text
    .replace(BEARER, (_m, scheme: string) => `${scheme} ${MASK}`)
    .replace(FLAG, (_m, name: string, sep: string) => `${name}${sep}${MASK}`)
    .replace(ASSIGNMENT, (_m, name: string) => `${name}=${MASK}`)
    .replace(JSON_PAIR, (_m, name: string) => `${name}"${MASK}"`)
    .replace(KNOWN_TOKENS, MASK);
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
