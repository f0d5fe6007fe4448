// `scv doctor`'s checks: each looks at one thing that matters and says ok, warning or problem, with the fix.
// Nothing here changes anything; the one network request is a bounded GET of the active provider's /models.
import { existsSync, lstatSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { agentsSignInStatus } from "../accounts/status";
import { ConfigError, loadConfig, projectConfigFile, resolveApiKey, scvHome } from "../config/load";
import type { Config } from "../config/schema";
import { isLoopbackHost, parseListen } from "../config/web-ui";
import { probeDaemon, daemonFetch } from "../daemon/client";
import { findOrphans } from "../process/reconcile";
import { listRunRecords, runOwnerAlive, staleRunFiles } from "../process/run-records";
import { scheduleSummary } from "../schedules/summary";
import { modelsRequest } from "../provider/list-models";
import { scrubKnown } from "../text/scrub";
import { VERSION } from "../version";
import { launchOf } from "../mcp/launch";
import { checkProgram } from "../mcp/program";
import { definitionKey, KnownTools } from "../mcp/known-tools";

export type Verdict = "ok" | "warning" | "problem";

export interface DoctorLine {
  /** What was looked at: "binary", "config", "provider", "agent claude", "daemon", … */
  area: string;
  verdict: Verdict;
  text: string;
  /** What to do about a warning or problem. */
  fix?: string;
}

export interface DoctorContext {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** The bound on the provider request and on each agent's status command. */
  timeoutMs: number;
}

const line = (area: string, verdict: Verdict, text: string, fix?: string): DoctorLine => ({ area, verdict, text, ...(fix ? { fix } : {}) });

export function checkBinary(): DoctorLine[] {
  return [line("binary", "ok", `scv ${VERSION} at ${process.execPath}`)];
}

/** The layers in force for this directory; the loaded config, when it loads, for the checks after. */
export function checkConfig(ctx: DoctorContext): { lines: DoctorLine[]; config?: Config } {
  const home = scvHome(ctx.env as NodeJS.ProcessEnv);
  const userFile = join(home, "config.toml");
  const lines: DoctorLine[] = [];
  lines.push(line("config", "ok", statSync(userFile, { throwIfNoEntry: false }) ? `user file ${userFile}` : `no user file (${userFile}); built-in defaults`));
  const project = projectConfigFile(ctx.cwd, userFile);
  const asProject = join(ctx.cwd, ".scv", "config.toml");
  if (!project) lines.push(line("config", "ok", `project layer skipped: ${asProject} is the user file itself`));
  else if (statSync(project, { throwIfNoEntry: false })) lines.push(line("config", "ok", `project file ${project}`));
  try {
    const loaded = loadConfig({ cwd: ctx.cwd, env: ctx.env as NodeJS.ProcessEnv });
    lines.push(line("config", "ok", "the configuration loads for this directory"));
    return { lines, config: loaded.config };
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    lines.push(line("config", "problem", e.message, "fix the file and key named above (docs/configuration.md lists the accepted keys)"));
    return { lines };
  }
}

/** Key set or missing, and one bounded request to the active provider's /models. */
export async function checkProvider(ctx: DoctorContext, config: Config): Promise<DoctorLine[]> {
  const name = config.provider.active;
  const p = config.providers[name];
  if (!p) return [line("provider", "problem", `the active provider "${name}" is not defined`, `add [providers.${name}] or set provider.active to a defined profile`)];
  const key = resolveApiKey(p, ctx.env as NodeJS.ProcessEnv);
  const where = `"${name}" (${p.wire_api} API, model ${p.model}, ${hostOf(p.base_url)})`;
  const lines: DoctorLine[] = [];
  if (key) lines.push(line("provider", "ok", `${where}: key set${p.api_key_env ? ` (from ${p.api_key_env})` : ""}`));
  else if (p.api_key_env) {
    // Asking without the key it needs would only be refused: no request.
    return [line("provider", "problem", `${where}: no key: ${p.api_key_env} is not set`, `export ${p.api_key_env}=… or set api_key_env to the variable that holds the key`)];
  } else lines.push(line("provider", "ok", `${where}: no key configured (an endpoint that takes none)`));
  const secrets = [key, ...Object.values(p.headers ?? {})];
  const scrub = (s: string) => scrubKnown(s, secrets);
  const { url, path, headers } = modelsRequest(p, key);
  const started = performance.now();
  try {
    const res = await fetch(url, {
      method: "GET",
      redirect: "manual",
      signal: AbortSignal.timeout(ctx.timeoutMs),
      headers,
      ...(p.proxy ? { proxy: p.proxy } : {}),
    } as RequestInit);
    await res.body?.cancel();
    const ms = Math.round(performance.now() - started);
    const status = `GET ${path} answered HTTP ${res.status} in ${ms} ms`;
    if (res.status === 401 || res.status === 403) lines.push(line("provider", "problem", `${status}: the key was refused`, "check the key (and, for 403, the organization or region)"));
    else if (res.status >= 300 && res.status < 400) lines.push(line("provider", "problem", `${status}: a redirect`, "set base_url to the final address; SCV does not follow redirects"));
    else if (res.status >= 500) lines.push(line("provider", "warning", `${status}: the endpoint has trouble`, "try again later"));
    else lines.push(line("provider", "ok", res.ok ? status : `${status}: reachable (it lists no models there)`));
  } catch (e) {
    const why = (e as Error).name === "TimeoutError" ? `no answer within ${ctx.timeoutMs / 1000} s` : scrub((e as Error).message);
    lines.push(line("provider", "problem", `${hostOf(p.base_url)} is not reachable: ${why}`, "check base_url, the network and any proxy"));
  }
  return lines;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** Search keys and channel settings that name a key variable. */
export function checkKeys(ctx: DoctorContext, config: Config): DoctorLine[] {
  if (config.web.search !== "brave") return [];
  const set = !!config.web.brave_api_key || !!ctx.env.BRAVE_API_KEY;
  return [set ? line("keys", "ok", "Brave search key set") : line("keys", "problem", 'web.search = "brave" but no Brave key is set', "set web.brave_api_key or BRAVE_API_KEY")];
}

export async function checkAgents(ctx: DoctorContext, config: Config): Promise<DoctorLine[]> {
  const rows = await agentsSignInStatus({ scvHome: scvHome(ctx.env as NodeJS.ProcessEnv), config, env: ctx.env }, { timeoutMs: ctx.timeoutMs });
  return rows.map((r) => {
    if (r.state === "signed_in") return line(`agent ${r.name}`, "ok", `${r.product}: ${r.summary}`);
    if (r.state === "not_installed") return line(`agent ${r.name}`, "ok", `${r.product}: not installed`);
    // A nested SCV nobody has set up is not a problem: it needs a provider only once someone delegates to it.
    if (r.name === "scv" && r.state === "signed_out" && !existsSync(join(scvHome(ctx.env as NodeJS.ProcessEnv), "agents", "scv"))) {
      return line(`agent ${r.name}`, "ok", `${r.product}: not set up (\`${r.login}\` gives a nested SCV its own provider when you want one)`);
    }
    return line(`agent ${r.name}`, "warning", `${r.product}: ${r.summary}`, `\`${r.login}\` to sign it in`);
  });
}

/** Whether the daemon answers, for the checks that depend on it (channels, schedules). */
export async function daemonRunning(ctx: DoctorContext): Promise<boolean> {
  return (await probeDaemon(scvHome(ctx.env as NodeJS.ProcessEnv), Math.min(ctx.timeoutMs, 2000))).state === "running";
}

export async function checkDaemon(ctx: DoctorContext, config: Config | undefined): Promise<DoctorLine[]> {
  const home = scvHome(ctx.env as NodeJS.ProcessEnv);
  const probe = await probeDaemon(home, Math.min(ctx.timeoutMs, 2000));
  const channels = config ? (["dir", "wechat", "feishu", "telegram"] as const).filter((k) => config.channels[k]) : [];
  if (probe.state !== "running") {
    if (!channels.length) return [line("daemon", "ok", "not running (no chat channels are configured)")];
    return [line("daemon", "problem", `not running, so the configured channels (${channels.join(", ")}) answer nobody`, "`scv daemon start` (or `scv daemon install` for a service)")];
  }
  const lines = [line("daemon", "ok", `running (pid ${probe.health.pid}, version ${probe.health.version})`)];
  try {
    const res = await daemonFetch(home, "/channels", { timeoutMs: 2000 });
    const body = res.ok ? ((await res.json()) as { channels: Array<Record<string, any>> }) : { channels: [] };
    for (const c of body.channels) {
      const area = `channel ${c.kind}/${c.account}`;
      const held = Number(c.outbound_held) || 0;
      const failed = Number(c.outbound_failed) || 0;
      if (c.state === "connected" && !held && !failed) lines.push(line(area, "ok", "connected"));
      else if (c.state === "paused" && c.kind === "telegram") lines.push(line(area, "problem", `stopped: ${c.reason ?? "unknown reason"}`, "fix what it says, then `scv daemon restart`"))
      else if (c.state === "logged_out") lines.push(line(area, "problem", `logged out${c.reason ? ` (${c.reason})` : ""}`, `\`scv channels login ${c.kind}\``));
      else lines.push(line(area, "warning", `${c.state}${c.reason ? ` (${c.reason})` : ""}${held ? `, ${held} held` : ""}${failed ? `, ${failed} failed` : ""}${c.last_error ? `; last error: ${c.last_error}` : ""}`, "`scv channels status` for details"));
    }
  } catch {
    lines.push(line("daemon", "warning", "running, but its channel status did not answer", "`scv channels status`"));
  }
  return lines;
}

/** The web page ([web_ui]), when enabled: where it listens, and a warning when that is reachable from other machines. */
export function checkWebUi(config: Config): DoctorLine[] {
  const w = config.web_ui;
  if (!w.enabled) return [];
  const { host, port } = parseListen(w.listen);
  if (isLoopbackHost(host)) return [line("web page", "ok", `served on http://${w.listen} by the daemon (\`scv web\` prints a sign-in link)`)];
  return [
    line(
      "web page",
      "warning",
      `[web_ui] listen = "${w.listen}" is reachable from other machines, over plain HTTP`,
      `keep it on 127.0.0.1:${port} and reach it through an SSH tunnel or a TLS reverse proxy (named in [web_ui] allowed_hosts)`,
    ),
  ];
}

/** Schedules, when there are any: how many, the next fire, files not used, notices waiting; and whether anything runs them. */
export function checkSchedules(ctx: DoctorContext, running: boolean): DoctorLine[] {
  const s = scheduleSummary(scvHome(ctx.env as NodeJS.ProcessEnv), ctx.env as NodeJS.ProcessEnv);
  if (!s.active && !s.paused && !s.invalid && !s.notices) return [];
  const text = s.line.replace(/^schedules: /, "");
  if (s.active && !running) return [line("schedules", "problem", `${text}; the daemon is not running, so none will fire`, "`scv daemon start` (or `scv daemon install` for a service)")];
  if (s.invalid || s.notices) return [line("schedules", "warning", text, "`scv schedules list` says what is wrong and shows the notices")];
  return [line("schedules", "ok", text)];
}

/**
 * MCP servers as configured: what each would run or reach, whether a stdio server's program can be found and
 * run (resolved as its start resolves it, its `#!` interpreter too), variables it names that are not set, and
 * how many tools SCV knows from its last listing. Nothing is started here; `scv mcp test NAME` connects.
 */
export function checkMcp(ctx: DoctorContext, config: Config): DoctorLine[] {
  const known = new KnownTools(scvHome(ctx.env as NodeJS.ProcessEnv));
  return Object.entries(config.mcp?.servers ?? {}).map(([name, s]) => {
    const area = `mcp ${name}`;
    const target = s.command ? `runs ${s.command.slice(s.command.lastIndexOf("/") + 1)}` : `reaches ${hostOf(s.url ?? "")}`;
    if (!s.enabled) return line(area, "ok", `disabled (${target})`);
    if (s.bearer_token_env && !ctx.env[s.bearer_token_env]) return line(area, "warning", `${target}, but ${s.bearer_token_env} (bearer_token_env) is not set`, `export ${s.bearer_token_env}=…`);
    const launch = launchOf(s, ctx.cwd, ctx.env);
    if (launch.kind === "stdio") {
      const program = checkProgram(launch);
      if (!program.ok) return line(area, "problem", `${target}, but it cannot be run: ${program.why}`, `install it, or set command under [mcp.servers.${name}] to the program's full path`);
    }
    if (launch.missing.length) return line(area, "warning", `${target}, but ${launch.missing.join(", ")} ${launch.missing.length > 1 ? "are" : "is"} not set (env)`, `export ${launch.missing[0]}=… before starting SCV`);
    const list = known.fresh(definitionKey(s));
    const listed = list ? `; ${list.tools.length} tool${list.tools.length === 1 ? "" : "s"} known from ${list.server.name} ${list.server.version}, so it starts at its first call` : "";
    return line(area, "ok", `${target}${listed}; \`scv mcp test ${name}\` connects and lists its tools`);
  });
}

/** Records of SCV processes that are gone: what the next start-up reconcile would clean. */
export function checkLeftovers(ctx: DoctorContext): DoctorLine[] {
  const home = scvHome(ctx.env as NodeJS.ProcessEnv);
  const orphanRuns = listRunRecords(home).filter((r) => !runOwnerAlive(r.record)).length;
  const orphanDelegations = findOrphans(home).length;
  const torn = staleRunFiles(home).length;
  const total = orphanRuns + orphanDelegations + torn;
  if (!total) return [line("records", "ok", "no records left by SCV processes that are gone")];
  const parts = [orphanRuns && `${orphanRuns} run record(s)`, orphanDelegations && `${orphanDelegations} delegation record(s)`, torn && `${torn} torn record file(s)`].filter(Boolean);
  return [line("records", "warning", `${parts.join(", ")} left by SCV processes that are gone`, "the next `scv exec`, `scv` or daemon start stops what they name and removes them")];
}

const MAX_WALK = 200_000;

/** Bytes below a directory, without following symlinks; bounded by an entry count. */
function sizeOf(dir: string): { bytes: number; complete: boolean } {
  let bytes = 0;
  let seen = 0;
  const stack = [dir];
  while (stack.length) {
    const d = stack.pop()!;
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      continue;
    }
    for (const n of names) {
      if (++seen > MAX_WALK) return { bytes, complete: false };
      try {
        const st = lstatSync(join(d, n));
        if (st.isDirectory()) stack.push(join(d, n));
        else if (st.isFile()) bytes += st.size;
      } catch {
        // gone meanwhile
      }
    }
  }
  return { bytes, complete: true };
}

function mib(n: number): string {
  return n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

export function checkSizes(ctx: DoctorContext): DoctorLine[] {
  const home = scvHome(ctx.env as NodeJS.ProcessEnv);
  const all = sizeOf(home);
  const sessions = sizeOf(join(home, "state", "sessions"));
  const more = (s: { complete: boolean }) => (s.complete ? "" : " or more");
  return [line("storage", "ok", `${home}: ${mib(all.bytes)}${more(all)}, of which stored sessions ${mib(sessions.bytes)}${more(sessions)}`)];
}
