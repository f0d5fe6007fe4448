// `scv commands list|trust`: the person's slash commands as Markdown files (src/command-files), and trusting a
// project so its own `.scv/commands` (and `.scv/agents`) are read.
import { resolve } from "node:path";
import { commandDirs, loadCommandFiles, trustProject } from "../command-files/index";
import { scvHome } from "../config/load";
import { SLASH_ALIASES, SLASH_COMMANDS } from "../tui/commands";
import { defineCommand } from "./command";

const BUILTINS = [...SLASH_COMMANDS.map((c) => c.name), ...Object.keys(SLASH_ALIASES)];

const cwdArg = { type: "string", alias: "C", valueHint: "DIR", description: "the project (default: current directory)" } as const;

const list = defineCommand({
  meta: { name: "list", description: "List your command files and this project's (once trusted), with any file left out and why" },
  args: { cwd: cwdArg, json: { type: "boolean", description: "print JSON" } },
  run({ args }) {
    const workspace = resolve(args.cwd ?? process.cwd());
    const { items, notices } = loadCommandFiles({ scvHome: scvHome(), workspace, builtins: BUILTINS });
    if (args.json) return void process.stdout.write(`${JSON.stringify({ commands: items.map(({ body: _b, ...c }) => c), notices }, null, 2)}\n`);
    if (!items.length) {
      const dirs = commandDirs({ scvHome: scvHome(), workspace }).map((d) => d.dir).join(" or ");
      process.stdout.write(`no command files (write NAME.md in ${dirs}; scv import claude copies Claude Code's)\n`);
    }
    for (const c of items) process.stdout.write(`/${c.name}${c.argumentHint ? ` ${c.argumentHint}` : ""}  ${c.description}  (${c.kind}: ${c.file})\n`);
    for (const n of notices) process.stderr.write(`note: ${n}\n`);
  },
});

const trust = defineCommand({
  meta: { name: "trust", description: "Trust a project's own command and agent files (.scv/commands, .scv/agents): they are read from then on" },
  args: { dir: { type: "positional", description: "the project directory (default: current directory)", required: false } },
  run({ args }) {
    const dir = resolve(String(args.dir ?? process.cwd()));
    try {
      if (!trustProject(scvHome(), dir)) process.stdout.write(`${dir} is already trusted\n`);
      else process.stdout.write(`trusted ${dir}: its .scv/commands and .scv/agents are read from now on\n`);
    } catch (e) {
      process.stderr.write(`scv commands trust: ${(e as Error).message}\n`);
      process.exitCode = 1;
    }
  },
});

export default defineCommand({ meta: { name: "commands", description: "Your slash commands as Markdown files (~/.scv/commands, a trusted project's .scv/commands)" }, subCommands: { list, trust } });
