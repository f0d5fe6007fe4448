// `scv agents status`: every agent's sign-in state as a summary. Claude Code and Codex are asked through their
// own status command, whose output names the account email or part of the key, so only a summary built here
// from recognised fields is ever shown; the others are answered by reading their credential files for
// presence only.
import { statSync } from "node:fs";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { MODEL_PATTERN } from "../config/schema";
import { runProcess } from "../process";
import { type AgentDescriptor, DESCRIPTORS } from "../agents/descriptors";
import { agentEnvironment, scrubbedEnv } from "../agents/environment";
import { type LoginContext, LoginError } from "./login-io";
import { CLI_SIGNIN, missingExecutable, signInCommand } from "./login";
import { executableFor, settingsFor } from "../agents/offer";
import { importStateOf } from "./imports/index";
import { describeImport } from "./imports/digest";
import { piStatusDetail } from "./imports/pi";
import { scvStatusDetail } from "./imports/scv";
import { readSignInFile } from "../agents/signin";

export type SignInState = "signed_in" | "signed_out" | "unknown" | "not_installed";

export interface Summary {
  state: SignInState;
  /** SCV's own words (a plan, "API key", a reason), never text copied from the agent. */
  detail?: string;
}

export interface AgentSignInStatus extends Summary {
  name: string;
  product: string;
  /** One line such as `signed in (API key)`. */
  summary: string;
  login: string;
  /** The last `scv agents import` of this agent: up to date, or the source changed (with the command). */
  import?: string;
}

export const DEFAULT_STATUS_TIMEOUT_MS = 15_000;
const PLAN = /^[A-Za-z0-9_.-]{1,32}$/;

export async function agentsSignInStatus(ctx: LoginContext, opts: { timeoutMs?: number } = {}): Promise<AgentSignInStatus[]> {
  return Promise.all(
    (DESCRIPTORS as readonly AgentDescriptor[]).map(async (d) => {
      const s = await statusOf(ctx, d, opts.timeoutMs ?? DEFAULT_STATUS_TIMEOUT_MS);
      const imported = importStateOf(ctx, d.name);
      return {
        name: d.name,
        product: d.product,
        ...s,
        summary: summaryLine(s),
        login: `scv agents login ${d.name}`,
        ...(imported ? { import: describeImport(imported) } : {}),
      };
    }),
  );
}

export function summaryLine(s: Summary): string {
  const word = { signed_in: "signed in", signed_out: "signed out", unknown: "unknown", not_installed: "not installed" }[s.state];
  return s.detail ? `${word} (${s.detail})` : word;
}

async function statusOf(ctx: LoginContext, d: AgentDescriptor, timeoutMs: number): Promise<Summary> {
  const settings = settingsFor(ctx.config, d.name);
  if (!executableFor(d, settings, ctx.env)) return { state: "not_installed", detail: missingExecutable(d, settings.command) };
  const words = CLI_SIGNIN[d.name]?.status;
  if (words) return cliStatus(ctx, d, words, timeoutMs);
  if (d.signIn === "cli") return { state: "unknown", detail: "only the agent can tell; a failed call says so" };
  const home = agentEnvironment(d, { scvHome: ctx.scvHome, env: ctx.env, full: false }).home;
  if (!d.signIn({ home, env: scrubbedEnv(ctx.env) })) return { state: "signed_out" };
  return { state: "signed_in", detail: fileDetail(d.name, home) };
}

async function cliStatus(ctx: LoginContext, d: AgentDescriptor, words: string[], timeoutMs: number): Promise<Summary> {
  let cmd;
  try {
    cmd = signInCommand(ctx, d, words, []);
  } catch (e) {
    if (e instanceof LoginError) return { state: "not_installed" };
    throw e;
  }
  let result;
  try {
    // A never-signed-in agent has no private home yet; status only reads, so it does not create one.
    const cwd = dirExists(cmd.environment.home) ? cmd.environment.home : "/";
    result = await runProcess({ argv: cmd.argv, cwd, env: cmd.environment.env, stdin: "null", timeoutMs, captureBytes: 64 * 1024, combined: true });
  } catch (e) {
    return { state: "unknown", detail: `could not run ${d.command}: ${(e as Error).message.split("\n")[0]!.slice(0, 200)}` };
  }
  if (result.timedOut) return { state: "unknown", detail: `its status command did not answer within ${timeoutMs % 1000 ? `${timeoutMs} ms` : `${timeoutMs / 1000} s`}` };
  const output = (result.combined ?? result.stdout).text;
  const summarize = d.name === "claude" ? summarizeClaudeStatus : summarizeCodexStatus;
  return summarize(result.exitCode, output);
}

function dirExists(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

const SIGNED_OUT = /\bnot (logged|signed) in\b|\blogged out\b|\bno (credentials|auth)/i;
const SIGNED_IN = /\b(logged|signed) in\b/i;

const unrecognized = (exitCode: number | null): Summary => ({
  state: "unknown",
  detail: exitCode === null ? "its status command was stopped by a signal" : `unrecognized status output, exit ${exitCode}`,
});

/** `claude auth status`: JSON with `loggedIn`, `authMethod`, `subscriptionType` (and the email, never shown). */
export function summarizeClaudeStatus(exitCode: number | null, output: string): Summary {
  const json = firstJsonObject(output);
  if (json && typeof json.loggedIn === "boolean") {
    if (!json.loggedIn) return { state: "signed_out" };
    const method = typeof json.authMethod === "string" ? json.authMethod : "";
    if (/api.?key/i.test(method)) return { state: "signed_in", detail: "API key" };
    if (/claude|oauth/i.test(method)) {
      const plan = typeof json.subscriptionType === "string" && PLAN.test(json.subscriptionType) ? json.subscriptionType : undefined;
      return { state: "signed_in", detail: plan ? `Claude account, ${plan}` : "Claude account" };
    }
    return { state: "signed_in" };
  }
  if (SIGNED_OUT.test(output)) return { state: "signed_out" };
  if (exitCode === 0 && SIGNED_IN.test(output)) return { state: "signed_in", detail: /api.?key/i.test(output) ? "API key" : undefined };
  return unrecognized(exitCode);
}

/**
 * `codex login status`: "Logged in using ChatGPT", "Logged in using an API key - sk-…", "API key configured -
 * sk-…***…" (0.171.0, on stderr), or "Not logged in". The key part is never shown.
 */
export function summarizeCodexStatus(exitCode: number | null, output: string): Summary {
  if (SIGNED_OUT.test(output)) return { state: "signed_out" };
  if (exitCode === 0 && /^\s*API key configured\b/im.test(output)) return { state: "signed_in", detail: "API key" };
  if (exitCode === 0 && SIGNED_IN.test(output)) {
    if (/chatgpt/i.test(output)) return { state: "signed_in", detail: "ChatGPT account" };
    if (/api.?key/i.test(output)) return { state: "signed_in", detail: "API key" };
    return { state: "signed_in" };
  }
  return unrecognized(exitCode);
}

function firstJsonObject(text: string): Record<string, unknown> | undefined {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end <= start) return undefined;
  try {
    const v = JSON.parse(text.slice(start, end + 1));
    return v && typeof v === "object" && !Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

function readJson(path: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(readSignInFile(path) ?? "");
    return v && typeof v === "object" && !Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Which kind of credential a file-checked agent has: names only, never a value. */
function fileDetail(name: string, home: string): string | undefined {
  if (name === "dsh") return "API key stored";
  if (name === "grok") {
    const auth = readJson(join(home, ".grok", "auth.json"));
    if (auth && Object.keys(auth).length) return "grok login";
    let model: unknown;
    try {
      model = (parseToml(readSignInFile(join(home, ".grok", "config.toml")) ?? "").models as Record<string, unknown> | undefined)?.default;
    } catch {}
    return typeof model === "string" && MODEL_PATTERN.test(model) ? `API key in config, model ${JSON.stringify(model)}` : "API key in config";
  }
  if (name === "pi") return piStatusDetail(join(home, ".pi", "agent"));
  if (name === "scv") return scvStatusDetail(home);
  return undefined;
}

export function formatSignInStatus(rows: readonly AgentSignInStatus[]): string {
  const w = (f: (r: AgentSignInStatus) => string) => Math.max(...rows.map((r) => f(r).length));
  const [wn, wp] = [w((r) => r.name), w((r) => r.product)];
  return rows
    .map((r) => {
      const hint = r.state === "signed_out" ? `  (${r.login})` : "";
      const imported = r.import ? `\n${" ".repeat(wn + wp + 4)}${r.import}` : "";
      return `${r.name.padEnd(wn)}  ${r.product.padEnd(wp)}  ${r.summary}${hint}${imported}`;
    })
    .join("\n");
}
