// `scv` with no arguments in a terminal, `scv tui`, `scv --continue` and `scv --resume [ID]`: the interactive
// session. Parsed here rather than by the subcommand parser because these forms sit at the top level.

export const TUI_USAGE = "usage: scv [tui] [-c|--continue] [-r|--resume [ID]] [-C|--cwd DIR] [-m|--model MODEL]";

export interface TuiArgs {
  cwd?: string;
  model?: string;
  resume?: string; // "" = pick from a list
  continueNewest?: boolean;
  help?: boolean;
}

/** Whether argv asks for the TUI: nothing, `tui ...`, or only the TUI's own flags. */
export function isTuiInvocation(argv: readonly string[]): boolean {
  if (argv.length === 0) return true;
  if (argv[0] === "tui") return true;
  return ["-c", "--continue", "-r", "--resume", "-C", "--cwd", "-m", "--model"].includes(argv[0]!);
}

export function parseTuiArgs(argv: readonly string[]): TuiArgs | { error: string } {
  const args: TuiArgs = {};
  const rest = argv[0] === "tui" ? argv.slice(1) : [...argv];
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    const value = () => {
      const v = rest[++i];
      if (v === undefined || v.startsWith("-")) throw new Error(`${a} needs a value`);
      return v;
    };
    try {
      if (a === "-c" || a === "--continue") args.continueNewest = true;
      else if (a === "-r" || a === "--resume") {
        const next = rest[i + 1];
        args.resume = next !== undefined && !next.startsWith("-") ? rest[++i]! : "";
      } else if (a === "-C" || a === "--cwd") args.cwd = value();
      else if (a === "-m" || a === "--model") args.model = value();
      else if (a === "-h" || a === "--help") args.help = true;
      else if (a.startsWith("-")) return { error: `unknown option ${a}` };
      else return { error: `unexpected argument "${a}"` };
    } catch (e) {
      return { error: (e as Error).message };
    }
  }
  return args;
}

/** Runs the TUI, or explains why it cannot; returns the exit status. */
export async function runTuiCommand(argv: readonly string[]): Promise<number> {
  const parsed = parseTuiArgs(argv);
  if ("error" in parsed) {
    process.stderr.write(`scv: ${parsed.error}\n${TUI_USAGE}\n`);
    return 2;
  }
  if (parsed.help) {
    process.stdout.write(
      `${TUI_USAGE}\n\nOpens an interactive session in the current directory (or --cwd).\n` +
        "  -c, --continue      reopen the newest stored session of this workspace\n" +
        "  -r, --resume [ID]   reopen a stored session (without ID: pick from a list)\n" +
        "  -C, --cwd DIR       workspace directory\n" +
        "  -m, --model MODEL   model for this session\n" +
        "Inside: /help lists keys and commands.\n",
    );
    return 0;
  }
  // node:tty is loaded here, not at the top: main.ts imports this module, and loading it costs every command
  // about 3 ms of start-up.
  const { isatty } = await import("node:tty");
  if (!isatty(0) || !isatty(1)) {
    process.stderr.write("scv: the interactive session needs a terminal on stdin and stdout; for scripts use `scv exec PROMPT`\n");
    return 2;
  }
  const env = { ...process.env };
  if (parsed.model) env.SCV_MODEL = parsed.model;
  if (parsed.continueNewest && parsed.resume !== undefined) {
    process.stderr.write(`scv: give either --continue or --resume, not both\n${TUI_USAGE}\n`);
    return 2;
  }
  const { runTui } = await import("../tui/app");
  return runTui({ cwd: parsed.cwd ?? process.cwd(), env, resume: parsed.resume, continueNewest: parsed.continueNewest });
}

/** For `scv help` and `scv help tui`: `scv tui ...`, `--help` included, is routed before the command layer. */
export default {
  meta: { name: "tui", description: "an interactive session in this directory (also `scv` alone in a terminal)" },
  notes:
    "Options: -c/--continue (the newest session of this workspace), -r/--resume [ID] (a stored session; without ID a list to pick from), -C/--cwd DIR, -m/--model MODEL. Inside, /help lists keys and commands.",
  ownArgs: true,
  run: async ({ rawArgs }: { rawArgs: string[] }) => process.exit(await runTuiCommand(["tui", ...rawArgs])),
};
