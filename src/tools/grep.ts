// The `grep` tool: a regular-expression search of workspace files, run natively (no shell), read-only. It walks
// the workspace as glob does (ignore files, no .git, no secret-like paths unless named), skips binary and large
// files, streams matches into a capped result and stops at a time limit, yielding to the event loop as it goes so
// a cancel lands at once.
import * as fs from "node:fs";
import type { z } from "zod";
import { lazySchema } from "../lazy-schema";
import { ToolError } from "../errors";
import type { SessionScope } from "../scope";
import { defineTool, type Tool, type ToolCallContext, type ToolResult } from "./tool";
import { displayPath, WorkspacePath } from "../fs/workspace-paths";
import { globFilter, namedSecretLike, searchRisk, searchStart } from "./search-paths";
import { walkWorkspace, type WalkCounts } from "../fs/workspace-walk";
import { counted } from "../text/plural";

export const GrepArgs = lazySchema((z) => z.strictObject({
  pattern: z.string().min(1, "must not be empty").max(1000, "must be at most 1000 characters").describe("Regex"),
  path: WorkspacePath.optional(),
  glob: z.string().min(1).max(500).optional().describe('e.g. "*.ts"'),
  case_insensitive: z.boolean().optional(),
  context: z.number().int().min(0).max(10).optional().describe("Lines around a match"),
  max_results: z.number().int().min(1).max(1000).optional(),
}));
type GrepArgs = z.infer<typeof GrepArgs>;

/** Files larger than this are not searched (generated or data files). */
export const GREP_MAX_FILE_BYTES = 8 * 1024 * 1024;
export const GREP_TIME_LIMIT_MS = 20_000;
const DEFAULT_MAX_RESULTS = 100;
/** The first read of each file; most source files fit, so they cost one read. */
const FIRST_READ_BYTES = 64 * 1024;
/** Bytes looked at for a NUL to call a file binary. */
const BINARY_PROBE_BYTES = 8192;
const LINE_MAX_CHARS = 300;
/** The event loop gets a turn at least this often (cancellation, other sessions). */
const YIELD_EVERY_MS = 25;

export function createGrepTool(_scope: SessionScope): Tool {
  return defineTool({
    name: "grep",
    kind: "search",
    description:
      "Search workspace files for a JavaScript regex; returns `path:line: text` lines, honouring .gitignore and " +
      "skipping binary files. Use instead of grep or rg in bash.",
    parameters: GrepArgs,
    risk: searchRisk,
    summary: (args, ctx) => {
      compilePattern(args.pattern, args.case_insensitive ?? false);
      searchStart(ctx.workspace, args.path);
      return `grep ${JSON.stringify(args.pattern)} in ${displayPath(args.path ?? ".")}${args.glob ? ` (${args.glob})` : ""}`;
    },
    execute: (args, ctx) => grep(args, ctx),
  });
}

interface Found {
  lines: string[];
  matches: number;
  files: number;
  searched: number;
  binary: number;
  large: number;
  capped: boolean;
  timedOut: boolean;
}

async function grep(args: GrepArgs, ctx: ToolCallContext): Promise<ToolResult> {
  const { test, global } = compilePattern(args.pattern, args.case_insensitive ?? false);
  // Text every match must contain: a file without its bytes is not decoded at all (most files, most searches).
  const literal = requiredLiteral(args.pattern, args.case_insensitive ?? false);
  const needle = literal ? Buffer.from(literal) : undefined;
  const scratch = Buffer.allocUnsafe(FIRST_READ_BYTES);
  const start = searchStart(ctx.workspace, args.path);
  const wanted = globFilter(args.glob);
  const maxResults = args.max_results ?? DEFAULT_MAX_RESULTS;
  const context = args.context ?? 0;
  const deadline = performance.now() + GREP_TIME_LIMIT_MS;
  const found: Found = { lines: [], matches: 0, files: 0, searched: 0, binary: 0, large: 0, capped: false, timedOut: false };
  const counts: WalkCounts = { ignored: 0, secretLike: 0 };
  const stop = () => ctx.signal.aborted || found.capped || found.timedOut;
  const walk = walkWorkspace({ workspace: fs.realpathSync(ctx.workspace), start, includeSecretLike: namedSecretLike(ctx.workspace, args.path), stop }, counts);
  let lastYield = performance.now();
  for (const file of walk) {
    if (!wanted(file.rel)) continue;
    const bytes = readSearchable(file.abs, scratch, found);
    if (bytes !== undefined) {
      found.searched++;
      if (!needle || bytes.includes(needle)) {
        const text = bytes.toString("utf8");
        if (test.test(text)) searchFile(text, file.rel, test, global, context, maxResults, found);
      }
    }
    const now = performance.now();
    if (now > deadline) found.timedOut = true;
    if (now - lastYield > YIELD_EVERY_MS) {
      ctx.progress(`searched ${counted(found.searched, "file")}, ${counted(found.matches, "match")}`);
      await new Promise((r) => setImmediate(r));
      lastYield = performance.now();
    }
  }
  if (ctx.signal.aborted) throw new ToolError("cancelled");
  return { ok: true, output: report(args, found, counts, maxResults), display: `${counted(found.matches, "match")} in ${counted(found.files, "file")}`, event: { matches: found.matches, files: found.files, truncated: found.capped || found.timedOut } };
}

function report(args: GrepArgs, found: Found, counts: WalkCounts, maxResults: number): string {
  const notes: string[] = [];
  if (found.capped) notes.push(`stopped at ${maxResults} matching lines; more may follow: narrow the pattern, path or glob, or raise max_results`);
  if (found.timedOut) notes.push(`stopped after ${GREP_TIME_LIMIT_MS / 1000} s; results are partial: narrow the path or glob`);
  const skipped = [
    found.binary ? `${found.binary} binary` : "",
    found.large ? `${found.large} over ${GREP_MAX_FILE_BYTES / (1024 * 1024)} MiB` : "",
    counts.ignored ? `${counts.ignored} ignored by .gitignore/.ignore` : "",
    counts.secretLike ? `${counts.secretLike} secret-like (name the path to search it)` : "",
  ].filter(Boolean);
  if (skipped.length) notes.push(`skipped: ${skipped.join(", ")}`);
  const head = found.matches
    ? `${counted(found.matches, "matching line")} in ${counted(found.files, "file")} (${found.searched} searched)`
    : `no matches for ${JSON.stringify(args.pattern)} in ${counted(found.searched, "file")} searched`;
  return [head, ...found.lines, ...notes.map((n) => `[${n}]`)].join("\n");
}

/**
 * The file's bytes, or undefined (counted) when it is binary, too large or unreadable. Most files fit the first
 * read into `scratch` (open, read, close); only a longer one is sized with fstat and read whole. The bytes returned
 * may be a view of `scratch`, valid until the next call.
 */
function readSearchable(abs: string, scratch: Buffer, found: Found): Buffer | undefined {
  let fd: number;
  try {
    fd = fs.openSync(abs, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    let bytes = scratch.subarray(0, fs.readSync(fd, scratch, 0, scratch.length, 0));
    if (bytes.length === scratch.length) {
      const st = fs.fstatSync(fd);
      if (!st.isFile()) return undefined;
      if (st.size > GREP_MAX_FILE_BYTES) {
        found.large++;
        return undefined;
      }
      const whole = Buffer.allocUnsafe(st.size);
      bytes = whole.subarray(0, fs.readSync(fd, whole, 0, st.size, 0));
    }
    if (bytes.subarray(0, BINARY_PROBE_BYTES).includes(0)) {
      found.binary++;
      return undefined;
    }
    return bytes;
  } catch {
    return undefined; // unreadable, or not a file after all (a FIFO swapped in answers EAGAIN)
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The longest run of literal text (3 characters or more) that every match of the pattern contains, or undefined
 * when none can be read off safely: top-level alternation, or letters under case-insensitive search. Only plain
 * characters and escaped punctuation outside groups and classes count; a character a quantifier may drop (?, *,
 * {0,…}) ends the run without it.
 */
export function requiredLiteral(pattern: string, caseInsensitive: boolean): string | undefined {
  let best = "";
  let run = "";
  let depth = 0;
  const end = () => {
    if (run.length > best.length) best = run;
    run = "";
  };
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "\\") {
      const next = pattern[i + 1] ?? "";
      i++;
      if (depth === 0 && /[^A-Za-z0-9]/.test(next) && next !== "") {
        run += next;
        continue;
      }
      if (next === "u" || next === "x" || next === "p" || next === "P" || next === "c" || next === "k") i = skipEscapeBody(pattern, i);
      end();
      continue;
    }
    if (c === "[") {
      end();
      i = classEnd(pattern, i);
      continue;
    }
    if (c === "(") {
      end();
      depth++;
      continue;
    }
    if (c === ")") {
      depth = Math.max(0, depth - 1);
      end();
      continue;
    }
    if (c === "|") {
      if (depth === 0) return undefined;
      continue;
    }
    const braces = c === "{" ? /^\{(\d+)(,\d*)?\}/.exec(pattern.slice(i)) : null;
    if (c === "?" || c === "*" || (braces && Number(braces[1]) === 0)) {
      run = run.slice(0, -1); // the quantified character may be absent
      end();
      if (braces) i += braces[0].length - 1;
      continue;
    }
    if (c === "+" || c === "{") {
      end(); // the character stays (it occurs at least once); what follows is another run
      if (braces) i += braces[0].length - 1;
      continue;
    }
    if (c === "." || c === "^" || c === "$") {
      end();
      continue;
    }
    if (depth === 0) run += c;
  }
  end();
  if (best.length < 3 || best.includes("\uFFFD")) return undefined; // U+FFFD may stand for undecodable bytes
  if (caseInsensitive && /\p{L}/u.test(best)) return undefined;
  return best;
}

function skipEscapeBody(pattern: string, at: number): number {
  if (pattern[at + 1] === "{") {
    const close = pattern.indexOf("}", at + 1);
    return close < 0 ? pattern.length : close;
  }
  if (pattern[at] === "k" && pattern[at + 1] === "<") {
    const close = pattern.indexOf(">", at + 1);
    return close < 0 ? pattern.length : close;
  }
  return at + (pattern[at] === "x" ? 2 : pattern[at] === "u" ? 4 : pattern[at] === "c" ? 1 : 0);
}

/** Where a character class that starts at `at` ends (its `]`), escapes and a leading `]` included. */
function classEnd(pattern: string, at: number): number {
  let i = at + 1;
  if (pattern[i] === "^") i++;
  if (pattern[i] === "]") i++;
  for (; i < pattern.length; i++) {
    if (pattern[i] === "\\") i++;
    else if (pattern[i] === "]") return i;
  }
  return pattern.length;
}

/** Adds the file's matching lines (with context) to `found`, each line once. */
function searchFile(text: string, rel: string, test: RegExp, global: RegExp, context: number, maxResults: number, found: Found): void {
  const shown = displayPath(rel);
  found.files++;
  let lineNo = 1;
  let counted = 0; // offset up to which newlines are counted into lineNo
  let printedUpTo = 0; // last line number already printed for this file
  global.lastIndex = 0;
  for (let m = global.exec(text); m; m = global.exec(text)) {
    const lineStart = text.lastIndexOf("\n", m.index - 1) + 1;
    let lineEnd = text.indexOf("\n", m.index);
    if (lineEnd < 0) lineEnd = text.length;
    if (m.index === text.length && lineStart === lineEnd) break; // the empty "line" after a final newline
    lineNo += countNewlines(text, counted, lineStart);
    counted = lineStart;
    if (context > 0) {
      const before = linesBefore(text, lineStart, Math.min(context, lineNo - 1 - printedUpTo));
      if (printedUpTo > 0 && lineNo - before.length > printedUpTo + 1) found.lines.push("--");
      before.forEach((l, k) => found.lines.push(`${shown}-${lineNo - before.length + k}- ${clip(l)}`));
    }
    found.lines.push(`${shown}:${lineNo}: ${clip(text.slice(lineStart, lineEnd))}`);
    printedUpTo = lineNo;
    found.matches++;
    if (found.matches >= maxResults) found.capped = true;
    // Context after: up to `context` following lines, stopping at one that matches (the loop prints that one).
    for (let k = 0, at = lineEnd + 1; k < context && at < text.length; k++) {
      let end = text.indexOf("\n", at);
      if (end < 0) end = text.length;
      const line = text.slice(at, end);
      if (test.test(line)) break;
      found.lines.push(`${shown}-${++printedUpTo}- ${clip(line)}`);
      at = end + 1;
    }
    if (found.capped || lineEnd >= text.length) break;
    global.lastIndex = lineEnd + 1;
  }
}

function countNewlines(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf("\n", from); i >= 0 && i < to; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

function linesBefore(text: string, lineStart: number, count: number): string[] {
  const out: string[] = [];
  let end = lineStart - 1;
  for (let k = 0; k < count && end >= 0; k++) {
    const start = text.lastIndexOf("\n", end - 1) + 1;
    out.unshift(text.slice(start, end));
    end = start - 1;
  }
  return out;
}

function clip(line: string): string {
  const l = line.endsWith("\r") ? line.slice(0, -1) : line;
  return l.length > LINE_MAX_CHARS ? `${l.slice(0, LINE_MAX_CHARS - 1)}…` : l;
}

/**
 * The pattern as a whole-text test and a line-finding global regex (multi-line, so ^ and $ are line anchors).
 * Unicode mode first (\p{…} works); a pattern only the legacy syntax accepts is taken as that. An invalid pattern
 * is refused naming the position where it goes wrong.
 */
export function compilePattern(pattern: string, caseInsensitive: boolean): { test: RegExp; global: RegExp } {
  const flags = `m${caseInsensitive ? "i" : ""}`;
  for (const extra of ["u", ""]) {
    try {
      return { test: new RegExp(pattern, flags + extra), global: new RegExp(pattern, `${flags}${extra}g`) };
    } catch {
      // try the next syntax
    }
  }
  const problem = regexProblem(pattern, flags);
  throw new ToolError(
    `invalid regular expression ${JSON.stringify(pattern)}: ${problem.message} at position ${problem.position} (${JSON.stringify(pattern[problem.position] ?? "")}); ` +
      "escape special characters such as ( [ { * + ? with a backslash to match them literally",
  );
}

/** The error and where it starts: the shortest prefix that already fails the same way ends at the culprit. */
function regexProblem(pattern: string, flags: string): { message: string; position: number } {
  const error = (p: string) => {
    try {
      new RegExp(p, flags);
      return undefined;
    } catch (e) {
      return (e as Error).message.replace(/^Invalid regular expression: (\/.*\/[a-z]*: )?/, "");
    }
  };
  const message = error(pattern) ?? "invalid";
  for (let k = 1; k <= pattern.length; k++) {
    if (error(pattern.slice(0, k)) === message) return { message, position: k - 1 };
  }
  return { message, position: pattern.length - 1 };
}
