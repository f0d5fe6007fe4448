// `scv` with no arguments in a terminal, `scv tui`, `scv --continue` and `scv --resume [ID]`: the interactive
// session. Parsed here rather than by the subcommand parser because these forms sit at the top level.
//
// A first prompt: `scv "fix the bug"` opens the session and sends it. The rule that tells it from a command: an
// argument with a space in it is a prompt, and so is everything after `--` (`scv -- help` asks the model about
// "help"); a single word is always a command, so a mistyped one is still "unknown command", not a paid request.
import { statSync } from "node:fs";
import { REASONING_EFFORTS } from "../config/reasoning";

export const TUI_USAGE = "usage: scv [tui] [-c|--continue] [-r|--resume [ID]] [-C|--cwd DIR] [-p|--provider NAME] [-m|--model MODEL] [--effort EFFORT] [-y|--yes] [--accept-edits] [PROMPT | -- WORDS…]";

type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

export interface TuiArgs {
  cwd?: string;
  provider?: string;
  model?: string;
  effort?: ReasoningEffort;
  yes?: boolean;
  acceptEdits?: boolean;
  resume?: string; // "" = pick from a list
  continueNewest?: boolean;
  /** Sent as the first turn once the session is open. */
  prompt?: string;
  help?: boolean;
}

const TUI_FLAGS = ["-c", "--continue", "-r", "--resume", "-C", "--cwd", "-m", "--model", "-p", "--provider", "--effort", "-y", "--yes", "--accept-edits"];

/** Whether argv asks for the TUI: nothing, `tui ...`, the TUI's own flags, or a first prompt (see above). */
export function isTuiInvocation(argv: readonly string[]): boolean {
  if (argv.length === 0) return true;
  const first = argv[0]!;
  if (first === "tui" || first === "--") return true;
  if (/\s/.test(first)) return true;
  return TUI_FLAGS.includes(first) || first.startsWith("--effort=");
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
      if (a === "--") {
        const words = rest.slice(i + 1).join(" ").trim();
        if (!words) return { error: "-- needs the words of a prompt after it" };
        args.prompt = words;
        break;
      }
      if (a === "-c" || a === "--continue") args.continueNewest = true;
      else if (a === "-r" || a === "--resume") {
        const next = rest[i + 1];
        args.resume = next !== undefined && !next.startsWith("-") ? rest[++i]! : "";
      } else if (a === "-C" || a === "--cwd") args.cwd = value();
      else if (a === "-m" || a === "--model") args.model = value();
      else if (a === "-p" || a === "--provider") args.provider = value();
      else if (a === "-y" || a === "--yes") args.yes = true;
      else if (a === "--accept-edits") args.acceptEdits = true;
      else if (a === "--effort" || a.startsWith("--effort=")) {
        const effort = a.startsWith("--effort=") ? a.slice("--effort=".length) : value();
        if (!(REASONING_EFFORTS as readonly string[]).includes(effort)) return { error: `--effort must be one of: ${REASONING_EFFORTS.join(", ")} (not "${effort}")` };
        args.effort = effort as ReasoningEffort;
      } else if (a === "-h" || a === "--help") args.help = true;
      else if (a.startsWith("-")) return { error: `unknown option ${a}` };
      else if (/\s/.test(a) && args.prompt === undefined) args.prompt = a;
      else return { error: `unexpected argument "${a}"; a first prompt is one quoted argument (scv "fix the bug") or the words after -- (scv -- ${a})` };
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
        "  -p, --provider NAME provider profile for this session (overrides provider.active)\n" +
        "  -m, --model MODEL   model for this session\n" +
        `      --effort EFFORT reasoning effort: ${REASONING_EFFORTS.join(", ")}\n` +
        "  -y, --yes           approve every tool call without asking\n" +
        "      --accept-edits  start in accept-edits mode: edit and write inside the workspace run unasked (Shift-Tab)\n" +
        "A first prompt is sent as soon as the session opens: one quoted argument with a space in it\n" +
        '(scv "fix the bug"), or every word after -- (scv -- help asks the model about "help"). A single\n' +
        "word is always a command, so a mistyped command is not sent to the model.\n" +
        "Inside: /help lists keys and commands; /model and /effort switch for the next turn.\n",
    );
    return 0;
  }
  // Claude Code's print mode: `scv -p "fix the bug"`, whose -p value is a prompt rather than a profile, runs one
  // turn as `scv exec` and prints the reply (docs/guide.md, "Coming from Claude Code").
  const print = await printModePrompt(parsed);
  if (typeof print === "object") {
    process.stderr.write(`scv: ${print.error}\n`);
    return 2;
  }
  if (print !== undefined) return runPrintMode(print, parsed);
  if (parsed.cwd !== undefined && !statSync(parsed.cwd, { throwIfNoEntry: false })?.isDirectory()) {
    process.stderr.write(`scv: -C ${parsed.cwd}: not a directory; give the workspace directory to work in\n${TUI_USAGE}\n`);
    return 2;
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
  if (parsed.provider) env.SCV_PROVIDER = parsed.provider;
  if (parsed.continueNewest && parsed.resume !== undefined) {
    process.stderr.write(`scv: give either --continue or --resume, not both\n${TUI_USAGE}\n`);
    return 2;
  }
  const { runTui } = await import("../tui/app");
  return runTui({
    cwd: parsed.cwd ?? process.cwd(),
    env,
    resume: parsed.resume,
    continueNewest: parsed.continueNewest,
    ...(parsed.effort ? { effort: parsed.effort } : {}),
    ...(parsed.yes ? { autoApprove: true } : {}),
    ...(parsed.acceptEdits ? { acceptEdits: true } : {}),
    ...(parsed.prompt ? { prompt: parsed.prompt } : {}),
  });
}

/**
 * The prompt of `scv -p PROMPT` (print mode) when the value of -p names no provider profile: text with a space
 * is a prompt; one word that names no profile is refused with the profiles there are (a mistyped profile is not
 * sent to the model as a paid request).
 */
async function printModePrompt(parsed: TuiArgs): Promise<string | { error: string } | undefined> {
  const value = parsed.provider;
  if (value === undefined) return undefined;
  let profiles: string[] | undefined;
  try {
    const { loadConfig } = await import("../config/load");
    profiles = Object.keys(loadConfig({ cwd: parsed.cwd ?? process.cwd() }).config.providers ?? {});
  } catch {
    profiles = undefined; // a broken config is reported by the session or exec itself
  }
  if (profiles?.includes(value)) return undefined;
  if (/\s/.test(value.trim())) return value;
  if (!profiles) return undefined;
  return { error: `-p ${value}: no provider profile of that name (profiles: ${profiles.join(", ") || "none"}); -p picks a profile, and a prompt with a space in it runs once and prints the reply (scv -p "fix the bug", as scv exec "fix the bug")` };
}

/** `scv -p "PROMPT" [-m MODEL] [-C DIR] [-y] [--accept-edits] [--effort E]`: one turn through `scv exec`. */
async function runPrintMode(prompt: string, parsed: TuiArgs): Promise<number> {
  const { defineCommand, runCli } = await import("./command");
  const root = defineCommand({ meta: { name: "scv", description: "print mode" }, subCommands: { exec: () => import("./exec").then((m) => m.default as never) } });
  const flags = [
    ...(parsed.cwd ? ["-C", parsed.cwd] : []),
    ...(parsed.model ? ["-m", parsed.model] : []),
    ...(parsed.effort ? ["--effort", parsed.effort] : []),
    ...(parsed.yes ? ["-y"] : []),
    ...(parsed.acceptEdits ? ["--accept-edits"] : []),
    ...(parsed.continueNewest ? ["--continue"] : []),
    ...(parsed.resume ? ["--resume", parsed.resume] : []),
  ];
  await runCli(root, ["exec", ...flags, "--", prompt]);
  return typeof process.exitCode === "number" ? process.exitCode : 0;
}

/** For `scv help` and `scv help tui`: `scv tui ...`, `--help` included, is routed before the command layer. */
export default {
  meta: { name: "tui", description: "an interactive session in this directory (also `scv` alone in a terminal)" },
  notes:
    'Options: -c/--continue (the newest session of this workspace), -r/--resume [ID] (a stored session; without ID a list to pick from), -C/--cwd DIR, -p/--provider NAME, -m/--model MODEL, --effort EFFORT, -y/--yes, --accept-edits. A first prompt: one quoted argument with a space (scv "fix the bug") or the words after -- (scv -- help). Inside, /help lists keys and commands.',
  ownArgs: true,
  run: async ({ rawArgs }: { rawArgs: string[] }) => process.exit(await runTuiCommand(["tui", ...rawArgs])),
};
