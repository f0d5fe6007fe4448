// Where a bash call runs and what that means for its approval: inside the sandbox (a command made only of git
// commands with `.git`'s data writable, every other command with `.git` read-only), or outside it (the user
// turned the sandbox off, this kernel has none, the model asked with `unsandboxed`, or a git write this machine
// cannot confine, which only a person approves). The approval words come from here so that the card, the tool's
// started event and the decision say the same thing.
import { lstatSync } from "node:fs";
import { join } from "node:path";
import type { GitCommand } from "../guard/git-command";
import { enforcementFor, type Enforcement, type SandboxSettings } from "../sandbox";

export interface CallArgs {
  command: string;
  unsandboxed?: string | undefined;
}

export interface Placement {
  /** The sandbox a call runs in; undefined when it runs outside. */
  inside(args: CallArgs): { settings: SandboxSettings; enforcement: Enforcement } | undefined;
  /** The card's line: `sandboxed: …` or `not sandboxed: …`. */
  howItRuns(args: CallArgs): string;
  /** A git write that runs outside the sandbox because this machine cannot confine it: what it may also run. */
  outsideGit(args: CallArgs): string[] | undefined;
  /**
   * Whether a command the guard asks about runs unasked under `[sandbox] auto_run`: `run`, or not and why (no
   * `why` when auto_run does not apply at all: off, or the call runs outside).
   */
  autoRun(args: CallArgs): { run: true } | { run: false; why?: string };
}

const isDirectory = (p: string) => {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
};

export function placement(sandbox: SandboxSettings | undefined, home: string): Placement {
  // Probed at the first call (a throwaway launcher, about 10 ms), not with the tool.
  let enforcement: Enforcement | undefined;
  const enforced = () => (enforcement ??= enforcementFor(sandbox!));
  const gitOf = (command: string): GitCommand | undefined => {
    const { gitCommandOf } = require("../guard/git-command") as typeof import("../guard/git-command");
    return gitCommandOf(command);
  };
  /** A git command the sandbox cannot hold: it makes a repository, or writes one where `.git` must stay read-only. */
  const gitOutside = (command: string): GitCommand | undefined => {
    const git = gitOf(command);
    if (!git || !(git.writes || git.creates)) return undefined;
    const confinable = enforced().namespaces && sandbox!.mode === "workspace-write" && isDirectory(join(sandbox!.workspace, ".git"));
    return git.creates || !confinable ? git : undefined;
  };
  const inside = (args: CallArgs) => {
    if (!sandbox || args.unsandboxed) return undefined;
    const e = enforced();
    if (!e.available && !sandbox.required) return undefined;
    if (e.available && gitOutside(args.command)) return undefined;
    const git = gitOf(args.command);
    return { settings: git ? { ...sandbox, gitData: true } : sandbox, enforcement: e };
  };
  return {
    inside,
    howItRuns(args) {
      const within = inside(args);
      if (within) {
        const git = within.settings.gitData && within.enforcement.namespaces ? "; .git's data writable for git, its hooks and config read-only" : "";
        return `sandboxed: ${within.enforcement.summary}${git}`;
      }
      if (args.unsandboxed) return `not sandboxed: asked to run outside the sandbox (${args.unsandboxed})`;
      if (sandbox && enforcement?.available && gitOutside(args.command)) {
        return gitOf(args.command)!.creates
          ? "not sandboxed: it makes a repository, which a sandboxed command may not; only a person can approve it"
          : "not sandboxed: it writes the repository's .git, which this machine's sandbox cannot open to git alone (no mount namespace); only a person can approve it";
      }
      if (sandbox) return `not sandboxed: ${enforcement?.summary ?? "the sandbox is unavailable"}`;
      return 'not sandboxed: [sandbox] mode = "off" in your user config';
    },
    outsideGit(args) {
      if (!sandbox || args.unsandboxed || !enforced().available || !gitOutside(args.command)) return undefined;
      const { gitOutsideRisks } = require("../guard/git-command") as typeof import("../guard/git-command");
      return gitOutsideRisks(sandbox.workspace, home);
    },
    autoRun(args) {
      const within = inside(args);
      if (!within || !sandbox!.autoRun) return { run: false };
      const runs = gitOf(args.command)?.runsProgram;
      if (runs) return { run: false, why: runs };
      if (!within.enforcement.whole && !sandbox!.autoRunPartial) {
        return { run: false, why: `this machine enforces only part of the sandbox (not enforced: ${within.enforcement.missing.join("; ")}), so nothing runs unasked (set [sandbox] auto_run = "always" to run unasked anyway)` };
      }
      return { run: true };
    },
  };
}
