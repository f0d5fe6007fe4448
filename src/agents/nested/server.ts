// One nested `scv server --stdio` for one conversation: started through the delegation tracker (recorded,
// killed and reaped like any delegation), opened with initialize → session.start, then one turn.start per
// call; collected when it exits and shut down as ../live-server says. Between calls it keeps reading: report
// turns of the nested session's own background jobs get their approvals denied, and the jobs still running or
// unreported are counted in the delegation record.
import { PartialLines } from "../../text/partial-lines";
import { newHandle, startDelegated, type TrackedRun } from "../../process/delegations";
import { MAX_LINE_BYTES, PROTOCOL_VERSION } from "../../protocol/constants";
import type { NotificationParams } from "../../protocol/schema";
import type { RunResult } from "../../process/types";
import { ceilingOf, sandboxSettingsIn, type SandboxCeiling } from "../../sandbox/settings";
import type { SessionScope, ToolRisk } from "../../scope";
import { StreamReader } from "../formats/stream";
import { collectExit, LIVE_GRACE_MS, shutdownGently } from "../live-server";
import { VERSION } from "../../version";
import { NestedClient, type NestedNotification } from "./client";
import { finishedJobsIn } from "./finished-jobs";

const STDERR_BYTES = 64 * 1024;

export interface NestedStart {
  scope: SessionScope;
  /** The conversation handle (`scv-1`), for the record and approval prefixes. */
  conversation: string;
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  /** The depth the nested session runs at (the caller's + 1). */
  depth: number;
  model?: string;
  /** An agent file's persona (session.start `persona`). */
  persona?: { name: string; system_prompt: string; tools?: string[]; max_steps?: number };
  /** An agent file's `sandbox: read-only`: the nested session's sandbox ceiling is read-only. */
  readOnly?: boolean;
}

/** What one call's turn hands back to the caller while it runs. */
export interface TurnIo {
  progress(line: string): void;
  /** The calling session's approval gate; absent when no one can be asked (the request is denied). */
  approve?(request: { tool?: string; risk: ToolRisk; summary: string }): Promise<{ approved: boolean; reason: string }>;
}

export type TurnEnded = NotificationParams<"turn.ended">;

export type TurnOutcome =
  | { kind: "ended"; ended: TurnEnded; jobs: string[] }
  /** Cancelled or timed out: `settled` says whether the nested turn ended within LIVE_GRACE_MS of turn.cancel. */
  | { kind: "stopped"; settled: boolean; ended?: TurnEnded }
  | { kind: "exited"; stderr: string; exitCode: number | null; signal: string | null }
  /** The nested server refused the turn (a protocol error), though it still runs. */
  | { kind: "error"; message: string };

interface CurrentTurn {
  turnId?: string;
  io: TurnIo;
  /** The nested reply's text as progress lines, only a bounded open line kept. */
  lines: PartialLines;
  labels: Map<string, string>;
  resolve(outcome: TurnOutcome): void;
}

export class NestedServer {
  private run!: TrackedRun;
  private client!: NestedClient;
  private sessionId = "";
  private current?: CurrentTurn;
  private exitResult?: RunResult;
  private closing?: Promise<void>;
  /** Settles once the child has exited and onExited has run. */
  private exitedRun!: Promise<void>;
  /** Job handles started in the nested session whose result its model has not seen yet. */
  private readonly jobs = new Set<string>();
  /** Report turns the nested session started itself, with the jobs each reports. */
  private readonly reportTurns = new Map<string, string[]>();
  private turnNumber = 0;
  readonly delegationHandle: string;

  private constructor(private readonly opts: NestedStart) {
    this.delegationHandle = newHandle("scv");
  }

  /** Starts the child and opens its session; throws (with the child stopped) when it cannot. */
  static async start(opts: NestedStart, signal: AbortSignal): Promise<NestedServer> {
    const server = new NestedServer(opts);
    await server.open(signal);
    return server;
  }

  get exited(): boolean {
    return this.exitResult !== undefined;
  }

  get backgroundJobs(): number {
    return this.jobs.size;
  }

  private async open(signal: AbortSignal): Promise<void> {
    const reader = new StreamReader({ event: (v) => this.client.message(v), finish: () => ({ failed: false, declined: false }) }, MAX_LINE_BYTES);
    this.run = startDelegated(
      this.opts.scope,
      { handle: this.delegationHandle, agent: "scv", cwd: this.opts.cwd, conversation: this.opts.conversation, turn: 1 },
      { argv: this.opts.argv, cwd: this.opts.cwd, env: this.opts.env, stdin: "pipe", captureBytes: STDERR_BYTES, onStdout: (c) => reader.push(c) },
    );
    this.client = new NestedClient((line) => this.run.stdin!.write(line), (n) => this.onNotification(n));
    // The reaper: from the start, so an exit between turns is collected at once and ends the conversation.
    this.exitedRun = collectExit(this.run).then((r) => this.onExited(r));
    // Session end closes the child the gentle way first (this runs before the tracker's own kill).
    this.opts.scope.onClose(() => this.close());
    const abort = () => void this.close();
    signal.addEventListener("abort", abort, { once: true });
    try {
      await this.client.request("initialize", { protocol_version: PROTOCOL_VERSION, client: { name: "scv", version: VERSION } });
      const started = await this.client.request("session.start", {
        cwd: this.opts.cwd,
        delegation_depth: this.opts.depth,
        // The child's home is its own private one, so its default hidden list would not cover the person's.
        ...sandboxCeiling(this.opts.scope, this.opts.readOnly),
        ...(this.opts.model !== undefined ? { model: this.opts.model } : {}),
        ...(this.opts.persona ? { persona: this.opts.persona } : {}),
      });
      this.sessionId = started.session_id;
    } catch (e) {
      await this.close();
      const exit = this.exitResult;
      const tail = exit?.stderr.text.trim();
      throw new Error(`${(e as Error).message}${tail ? `; its stderr: ${tail.slice(-1024)}` : ""}`);
    } finally {
      signal.removeEventListener("abort", abort);
    }
    this.run.markIdle(true);
  }

  /**
   * Runs one turn. Cancellation (`signal`) sends turn.cancel and waits up to LIVE_GRACE_MS for the turn to end; the
   * caller decides from the outcome whether the conversation survives.
   */
  async turn(prompt: string, io: TurnIo, signal: AbortSignal): Promise<TurnOutcome> {
    if (this.exitResult) return this.exitedOutcome(this.exitResult);
    this.turnNumber++;
    this.run.setTurn(this.turnNumber);
    let finish!: (o: TurnOutcome) => void;
    const done = new Promise<TurnOutcome>((resolve) => (finish = resolve));
    const lines = new PartialLines((line) => {
      if (line.trim()) io.progress(line.trim());
    });
    const current: CurrentTurn = { io, lines, labels: new Map(), resolve: (o) => finish(o) };
    this.current = current;
    let onAbort = () => {};
    const aborted = new Promise<"aborted">((resolve) => {
      onAbort = () => resolve("aborted");
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      this.client.request("turn.start", { session_id: this.sessionId, prompt }).then(
        (started) => void (current.turnId ??= started.turn_id),
        (e: Error) => {
          if (!this.exitResult) finish({ kind: "error", message: e.message });
        },
      );
      const first = await Promise.race([done, aborted]);
      if (first !== "aborted") return first;
      const turnId = current.turnId;
      // Refused only when the child's turn ended meanwhile; the wait below sees that end either way.
      void this.client.request("turn.cancel", { session_id: this.sessionId, ...(turnId ? { turn_id: turnId } : {}) }).catch(() => {});
      const after = await Promise.race([done, Bun.sleep(LIVE_GRACE_MS).then(() => undefined)]);
      if (!after) return { kind: "stopped", settled: false };
      return after.kind === "ended" ? { kind: "stopped", settled: true, ended: after.ended } : after;
    } finally {
      signal.removeEventListener("abort", onAbort);
      if (this.current === current) this.current = undefined;
      this.syncRecord();
    }
  }

  private onNotification(n: NestedNotification): void {
    const current = this.current;
    switch (n.method) {
      case "turn.started":
        if (n.params.origin.kind === "background") {
          this.reportTurns.set(n.params.turn_id, n.params.origin.jobs);
          if (!current) this.run.markIdle(false);
        } else if (current && !current.turnId) current.turnId = n.params.turn_id;
        return;
      case "approval.requested": {
        if (current && n.params.turn_id === current.turnId) return void this.relayApproval(current, n.params);
        // A report turn (or anything else no call carries): nobody can be asked, so it is denied.
        void this.answer(n.params.approval_id, false);
        return;
      }
      case "tool.completed":
        this.countJobs(n.params);
        if (current && n.params.turn_id === current.turnId) {
          const label = current.labels.get(n.params.call_id) ?? n.params.tool;
          current.io.progress(`${label} ${n.params.ok ? "done" : "failed"}`);
        }
        return;
      case "turn.ended": {
        const reported = this.reportTurns.get(n.params.turn_id);
        if (reported) {
          this.reportTurns.delete(n.params.turn_id);
          for (const j of reported) this.jobs.delete(j);
          if (!this.current) this.syncRecord();
          return;
        }
        if (current && n.params.turn_id === current.turnId) {
          current.lines.flush();
          current.resolve({ kind: "ended", ended: n.params, jobs: [...this.jobs] });
        }
        return;
      }
    }
    if (!current || !("turn_id" in n.params) || n.params.turn_id !== current.turnId) return;
    if (n.method === "assistant.delta") {
      current.lines.push(n.params.text);
    } else if (n.method === "tool.started") {
      current.lines.flush();
      current.labels.set(n.params.call_id, n.params.label);
      current.io.progress(n.params.label);
    } else if (n.method === "tool.progress") {
      current.io.progress(n.params.line);
    }
  }

  private async relayApproval(current: CurrentTurn, p: NotificationParams<"approval.requested">): Promise<void> {
    let approved = false;
    if (current.io.approve) {
      try {
        approved = (await current.io.approve({ tool: p.tool, risk: p.risk, summary: `[${this.opts.conversation} depth ${this.opts.depth}] ${p.summary}` })).approved;
      } catch {
        approved = false;
      }
    }
    await this.answer(p.approval_id, approved);
  }

  private answer(approvalId: string, approved: boolean): Promise<unknown> {
    // Refused only when the child's approval is gone (its turn ended, or the child exited): nothing waits for it then.
    return this.client.request("approval.resolve", { session_id: this.sessionId, approval_id: approvalId, approved }).catch(() => {});
  }

  /**
   * Jobs count from the call that started each (`tool.completed.jobs`) until the nested model has seen the
   * result: a later call's tool output naming the job with a finished status, or a report turn that ends.
   * Only handles and statuses are read, so whatever a nested version names its job tools is followed.
   */
  private countJobs(p: NotificationParams<"tool.completed">): void {
    const started = (p as Record<string, unknown>).jobs;
    if (Array.isArray(started)) for (const j of started) if (typeof j === "string") this.jobs.add(j);
    if (this.jobs.size && !this.reportTurns.has(p.turn_id)) {
      for (const seen of finishedJobsIn(p.output)) this.jobs.delete(seen);
    }
    if (!this.current) this.syncRecord();
  }

  private syncRecord(): void {
    if (this.exitResult) return;
    this.run.setBackgroundJobs(this.jobs.size + [...this.reportTurns.values()].reduce((n, j) => n + j.length, 0));
    if (!this.current) this.run.markIdle(this.reportTurns.size === 0);
  }

  private onExited(r: RunResult): void {
    this.exitResult = r;
    this.client?.fail(new Error("the nested SCV's server exited"));
    const current = this.current;
    if (current) {
      this.current = undefined;
      current.resolve(this.exitedOutcome(r));
    }
  }

  private exitedOutcome(r: RunResult): TurnOutcome {
    return { kind: "exited", stderr: r.stderr.text, exitCode: r.exitCode, signal: r.signal };
  }

  /** Ends the nested SCV: stdin closed (the server exits on EOF), LIVE_GRACE_MS, then its group is killed. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (!this.run || this.exitResult) return;
      await shutdownGently(this.run, this.exitedRun);
    })();
    return this.closing;
  }
}

/** This session's sandbox as the nested SCV's ceiling; none when the user turned the sandbox off. */
function sandboxCeiling(scope: SessionScope, readOnly = false): { sandbox_ceiling?: SandboxCeiling } {
  const settings = sandboxSettingsIn(scope.config.sandbox, { workspace: scope.workspace, scvHome: scope.scvHome, env: scope.env });
  if (!settings) return {};
  const ceiling = ceilingOf(settings);
  return { sandbox_ceiling: readOnly ? { ...ceiling, mode: "read-only" } : ceiling };
}
