// Agents of SCV's own loop as Markdown files: `~/.scv/agents/<name>.md` (under SCV_HOME) and a trusted
// project's `.scv/agents/<name>.md`. Front matter: `description` (required: the line the `agent` tool offers),
// `tools` (the allow list, SCV's or Claude Code's names), `model` (a model of the nested SCV's provider),
// `max_steps`; the body is the system prompt. The `agent` tool runs one as a nested SCV session with that
// persona (session.start `persona`). Bad files are left out with a notice naming the file and the field.
import { join } from "node:path";
import { isTrustedProject, listField, markdownFiles, readMarkdownFile, toolNameOf } from "./index";

const NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;
const MAX_AGENT_BYTES = 64 * 1024;

export interface AgentFile {
  name: string;
  description: string;
  /** SCV tool names; undefined offers the nested session's usual tools. */
  tools?: string[];
  model?: string;
  maxSteps?: number;
  /** `read-only`: the nested session's sandbox is read-only (never more open than the calling session's). */
  sandbox?: "read-only" | "workspace-write";
  prompt: string;
  file: string;
  kind: "user" | "project";
}

/** The agent files a session here offers; `builtins` are the coding agents' names (a file cannot take one). */
export function loadAgentFiles(opts: { scvHome: string; workspace: string; builtins: readonly string[] }): { items: AgentFile[]; notices: string[] } {
  const items: AgentFile[] = [];
  const notices: string[] = [];
  const dirs = [
    { dir: join(opts.scvHome, "agents"), kind: "user" as const, trusted: true },
    { dir: join(opts.workspace, ".scv", "agents"), kind: "project" as const, trusted: isTrustedProject(opts.scvHome, opts.workspace) },
  ];
  for (const { dir, kind, trusted } of dirs) {
    const files = markdownFiles(dir);
    if (!trusted) {
      if (files.length) notices.push(`${dir}: ${files.length} project agent file${files.length === 1 ? "" : "s"} not loaded: this project is not trusted yet (scv commands trust ${opts.workspace})`);
      continue;
    }
    for (const file of files) {
      const r = readAgentFile(file, kind);
      if ("problem" in r) notices.push(`${file}: ${r.problem}; skipped`);
      else if (opts.builtins.includes(r.name)) notices.push(`${file}: name: ${r.name} is one of SCV's coding agents; rename the file; skipped`);
      else if (items.some((a) => a.name === r.name)) notices.push(`${file}: name: ${r.name} is already defined by ${items.find((a) => a.name === r.name)!.file}; skipped`);
      else items.push(r);
    }
  }
  return { items, notices };
}

export function readAgentFile(file: string, kind: "user" | "project"): AgentFile | { problem: string } {
  const read = readMarkdownFile(file, { pattern: NAME, rule: "an agent name (a-z, 0-9, - and _; at most 32)" }, "agent file", MAX_AGENT_BYTES);
  if ("problem" in read) return read;
  const { name, data, body } = read;
  const description = typeof data.description === "string" ? data.description.replace(/\s+/g, " ").trim() : "";
  if (!description) return { problem: "description: missing; say in one line what the agent is for" };
  let tools: string[] | undefined;
  if (data.tools !== undefined) {
    const listed = listField(data.tools);
    if (!listed) return { problem: "tools: must be a list of tool names (read, grep, Bash)" };
    tools = [];
    for (const t of listed) {
      const mapped = toolNameOf(t.replace(/\(.*\)$/, ""));
      if (!mapped) return { problem: `tools: unknown tool ${JSON.stringify(t)}` };
      if (!tools.includes(mapped)) tools.push(mapped);
    }
  }
  const model = data.model;
  if (model !== undefined && (typeof model !== "string" || !model.trim())) return { problem: "model: must be the name of a profile or model" };
  const steps = data.max_steps;
  if (steps !== undefined && (typeof steps !== "number" || !Number.isInteger(steps) || steps < 1 || steps > 1000)) return { problem: "max_steps: must be a whole number from 1 to 1000" };
  const sandbox = data.sandbox;
  if (sandbox !== undefined && sandbox !== "read-only" && sandbox !== "workspace-write") return { problem: "sandbox: must be read-only or workspace-write (never more open than the calling session's)" };
  if (!body.trim()) return { problem: "body: the file has no system prompt after its front matter" };
  // Claude Code's `model: inherit` (and its family names) mean the session's own model here.
  const own = typeof model === "string" && !["inherit", "sonnet", "opus", "haiku"].includes(model.trim()) ? model.trim() : undefined;
  return { name, description, ...(tools ? { tools } : {}), ...(own ? { model: own } : {}), ...(steps ? { maxSteps: steps as number } : {}), ...(sandbox ? { sandbox: sandbox as "read-only" | "workspace-write" } : {}), prompt: body.trim(), file, kind };
}
