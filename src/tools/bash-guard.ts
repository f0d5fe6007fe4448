// The bash tool's approval verdict: the command guard's reading, then where the call runs (bash-sandbox.ts) and
// what auto mode may run unasked there; rules are read on each call, so `scv rules rm` takes effect at once.
import type { GuardVerdict, ProgramList } from "../guard/index";
import type { SessionScope } from "../scope";
import type { Placement } from "./bash-sandbox";

export function bashGuard(scope: SessionScope, home: string, place: Placement) {
  const guardConfig = scope.config.tools.guard;
  let programs: ProgramList | undefined;

  function guard(args: { command: string; secrets?: string[] | undefined; unsandboxed?: string | undefined }): GuardVerdict {
    const verdict = guardAlone(args);
    const runs = place.howItRuns(args);
    if (verdict.decision === "block") return { ...verdict, sandbox: runs };
    // Outside the sandbox on request: a person decides, every time; no rule, auto-approval or mode answers it.
    if (args.unsandboxed) return { decision: "prompt", reason: `it asks to run outside the sandbox: ${args.unsandboxed}`, sandbox: runs, personOnly: true };
    // A git write this machine cannot confine runs outside: the same, with what git would also run there.
    const outside = place.outsideGit(args);
    if (outside) return { decision: "prompt", reason: ["it writes the repository's .git outside the sandbox", ...outside].join("; "), sandbox: runs, personOnly: true };
    if (verdict.decision === "prompt" && !args.secrets?.length) {
      const auto = place.autoRun(args);
      if (auto.run) {
        // Not what rewind cannot bring back: bulk deletes and overwrites, and files checkpoints leave out, still ask.
        const { lossReason } = require("../guard/index") as typeof import("../guard/index");
        const loss = lossReason(args.command, { workspace: scope.workspace, home, scvHome: scope.scvHome, checkpoints: scope.config.checkpoints });
        if (loss) return { ...verdict, reason: loss, sandbox: runs };
        return { decision: "allow", reason: `confined by the sandbox ([sandbox] auto_run): ${verdict.reason}`, sandbox: runs };
      }
      if (auto.why) return { ...verdict, reason: `${verdict.reason}; it asks although [sandbox] auto_run is on: ${auto.why}`, sandbox: runs };
    }
    return { ...verdict, sandbox: runs };
  }

  function guardAlone(args: { command: string; secrets?: string[] | undefined }): GuardVerdict {
    // Loaded at the first call, not with the tool: sessions that never run a command do not pay for it.
    const { classifyCommand, loadRules, programList } = require("../guard/index") as typeof import("../guard/index");
    programs ??= programList(guardConfig.add_read_only, guardConfig.remove_read_only);
    const verdict = classifyCommand(args.command, { workspace: scope.workspace, home, scvHome: scope.scvHome, programs, rules: loadRules(scope.scvHome) });
    // Secrets are handed over only with someone's consent: a call that binds one always asks.
    if (args.secrets?.length && verdict.decision === "allow") return { decision: "prompt", reason: `it binds secrets (${args.secrets.join(", ")}), which always asks` };
    return verdict;
  }

  return guard;
}
