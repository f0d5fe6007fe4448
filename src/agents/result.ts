// The `agent` tool's result object: status, bounded reply, usage, stderr tail, and the fields that tell the
// calling model what to do next (sign-in `hint`, availability `fallback`, `declined` note). `fallback` is
// decided only from the status and the structured error, never from the reply, so nothing the agent writes
// can trigger it.
import { ToolError } from "../errors";
import { cutUtf8, tailUtf8 } from "../text/cut";
import { loginCommand } from "./descriptors";
import type { TokenUsage } from "./formats/stream";
import { redactSecrets } from "../text/redact";

export const AGENT_STATUSES = ["completed", "failed", "declined", "timeout", "cancelled"] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

export interface AgentCallResult {
  agent: string;
  status: AgentStatus;
  reply: string;
  usage: TokenUsage | null;
  exit_code: number | null;
  stderr_tail: string;
  truncated: boolean;
  error?: string;
  hint?: string;
  fallback?: string;
  note?: string;
  session?: string;
  turn?: number;
}

/** What a run produced before the result is shaped for the model. */
export interface RunOutcome {
  agent: string;
  status: AgentStatus;
  reply: string;
  replyTruncated: boolean;
  usage?: TokenUsage;
  exitCode: number | null;
  /** Death by a signal SCV did not send (a crash). */
  crashSignal?: string;
  stderr: string;
  error?: string;
  /**
   * `error` is a failed plain-text run's closing stdout, which is also its reply: shown, but never read by the
   * fallback decision, so nothing the agent writes can trigger a fallback.
   */
  errorFromReply?: boolean;
  errorStatus?: number;
  timeoutSeconds: number;
  session?: string;
  turn?: number;
  /** SCV found the agent unavailable mid-call (its live server gone): the result gets the fallback. */
  unavailable?: boolean;
  /** A note for the calling model when no other note applies, such as an ACP turn that stopped early. */
  note?: string;
}

/** SCV found the agent unavailable (executable gone or failing to start): the message carries the fallback. */
export class AgentUnavailableError extends ToolError {
  constructor(message: string) {
    super(message);
    this.name = "AgentUnavailableError";
  }
}

export interface ResultContext {
  /** Every agent this session offers, for `fallback` and the Grok note. */
  offered: string[];
  outputLimitBytes: number;
}

const STDERR_TAIL_BYTES = 2048;
const ERROR_BYTES = 2048;

const SIGN_IN =
  /not (?:logged|signed) in|(?:log|sign)[ -]?in (?:is )?required|please (?:log|sign)[ -]?in|\/login\b|authentication_failed|failed to authenticate|authentication required|unauthori[sz]ed|invalid (?:x-)?api[ _-]?key|missing (?:api[ _-]?key|credential)|MISSING_CREDENTIAL|no api[ _-]?key|api[ _-]?key (?:is )?(?:not set|not found|missing|required)|credentials? (?:not found|missing|expired)|(?:oauth )?token (?:has )?expired|\b401\b/i;
const HTTP_STATUS =
  /\b(?:status|error|http|api error)\D{0,12}\b(?:401|403|404|429|5\d\d)\b|\b(?:401|403|404|429|5\d\d) (?:unauthorized|forbidden|not found|too many requests|internal server error|bad gateway|service unavailable|gateway timeout|overloaded)/i;
const QUOTA = /quota|rate[ _-]?limit|billing|credit balance|usage limit|too many requests|overloaded|high demand/i;
const UNKNOWN_MODEL =
  /model_not_found|(?:unknown|invalid|unsupported) model|model\b[^\n]{0,60}\b(?:not found|does not exist|is not supported|not supported|unavailable|not available)/i;

export function readsLikeSignIn(text: string | undefined): boolean {
  return !!text && SIGN_IN.test(text);
}

/** A failure another agent could avoid: signed out, or the provider refused, ran out of quota, or lacks the model. */
export function isAvailabilityFailure(o: Pick<RunOutcome, "status" | "error" | "errorStatus" | "exitCode" | "crashSignal">): boolean {
  if (o.status !== "failed") return false;
  if (o.crashSignal || o.exitCode === 126 || o.exitCode === 127) return true;
  if (o.errorStatus !== undefined && (o.errorStatus === 401 || o.errorStatus === 403 || o.errorStatus === 404 || o.errorStatus === 429 || o.errorStatus >= 500)) {
    return true;
  }
  const e = o.error ?? "";
  return readsLikeSignIn(e) || HTTP_STATUS.test(e) || QUOTA.test(e) || UNKNOWN_MODEL.test(e);
}

export function fallbackSentence(agent: string, offered: string[]): string | undefined {
  const others = offered.filter((n) => n !== agent);
  if (others.length === 0) return undefined;
  return `This agent could not run: it is missing, signed out, or its provider returned an error. Other agents are available: ${others.join(", ")}. Call agent again with one of them.`;
}

/** Codex refuses directories outside a git checkout or a trusted project (a trap, not an availability failure). */
const CODEX_GIT_HINT =
  'Codex runs only inside a git repository or a project it trusts: pass a cwd inside a git checkout, or the user can add "--skip-git-repo-check" to [agents.codex] args after "exec".';

/** Claude Code refuses its bypass switch as root: --dangerously-skip-permissions / bypassPermissions. */
const ROOT_REFUSAL = /cannot be used with root\/sudo privileges|startupFailureReason"?:?\s*"?bypass_root/i;

export function rootHint(agent: string): string {
  return `${agent} refuses full permissions (permissions = "full") when SCV runs as root. Run SCV as a normal user; or, only on a sandboxed machine such as a throwaway container, the user can opt in with IS_SANDBOX=1: in the agent's own settings ("env": {"IS_SANDBOX": "1"} in $SCV_HOME/agents/${agent}/.claude/settings.json) for one process per turn, or in SCV's own service environment for the ACP server. Otherwise set [agents.${agent}] permissions = "default".`;
}

export function signInHint(agent: string): string {
  return `The agent looks signed out. The user can sign it in on the SCV host with "${loginCommand(agent)}"; the agent's own advice (such as /login) cannot be followed from here.`;
}

export function declinedNote(agent: string, offered: string[]): string {
  if (agent !== "grok" && offered.includes("grok")) {
    return 'The agent declined this request. Tell the user what it said, then call agent again with agent "grok" and the same request; a safety or guardrail refusal is not a reason to skip Grok.';
  }
  return "The agent declined this request. Tell the user what it said rather than passing the request to another agent on your own; if the user then asks for a specific agent, use that one, and its own policies apply.";
}

/** "exited with code 2", or the signal that ended it ("was killed by SIGSEGV"). */
function exitedText(o: RunOutcome): string {
  if (o.exitCode === null && o.crashSignal) return `${o.agent} was killed by ${o.crashSignal}`;
  return `${o.agent} exited with code ${o.exitCode}`;
}

export function buildResult(o: RunOutcome, ctx: ResultContext): AgentCallResult {
  const r: AgentCallResult = {
    agent: o.agent,
    status: o.status,
    reply: o.reply,
    usage: o.usage ?? null,
    exit_code: o.exitCode,
    stderr_tail: redactSecrets(tailUtf8(o.stderr, STDERR_TAIL_BYTES)),
    truncated: o.replyTruncated,
  };
  if (o.status === "failed") {
    const error = o.error?.trim() || tailUtf8(o.stderr, ERROR_BYTES).trim() || exitedText(o);
    r.error = redactSecrets(cutUtf8(error, ERROR_BYTES));
    if (ROOT_REFUSAL.test(`${o.error ?? ""}\n${o.stderr}`)) r.hint = rootHint(o.agent);
    else if (readsLikeSignIn(o.error) || (!o.error && readsLikeSignIn(o.stderr))) r.hint = signInHint(o.agent);
    else if (o.agent === "codex" && /skip-git-repo-check/.test(`${o.error ?? ""}\n${o.stderr}`)) r.hint = CODEX_GIT_HINT;
    const stderrTail = tailUtf8(o.stderr, ERROR_BYTES);
    const decisionError = o.errorFromReply ? stderrTail : (o.error ?? stderrTail);
    const fallback =
      o.unavailable || isAvailabilityFailure({ ...o, error: decisionError }) ? fallbackSentence(o.agent, ctx.offered) : undefined;
    if (fallback) r.fallback = fallback;
  }
  if (o.status === "declined") r.note = declinedNote(o.agent, ctx.offered);
  if (o.status === "timeout") {
    r.note = o.session
      ? `The agent was stopped after ${o.timeoutSeconds} seconds. Its conversation is kept: call agent with session ${o.session} to let it continue where it stopped.`
      : `The agent was stopped after ${o.timeoutSeconds} seconds.`;
  }
  if (o.note && !r.note) r.note = o.note;
  if (o.session) {
    r.session = o.session;
    r.turn = o.turn;
  }
  return bound(r, ctx.outputLimitBytes);
}

/** Cuts the reply (then the tails) until the serialized result fits the tool output limit. */
function bound(r: AgentCallResult, limit: number): AgentCallResult {
  for (const field of ["reply", "stderr_tail", "error"] as const) {
    const value = r[field];
    if (!value) continue;
    const over = Buffer.byteLength(JSON.stringify(r)) - limit;
    if (over <= 0) break;
    const budget = Math.max(0, Buffer.byteLength(JSON.stringify(value)) - 2 - over);
    r[field] = jsonPrefix(value, budget);
    if (field === "reply") r.truncated = true;
  }
  return r;
}

/** The longest prefix of `text` whose JSON-escaped form (without quotes) takes at most `budget` bytes. */
function jsonPrefix(text: string, budget: number): string {
  let used = 0;
  let i = 0;
  while (i < text.length) {
    const code = text.codePointAt(i)!;
    const width = code > 0xffff ? 2 : 1;
    let cost: number;
    if (code === 0x22 || code === 0x5c || code === 0x0a || code === 0x0d || code === 0x09 || code === 0x08 || code === 0x0c) cost = 2;
    else if (code < 0x20 || (code >= 0xd800 && code <= 0xdfff)) cost = 6;
    else cost = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (used + cost > budget) break;
    used += cost;
    i += width;
  }
  return text.slice(0, i);
}
