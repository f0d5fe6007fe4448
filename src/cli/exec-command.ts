// `scv exec "/name args"`: the person's command file as the run's prompt (src/command-files). Its `model` (a
// profile or a model) is used unless -m or -p names one; its `allowed-tools` run unasked in that run.
import { allowsTool, expandCommand, loadCommandFiles } from "../command-files/index";
import { loadConfig, scvHome } from "../config/load";
import { SLASH_ALIASES, SLASH_COMMANDS } from "../tui/commands";

export interface ExecCommand {
  prompt: string;
  allows(tool: string, summary: string): boolean;
}

/**
 * The command a prompt names, or undefined when it names none (the prompt goes as written). A `/word` that
 * names no command file exits 2 with the commands there are, as an unknown command does in the TUI.
 */
export async function commandPrompt(text: string, opts: { cwd: string; env: NodeJS.ProcessEnv; explicitModel: boolean }): Promise<ExecCommand | undefined> {
  const m = /^\/([\w.:-]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!m) return undefined;
  const name = m[1]!.toLowerCase();
  const { items, notices } = loadCommandFiles({ scvHome: scvHome(opts.env), workspace: opts.cwd, builtins: [...SLASH_COMMANDS.map((x) => x.name), ...Object.keys(SLASH_ALIASES)] });
  for (const n of notices) process.stderr.write(`scv exec: note: ${n}\n`);
  const c = items.find((x) => x.name === name);
  if (!c) {
    const known = items.map((x) => `/${x.name}`).join(", ");
    process.stderr.write(`scv exec: no command /${name} (${known ? `your commands: ${known}` : "no command files in ~/.scv/commands or a trusted project's .scv/commands"}); to send the text as a prompt, leave out the leading slash\n`);
    process.exit(2);
  }
  if (c.model && !opts.explicitModel) {
    const profiles = Object.keys(loadConfig({ cwd: opts.cwd, env: opts.env }).config.providers ?? {});
    if (profiles.includes(c.model)) opts.env.SCV_PROVIDER = c.model;
    else opts.env.SCV_MODEL = c.model;
  }
  const allowed = c.allowedTools;
  return {
    prompt: expandCommand(c.body, m[2] ?? ""),
    allows: (tool, summary) => allowed.length > 0 && allowsTool(allowed, tool, tool === "bash" ? summary.split("\n", 1)[0]!.replace(/^\$\s*/, "") : undefined),
  };
}
