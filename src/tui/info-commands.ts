// /hooks, /mcp, /permissions and /init: what Claude Code users type first, answered from SCV's own settings
// (the same facts `scv hooks list`, `scv mcp list` and `scv rules list` print).
import { loadConfig, scvHome } from "../config/load";
import { HOOK_EVENTS } from "../config/schema";
import { loadRules, prefixText } from "../guard/rules";
import { maskKeyFormats } from "../text/scrub";

/** /init: the model looks at the project and writes AGENTS.md (shown as a diff and approved like any edit). */
export const INIT_PROMPT =
  "Look at this project (its README, build and test files, folder layout) and write an AGENTS.md at its root for coding agents: " +
  "what the project is, how to build, test and lint it (the exact commands), the layout and conventions a newcomer must know. " +
  "Keep it short and factual, taken from the files. If an AGENTS.md or CLAUDE.md already exists, improve it instead of starting over.";

export function hooksLines(cwd: string, env: NodeJS.ProcessEnv): string[] {
  const hooks = loadConfig({ cwd, env }).config.hooks ?? {};
  const events = HOOK_EVENTS.filter((e) => hooks[e]?.length);
  if (!events.length) return ["no hooks configured (scv hooks import claude copies Claude Code's; see docs/hooks.md)"];
  const out: string[] = [];
  for (const event of events) {
    for (const h of hooks[event]!) {
      const matcher = h.matcher !== undefined && h.matcher !== "" ? h.matcher : "*";
      out.push(`${event} ${matcher}: $ ${maskKeyFormats(h.command).replace(/\s*\n\s*/g, " ⏎ ")} (timeout ${h.timeout_seconds} s)`);
    }
  }
  return out;
}

export async function mcpLines(cwd: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const { launchOf, describeLaunch } = await import("../mcp/launch");
  const servers = Object.entries(loadConfig({ cwd, env }).config.mcp.servers);
  if (!servers.length) return ["no MCP servers configured ([mcp.servers.NAME] in your config, or scv import claude)"];
  return servers.map(([name, s]) => {
    const launch = launchOf(s, cwd, env);
    const target = maskKeyFormats(describeLaunch(launch)[0]!.replace(/^(\$ |url: )/, ""));
    return `mcp ${name} · ${launch.kind}${s.enabled ? "" : " · disabled"} · ${target}${launch.missing.length ? ` · missing ${launch.missing.join(", ")}` : ""}`;
  });
}

export function permissionsLines(cwd: string, env: NodeJS.ProcessEnv): string[] {
  const set = loadRules(scvHome(env));
  if (set.problem) return [`approval rules: ${set.problem}`];
  const mine = set.rules.filter((r) => !r.workspace || r.workspace === cwd);
  if (!mine.length) return ["no kept approval rules apply here (answer p or u at an approval card to keep one)"];
  return [
    ...mine.map((r) => `rule ${r.id}: commands starting with \`${prefixText(r.prefix)}\` run unasked ${r.workspace ? "in this project" : "in every project"}`),
    "scv rules rm ID removes one",
  ];
}
