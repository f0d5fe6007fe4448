// A session's goal from start to stop: it counts each turn run while the goal is active as an attempt, runs the
// check at the end of the attempt (inside its turn, so the attempt's checkpoint covers what the check wrote too and
// one /undo takes one attempt back), decides whether to go on, and says why it stopped. session.ts owns the turns.
import type { Usage } from "../provider/types";
import type { Emit, TurnOutcome } from "./turn";
import type { ToolResult } from "../tools/tool";
import { type CheckRun, gaveUp, goalBudget, type GoalRequest, GoalRun, type GoalStatus, lastLine, retryPrompt, tailOf } from "./goal";

export interface GoalHost {
  sessionId: string;
  emit: Emit;
  record(entry: { type: "goal"; turn: string; check: string; budget: GoalRun["budget"] } | { type: "goal_ended"; turn?: string; status: GoalStatus; reason: string; attempts: number }): void;
  /** Whether `turnId` changed the workspace (its checkpoint); undefined when the session keeps none. */
  filesChanged(turnId: string): boolean | undefined;
  /** Queues the next attempt (when no prompt of the person's waits, which would be the next attempt itself). */
  queueAttempt(prompt: string, attempt: number): void;
  /** Stops the running turn (the wall time is spent). */
  abortRunning(): void;
  maxTimeoutSeconds: number;
}

export class GoalDriver {
  private goal?: GoalRun;

  constructor(private readonly host: GoalHost) {}

  get active(): GoalRun | undefined {
    return this.goal && !this.goal.ended ? this.goal : undefined;
  }

  /** Starts a goal with the turn `turnId`; refused while one runs. `restored` continues one a stored session had. */
  begin(req: GoalRequest, turnId: string, restored?: { attempts: number; budget: GoalRun["budget"] }): GoalRun {
    if (this.active) throw new Error(`a goal is already running (check \`${this.active.check}\`); stop it first (turn.cancel, Ctrl-C or /stop)`);
    const budget = restored?.budget ?? goalBudget(req, this.host.maxTimeoutSeconds);
    const goal = new GoalRun(req.check, budget, turnId);
    if (restored) goal.attempt = restored.attempts;
    this.goal = goal;
    goal.timer = setTimeout(() => {
      if (this.goal !== goal || goal.ended) return;
      this.end("budget", `the wall time was spent (${budget.max_seconds} s)`);
      this.host.abortRunning();
    }, budget.max_seconds * 1000);
    goal.timer.unref?.();
    if (!restored) {
      this.host.record({ type: "goal", turn: turnId, check: req.check, budget });
      this.host.emit("goal.started", { session_id: this.host.sessionId, turn_id: turnId, check: req.check, budget });
    }
    return goal;
  }

  /** A turn starts while the goal is active: it is the next attempt. */
  turnStarting(): void {
    if (this.active) this.active.attempt++;
  }

  /**
   * After the turn's model work, inside the turn: runs the check when the turn completed, through `run` (a bash
   * call of the turn, shown and guarded like any).
   */
  async check(turnId: string, outcome: TurnOutcome, signal: AbortSignal, run: (command: string, timeoutSeconds: number) => Promise<ToolResult>): Promise<CheckRun | undefined> {
    const goal = this.active;
    if (!goal || outcome.status !== "completed" || signal.aborted) return undefined;
    const result = await run(goal.check, goal.budget.check_timeout_seconds);
    const event = (result.event ?? {}) as { exit_code?: number | null; timed_out?: boolean };
    const ran = typeof event.exit_code === "number" || event.timed_out === true;
    const checked: CheckRun = {
      passed: result.ok && event.exit_code === 0,
      output: tailOf(result.output),
      ...(typeof event.exit_code === "number" && !event.timed_out ? { exitCode: event.exit_code } : {}),
      ...(event.timed_out ? { timedOut: true } : {}),
      ...(!ran ? { refused: result.display ?? result.output.split("\n")[0] ?? "the check did not run" } : {}),
    };
    goal.last = checked;
    this.host.emit("goal.progress", {
      session_id: this.host.sessionId,
      turn_id: turnId,
      attempt: goal.attempt,
      max_attempts: goal.budget.max_attempts,
      passed: checked.passed,
      ...(checked.exitCode !== undefined ? { exit_code: checked.exitCode } : {}),
      ...(checked.timedOut ? { timed_out: true as const } : {}),
      last_line: lastLine(checked.output),
      tokens: goal.tokens + tokensOf(outcome.usage),
      seconds: goal.seconds(),
    });
    return checked;
  }

  /** After the turn ended (its checkpoint recorded): stop with the reason, or queue the next attempt. */
  turnEnded(turnId: string, outcome: TurnOutcome, run: CheckRun | undefined): void {
    const goal = this.active;
    if (!goal) return;
    goal.tokens += tokensOf(outcome.usage);
    const n = goal.attempt;
    if (outcome.status === "cancelled") return this.end("cancelled", "the turn was cancelled", turnId);
    if (outcome.status === "failed") {
      const why = outcome.error?.message ?? "the turn failed";
      return this.end(outcome.error?.class === "limit" ? "budget" : "failed", `attempt ${n} failed: ${why}`, turnId);
    }
    if (!run) return this.end("failed", `attempt ${n} ended without running the check`, turnId);
    if (run.passed) return this.end("passed", `the check passed on attempt ${n}`, turnId);
    if (run.refused) return this.end("refused", `the check did not run: ${run.refused}`, turnId);
    const cannot = gaveUp(outcome.reply);
    if (cannot) return this.end("gave_up", `the model says the check cannot pass: ${cannot}`, turnId);
    if (goal.repeated(run, this.host.filesChanged(turnId) ?? false)) {
      return this.end("repeated", `the check failed the same way ${goal.budget.repeat_limit} times in a row with no file changed`, turnId);
    }
    const spent = goal.spent();
    if (spent) return this.end("budget", `${spent}; the check still fails`, turnId);
    this.host.queueAttempt(retryPrompt(goal, run), n + 1);
  }

  /** The person cancelled (turn.cancel, Ctrl-C, /stop): the goal ends at once. */
  cancelled(): void {
    if (this.active) this.end("cancelled", "stopped by the person (turn.cancel)");
  }

  /** The session closes: the goal is left as it is in the record, so a resume continues it. */
  close(): void {
    if (this.goal?.timer) clearTimeout(this.goal.timer);
    this.goal = undefined;
  }

  private end(status: GoalStatus, reason: string, turnId?: string): void {
    const goal = this.goal;
    if (!goal || goal.ended) return;
    goal.ended = status;
    if (goal.timer) clearTimeout(goal.timer);
    const last = goal.last;
    this.host.record({ type: "goal_ended", ...(turnId ? { turn: turnId } : {}), status, reason, attempts: goal.attempt });
    this.host.emit("goal.ended", {
      session_id: this.host.sessionId,
      ...(turnId ? { turn_id: turnId } : {}),
      status,
      reason,
      check: goal.check,
      attempts: goal.attempt,
      ...(last?.exitCode !== undefined ? { exit_code: last.exitCode } : {}),
      ...(last ? { output: last.output } : {}),
    });
  }
}

function tokensOf(u: Usage): number {
  return u.input_tokens + u.output_tokens;
}
