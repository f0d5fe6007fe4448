// What connecting to a server means, worked out from its config before anything runs: the program, its
// directory and environment (only what the config names), or the URL and its headers. The approval card and
// the "always" record are made from this, showing names and never values.
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { sha256Hex } from "../digest";
import type { McpServerConfig } from "../config/schema";

/** A server a session offers: from the config files now, from an ACP client's `mcpServers` later. */
export interface McpServerDefinition {
  name: string;
  config: McpServerConfig;
  /** Where it was defined, as a person reads it: a config file, or `the editor` for servers an ACP client passed. */
  origin: string;
}

/** Variables every program expects, passed from SCV's own environment when set; nothing else is, unless named. */
export const BASE_ENV = ["PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR"] as const;

export type Launch =
  | { kind: "stdio"; argv: string[]; cwd: string; env: Record<string, string>; envNames: string[]; missing: string[]; sandbox?: boolean }
  | { kind: "http"; url: URL; headers: Record<string, string>; headerNames: string[]; missing: string[] };

/** The server's launch in `workspace`; `env` is SCV's environment (read for the names the config lists). */
export function launchOf(server: McpServerConfig, workspace: string, env: Readonly<Record<string, string | undefined>>): Launch {
  const missing: string[] = [];
  if (server.url !== undefined) {
    const headers: Record<string, string> = { ...server.headers };
    if (server.bearer_token_env) {
      const token = env[server.bearer_token_env];
      if (token) headers.authorization = `Bearer ${token}`;
      else missing.push(server.bearer_token_env);
    }
    return { kind: "http", url: new URL(server.url), headers, headerNames: Object.keys(headers).sort(), missing };
  }
  const childEnv: Record<string, string> = {};
  for (const name of BASE_ENV) if (env[name] !== undefined) childEnv[name] = env[name]!;
  const named = Array.isArray(server.env) ? server.env : Object.keys(server.env);
  if (Array.isArray(server.env)) {
    for (const name of server.env) {
      if (env[name] !== undefined) childEnv[name] = env[name]!;
      else missing.push(name);
    }
  } else Object.assign(childEnv, server.env);
  return { kind: "stdio", argv: [server.command!, ...server.args], cwd: cwdOf(server.cwd, workspace, env), env: childEnv, envNames: named.sort(), missing, ...(server.sandbox ? { sandbox: true } : {}) };
}

function cwdOf(cwd: string | undefined, workspace: string, env: Readonly<Record<string, string | undefined>>): string {
  if (!cwd) return workspace;
  if (cwd === "~" || cwd.startsWith("~/")) return join(env.HOME || homedir(), cwd.slice(1));
  return isAbsolute(cwd) ? cwd : resolve(workspace, cwd);
}

/** Values from the config or SCV's environment that must never reach the model, a log or a card. */
export function secretValues(server: McpServerConfig, launch: Launch): { name: string; value: string }[] {
  const out: { name: string; value: string }[] = [];
  if (launch.kind === "stdio") {
    const named = Array.isArray(server.env) ? server.env : Object.keys(server.env);
    for (const name of named) if (launch.env[name]) out.push({ name, value: launch.env[name]! });
  } else {
    for (const [name, value] of Object.entries(launch.headers)) out.push({ name, value: value.replace(/^Bearer /, "") });
  }
  return out.filter((s) => s.value.length >= 4);
}

/** How the launch reads on an approval card: the command line or URL, the directory, the variable names. */
export function describeLaunch(launch: Launch): string[] {
  if (launch.kind === "http") {
    const url = new URL(launch.url);
    url.username = "";
    url.password = "";
    return [`url: ${url.href}`, ...(launch.headerNames.length ? [`headers: ${launch.headerNames.join(", ")} (values not shown)`] : [])];
  }
  return [
    `$ ${launch.argv.map(shellWord).join(" ")}`,
    `cwd: ${launch.cwd}`,
    `environment: ${[...BASE_ENV.filter((n) => n in launch.env), ...launch.envNames].join(", ")} (values not shown)`,
    launch.sandbox ? "runs inside the sandbox ([sandbox], like bash commands)" : "runs outside the sandbox, with your permissions",
  ];
}

/** Equal for identical launches: an "always" answer stands until the command line, URL or variable names change. */
export function launchFingerprint(name: string, launch: Launch): string {
  const shape = launch.kind === "http" ? { name, url: launch.url.href, headers: launch.headerNames } : { name, argv: launch.argv, cwd: launch.cwd, env: launch.envNames };
  return sha256Hex(JSON.stringify(shape));
}

function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}
