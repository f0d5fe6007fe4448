// Goals (turn.start `goal`, `scv exec --until`, `/goal`): a session keeps working until a check command passes.
// After each turn of the goal the session runs the check as a bash call (sandboxed, guarded and shown like any)
// and, while it fails, starts another turn with its exit code and the end of its output, within a budget. This
// module holds the goal's state and its wording; session.ts runs the turns and the check.
import type { NotificationParams } from "../protocol/schema";
import { tailUtf8 } from "../text/cut";

export type GoalStatus = NotificationParams<"goal.ended">["status"];

export interface GoalRequest {
  check: string;
  max_attempts?: number;
  max_tokens?: number;
  max_seconds?: number;
  check_timeout_seconds?: number;
}

export interface GoalBudget {
  max_attempts: number;
  max_tokens: number;
  max_seconds: number;
  check_timeout_seconds: number;
  repeat_limit: number;
}

export const GOAL_DEFAULTS = { max_attempts: 10, max_tokens: 2_000_000, max_seconds: 1800, check_timeout_seconds: 600, repeat_limit: 3 } as const;

/** The line a model answers with when it finds the check cannot pass; the goal then stops as `gave_up`. */
export const GIVE_UP_MARK = "GOAL UNREACHABLE:";
/** How much of the check's output the model and the person are given (its end). */
const OUTPUT_TAIL_BYTES = 4000;

/** The budget a goal runs within: what the request gave, the defaults for the rest; the check's time within the tool's ceiling. */
export function goalBudget(req: GoalRequest, maxTimeoutSeconds: number): GoalBudget {
  return {
    max_attempts: req.max_attempts ?? GOAL_DEFAULTS.max_attempts,
    max_tokens: req.max_tokens ?? GOAL_DEFAULTS.max_tokens,
    max_seconds: req.max_seconds ?? GOAL_DEFAULTS.max_seconds,
    check_timeout_seconds: Math.min(req.check_timeout_seconds ?? GOAL_DEFAULTS.check_timeout_seconds, maxTimeoutSeconds),
    repeat_limit: GOAL_DEFAULTS.repeat_limit,
  };
}

/** One run of the check as the goal reads it. */
export interface CheckRun {
  passed: boolean;
  /** Absent when the command did not run (refused, denied) or was killed. */
  exitCode?: number;
  /** The call was refused or denied: the check never ran. */
  refused?: string;
  timedOut?: boolean;
  /** The end of its output (the tool's result text). */
  output: string;
}

/** A goal in progress: what it has spent and what its last check said. */
export class GoalRun {
  attempt = 0;
  tokens = 0;
  readonly startedAt = Date.now();
  last?: CheckRun;
  /** The last failure's fingerprint and how many times in a row it came with no file changed. */
  private repeat = { key: "", count: 0 };
  ended?: GoalStatus;
  timer?: ReturnType<typeof setTimeout>;

  constructor(
    readonly check: string,
    readonly budget: GoalBudget,
    readonly firstTurn: string,
  ) {}

  seconds(): number {
    return Math.floor((Date.now() - this.startedAt) / 1000);
  }

  /** Counts a failed check; true when the same failure came `repeat_limit` times in a row with no file changed. */
  repeated(run: CheckRun, filesChanged: boolean): boolean {
    const key = `${run.exitCode ?? "none"}\0${run.output}`;
    if (filesChanged || key !== this.repeat.key) this.repeat = { key, count: 1 };
    else this.repeat.count++;
    return this.repeat.count >= this.budget.repeat_limit;
  }

  /** Which budget is spent after this attempt, in words, or undefined. */
  spent(): string | undefined {
    const b = this.budget;
    if (this.attempt >= b.max_attempts) return b.max_attempts === 1 ? "its one attempt was used" : `all ${b.max_attempts} attempts were used`;
    if (this.tokens >= b.max_tokens) return `the token budget was spent (${this.tokens} of ${b.max_tokens})`;
    if (this.seconds() >= b.max_seconds) return `the wall time was spent (${this.seconds()} of ${b.max_seconds} s)`;
    return undefined;
  }
}

/** The budget in one line, as a client shows it when the goal starts. */
export function budgetLine(b: GoalBudget): string {
  return `at most ${b.max_attempts} attempts, ${b.max_tokens} tokens, ${b.max_seconds} s; the check may take ${b.check_timeout_seconds} s; the same failure ${b.repeat_limit} times with no file changed stops it`;
}

/** What the model is told with the person's prompt when a goal starts. */
export function goalNote(check: string): string {
  return `[Goal: when you finish, SCV runs the check \`${check}\` and, while it fails, gives you its output and another turn. Work until it passes. If you are sure it cannot pass, answer with a line starting "${GIVE_UP_MARK}" and why.]`;
}

/** The next attempt's prompt: the failed check's exit code and the end of its output. */
export function retryPrompt(goal: GoalRun, run: CheckRun): string {
  const how = run.timedOut ? `timed out after ${goal.budget.check_timeout_seconds} s and was killed` : run.exitCode !== undefined ? `failed with exit ${run.exitCode}` : "failed";
  return [
    `[Goal, attempt ${goal.attempt + 1} of ${goal.budget.max_attempts}] The check \`${goal.check}\` ${how}. The end of its output:`,
    "```",
    tailOf(run.output),
    "```",
    `Find the cause and fix it so the check passes. If you are sure it cannot pass, answer with a line starting "${GIVE_UP_MARK}" and why.`,
  ].join("\n");
}

/** The model's reason for giving up, when its reply says the check cannot pass. */
export function gaveUp(reply: string): string | undefined {
  for (const line of reply.split("\n")) {
    const at = line.indexOf(GIVE_UP_MARK);
    if (at >= 0 && line.slice(0, at).trim().replace(/[*_`>#-]/g, "") === "") return line.slice(at + GIVE_UP_MARK.length).trim() || "no reason given";
  }
  return undefined;
}

export function tailOf(output: string): string {
  return tailUtf8(output, OUTPUT_TAIL_BYTES);
}

/** The last non-empty line of the check's output, for progress. */
export function lastLine(output: string): string {
  const lines = output.split("\n").map((l) => l.trim()).filter(Boolean);
  return (lines.at(-1) ?? "").slice(0, 300);
}

/** How a client words a goal's events: lines, each with its tone (the client colours them). */
export function goalEventLines(
  ...[method, p]: ["goal.started", NotificationParams<"goal.started">] | ["goal.progress", NotificationParams<"goal.progress">] | ["goal.ended", NotificationParams<"goal.ended">]
): { text: string; tone: "dim" | "ok" | "warn" | "fail" }[] {
  switch (method) {
    case "goal.started":
      return [{ text: `goal: until \`${p.check}\` passes (${budgetLine(p.budget)})`, tone: "dim" }];
    case "goal.progress": {
      const how = p.passed ? "passed" : p.timed_out ? "timed out and was killed" : p.exit_code !== undefined ? `failed (exit ${p.exit_code})` : "failed";
      return [{ text: `goal: attempt ${p.attempt} of ${p.max_attempts}: the check ${how}${p.last_line ? `: ${p.last_line}` : ""}`, tone: p.passed ? "ok" : "warn" }];
    }
    case "goal.ended": {
      if (p.status === "passed") return [{ text: `goal reached: ${p.reason}`, tone: "ok" }];
      const out: { text: string; tone: "dim" | "ok" | "warn" | "fail" }[] = [{ text: `goal stopped (${p.status}) after ${p.attempts} attempt${p.attempts === 1 ? "" : "s"}: ${p.reason}`, tone: "fail" }];
      const tail = (p.output ?? "").split("\n").filter((l) => l.trim()).slice(-8);
      if (tail.length) out.push({ text: `the last check's output ends:\n${tail.map((l) => `  ${l}`).join("\n")}`, tone: "dim" });
      return out;
    }
  }
}
