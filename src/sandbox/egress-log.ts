// The egress proxy's log ($SCV_HOME/state/sandbox-network.jsonl): one JSON line per decision, written by the proxy
// (egress-proxy.ts) and read by `scv sandbox log` and the web page. Bounded: past EGRESS_LOG_MAX_BYTES the file
// becomes `sandbox-network.jsonl.1` (the one previous file kept, the older one dropped) and a new file starts, so
// the two hold at most twice the bound. Nothing secret is written: a command's URLs lose their user info, query
// and fragment, credential-looking values are masked, and every field is cut to a bound.
import { appendFileSync, mkdirSync, readFileSync, renameSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { redactSecrets } from "../text/redact";
import { scrubSecrets } from "../text/scrub";

/** One line of the proxy's log. */
export interface EgressEntry {
  time: string;
  action: "allowed" | "refused";
  host: string;
  port: number;
  /** CONNECT, SOCKS5, or the plain HTTP method. */
  via: string;
  reason?: string;
  session?: string;
  command?: string;
}

/** Where the proxy's log lives. */
export const egressLogFile = (scvHome: string) => join(scvHome, "state", "sandbox-network.jsonl");

/** The size at which the log is rotated (one previous file is kept: at most twice this on disk). */
export const EGRESS_LOG_MAX_BYTES = 4 * 1024 * 1024;

const COMMAND_CHARS = 200;
const REASON_CHARS = 300;
const HOST_CHARS = 255;

/** A URL as the log keeps it: scheme, host, port and path; no user info, query or fragment. */
const URL_IN_TEXT = /\b([a-zA-Z][a-zA-Z0-9+.-]*:\/\/)([^\s"'<>`]+)/g;
/** curl's and wget's credentials given as an option (`-u user:pass`, `--user=…`, `--proxy-user …`; `--password …` is redactSecrets'). */
const USER_OPTION = /((?:^|\s)(?:-u|--user|--proxy-user|--http-user|--ftp-user))(\s+|=)("[^"]*"|'[^']*'|[^\s"']+)/g;
/** A header given on the command line whose name says it carries a credential (`-H "X-Api-Key: …"`, `Cookie: …`). */
const CREDENTIAL_HEADER = /\b([A-Za-z0-9-]*(?:key|token|secret|password|auth[a-z]*|cookie)[A-Za-z0-9-]*:[ \t]*)[^"'\n]+/gi;

function trimUrls(text: string): string {
  return text.replace(URL_IN_TEXT, (_m, scheme: string, rest: string) => `${scheme}${rest.replace(/[?#].*$/, "").replace(/^[^/@]*@/, "")}`);
}

/** Text fit for the log: URLs trimmed, credentials masked, known key formats and registered secrets scrubbed, cut. */
export function safeLogText(text: string, max: number): string {
  const masked = redactSecrets(trimUrls(text)).replace(USER_OPTION, "$1$2…").replace(CREDENTIAL_HEADER, "$1…");
  const out = scrubSecrets(masked, []);
  return out.length > max ? `${out.slice(0, max - 1)}…` : out;
}

/** The entry as it is written: every field bounded, nothing secret (see the file's comment). */
export function safeEntry(e: EgressEntry, safe: (text: string, max: number) => string = safeLogText): EgressEntry {
  return {
    time: e.time,
    action: e.action,
    host: safe(e.host.replace(/^.*@/, ""), HOST_CHARS),
    port: e.port,
    via: e.via.slice(0, 16),
    ...(e.reason ? { reason: safe(e.reason, REASON_CHARS) } : {}),
    ...(e.session ? { session: e.session.slice(0, 100) } : {}),
    ...(e.command ? { command: safe(e.command, COMMAND_CHARS) } : {}),
  };
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/**
 * Appends `entry` (made safe) to the log at `file`, first rotating the file when the line would take it past
 * `maxBytes`. Several SCV processes may append at once: each line is one append (O_APPEND); two writers that
 * rotate at the same moment can drop the previous generation early, and overshoot the bound by a line or two.
 * The log is a record, not a gate: a failure to write it is ignored.
 */
export function appendEgressLog(file: string, entry: EgressEntry, maxBytes = EGRESS_LOG_MAX_BYTES): void {
  const line = `${JSON.stringify(safeEntry(entry))}\n`;
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const size = sizeOf(file);
    if (size > 0 && size + Buffer.byteLength(line) > maxBytes) {
      try {
        renameSync(file, `${file}.1`);
      } catch {
        // another writer moved it first: this line starts the new file
      }
    }
    appendFileSync(file, line, { mode: 0o600 });
  } catch {
    // the decision stands without its record
  }
}

/** How every line the writer makes starts: its time and action, read without parsing the line. */
const LINE_HEAD = /^\{"time":"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)","action":"(allowed|refused)"/;

/** The lines of the previous file and the current one at or after `since`, oldest first, with their action when the head says it. */
function linesSince(scvHome: string, since: number): { line: string; action?: string }[] {
  const file = egressLogFile(scvHome);
  const out: { line: string; action?: string }[] = [];
  const from = new Date(since).toISOString(); // ISO times of one shape compare as strings
  for (const f of [`${file}.1`, file]) {
    let text: string;
    try {
      text = readFileSync(f, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n")) {
      if (!line) continue;
      const head = LINE_HEAD.exec(line);
      if (head && head[1]! < from) continue;
      out.push({ line, ...(head ? { action: head[2] } : {}) });
    }
  }
  return out;
}

/** Entries from log lines (a line cut short by a crash, or not of the log's shape, is left out), made safe again. */
function entriesOf(lines: readonly string[], since: number): EgressEntry[] {
  // One command makes many connections to few hosts: each distinct text is made safe once per read.
  const seen = new Map<string, string>();
  const safe = (text: string, max: number) => {
    const key = `${max}\u0000${text}`;
    let done = seen.get(key);
    if (done === undefined) seen.set(key, (done = safeLogText(text, max)));
    return done;
  };
  const out: EgressEntry[] = [];
  for (const line of lines) {
    try {
      const e = JSON.parse(line) as EgressEntry;
      // Made safe again as it is read: a line written before the log was kept safe shows nothing secret either.
      if (typeof e.time === "string" && typeof e.host === "string" && Date.parse(e.time) >= since) out.push(safeEntry({ ...e, via: String(e.via ?? "") }, safe));
    } catch {
      // not a whole line
    }
  }
  return out;
}

/** The entries at or after `since` (ms since the epoch), oldest first, from the previous file and the current one. */
export function readEgressLog(scvHome: string, since = 0): EgressEntry[] {
  return entriesOf(
    linesSince(scvHome, since).map((l) => l.line),
    since,
  );
}

export interface EgressSummary {
  allowed: number;
  refused: number;
  /** The latest refusals, newest first. */
  latest: EgressEntry[];
}

/**
 * What the proxy decided since `since`, counted, and its latest `count` refusals: only those are parsed and made
 * safe, so a full log (two files of 4 MiB) is summed up in a few milliseconds for a page that asks often.
 */
export function egressSummary(scvHome: string, since: number, count: number): EgressSummary {
  const lines = linesSince(scvHome, since);
  let allowed = 0;
  const refused: string[] = [];
  for (const l of lines) {
    const action = l.action ?? entriesOf([l.line], since)[0]?.action;
    if (action === "allowed") allowed++;
    else if (action === "refused") refused.push(l.line);
  }
  return { allowed, refused: refused.length, latest: entriesOf(refused.slice(-count), since).reverse() };
}
