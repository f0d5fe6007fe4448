// The person's command files (src/command-files) in the TUI: in the `/` menu after SCV's own commands, run as
// a turn with the arguments filled in, their `allowed-tools` approved unasked for that turn, their `model` used
// for that turn and switched back after it.
import { type CommandFile, allowsTool, expandCommand, loadCommandFiles } from "../command-files/index";
import type { SlashCommand } from "./commands";

export class UserCommands {
  /** The turn a command started, with the tools its file lets run unasked. */
  private allowed?: { turnId: string; tools: string[] };

  private constructor(
    readonly files: CommandFile[],
    readonly notices: string[],
  ) {}

  static load(opts: { scvHome: string; workspace: string; builtins: readonly string[] }): UserCommands {
    const { items, notices } = loadCommandFiles(opts);
    return new UserCommands(items, notices);
  }

  /** The `/` menu's rows for these commands. */
  get menu(): SlashCommand[] {
    return this.files.map((c) => ({ name: c.name, ...(c.argumentHint ? { args: c.argumentHint } : {}), description: `${c.description} (${c.kind === "project" ? "project" : "your"} command)` }));
  }

  find(name: string): CommandFile | undefined {
    return this.files.find((c) => c.name === name);
  }

  prompt(c: CommandFile, args: string): string {
    return expandCommand(c.body, args);
  }

  /** The command's turn started: its allowed-tools hold until the turn ends. */
  started(c: CommandFile, turnId: string): void {
    this.allowed = c.allowedTools.length ? { turnId, tools: c.allowedTools } : undefined;
  }

  /** Whether an approval of `turnId` is one the running command's `allowed-tools` lets run unasked. */
  allows(turnId: string, tool: string, summary: string): boolean {
    if (!this.allowed || this.allowed.turnId !== turnId) return false;
    const command = tool === "bash" ? summary.split("\n", 1)[0]!.replace(/^\$\s*/, "") : undefined;
    return allowsTool(this.allowed.tools, tool, command);
  }

  ended(turnId: string): void {
    if (this.allowed?.turnId === turnId) this.allowed = undefined;
  }
}
