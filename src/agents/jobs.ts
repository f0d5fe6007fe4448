// Background jobs: an `agent` call with `background: true` runs as a job owned by the session. The turn that
// started it ends at once; the result reaches the model through agent_wait/agent_status or, when the model has
// not seen it, through a report turn the session starts once it is idle.
import { ToolError } from "../errors";
import { type SessionScope } from "../scope";
import { cutUtf8 } from "../text/cut";
import { throttle, type Throttle } from "../throttle";
import type { StoredJob } from "../sessions/index";
import { handleNumber } from "../sessions/load";
import type { AgentCallResult } from "./result";

/** `interrupted`: the SCV process running the session died while the job ran (seen on resume). */
export type JobStatus = "running" | AgentCallResult["status"] | "interrupted";

export interface Job {
  job: string;
  agent: string;
  conversation?: string;
  status: JobStatus;
  startedAt: number;
  finishedAt?: number;
  /** Order of finishing (clock ticks can tie), so the newest finished jobs are the ones kept. */
  finishSeq?: number;
  result?: AgentCallResult;
  /** The latest progress line while it runs. */
  progress?: string;
  /** The line last sent to the client as job.progress, and the throttle that sends it. */
  progressSent?: string;
  progressThrottle?: Throttle;
  /** The model has seen the final result (wait, status, cancel, or a report turn). */
  seen: boolean;
  /** The end of a background command's output while it runs (its log), for agent_status and agent_wait. */
  tail?: () => string;
  /** A background command's command line, as its report names it. */
  label?: string;
  /** Outlives its session (a kept background command): closing the session leaves it running. */
  keep?: boolean;
  abort: AbortController;
  done: Promise<void>;
}

export interface JobView {
  job: string;
  agent: string;
  status: JobStatus;
  elapsed_seconds: number;
  conversation?: string;
  progress?: string;
  /** A running background command's latest output (the end of its log). */
  output_tail?: string;
  result?: AgentCallResult;
  note?: string;
}

const REMEMBERED_FINISHED = 16;
const REPORTS_PER_TURN = 4;
const CANCEL_SETTLE_MS = 10_000;
export const REPORT_PREFIX = "[SCV background report]";
/** The `agent` of a background command's job (`bash` with `background: true`). */
export const COMMAND_JOB = "bash";

export type JobRun = (signal: AbortSignal, progress: (line: string) => void, job: Job) => Promise<AgentCallResult>;

/** How a kind of job is limited: `agent` jobs by agent.max_background; commands bring their own check. */
export interface JobRoom {
  check(): void;
}

export class JobManager {
  private readonly jobs = new Map<string, Job>();
  private counter = 0;
  private finished = 0;
  private closed = false;

  constructor(private readonly scope: SessionScope) {
    for (const stored of scope.journal?.restored?.jobs ?? []) this.restore(stored);
  }

  /** A job of the session before it was resumed: finished, or `interrupted`; either way nothing is reported again. */
  private restore(stored: StoredJob): void {
    const job: Job = {
      job: stored.job,
      agent: stored.agent,
      conversation: stored.conversation,
      status: stored.status as JobStatus,
      startedAt: stored.started_at,
      finishedAt: stored.finished_at ?? stored.started_at,
      finishSeq: ++this.finished,
      ...(stored.result ? { result: stored.result as unknown as AgentCallResult } : {}),
      seen: true,
      abort: new AbortController(),
      done: Promise.resolve(),
    };
    this.counter = Math.max(this.counter, handleNumber(stored.job, "job-"));
    this.jobs.set(job.job, job);
  }

  get limit(): number {
    return this.scope.config.agent.max_background;
  }

  running(agent?: string): Job[] {
    return [...this.jobs.values()].filter((j) => j.status === "running" && (agent === undefined || j.agent === agent));
  }

  /** Refuses when the session already runs its limit of jobs (asked again when a call is assessed). */
  checkRoom(): void {
    const running = this.running().filter((j) => j.agent !== COMMAND_JOB).length;
    if (running >= this.limit) {
      throw new ToolError(
        `${running} background jobs are already running (agent.max_background = ${this.limit}); wait for one with agent_wait, or stop one with agent_cancel, before starting another`,
      );
    }
  }

  /** Starts a job, or refuses (before anything launches) when the session already runs its limit. */
  start(agent: string, run: JobRun, conversation?: string, room: JobRoom = { check: () => this.checkRoom() }): Job {
    if (this.closed) throw new ToolError("the session is closing; no background job can start");
    room.check();
    const abort = new AbortController();
    const job: Job = { job: `job-${++this.counter}`, agent, conversation, status: "running", startedAt: Date.now(), seen: false, abort, done: Promise.resolve() };
    job.done = run(abort.signal, (line) => this.progress(job, line), job)
      .then(
        (result) => this.finish(job, result),
        (e) => this.finish(job, failedResult(agent, abort.signal.aborted, e)),
      );
    this.jobs.set(job.job, job);
    this.scope.journal?.recorder.append({ type: "job_started", job: job.job, agent, ...(conversation ? { conversation } : {}) });
    return job;
  }

  /** Keeps a job's latest line and tells the client, at most twice a second per job (the last line always arrives). */
  private progress(job: Job, line: string) {
    job.progress = line;
    job.progressThrottle ??= throttle(() => {
      if (job.status !== "running" || job.progress === job.progressSent || job.progress === undefined) return;
      job.progressSent = job.progress;
      this.scope.notify?.("job.progress", { session_id: this.scope.sessionId, job: job.job, agent: job.agent, line: job.progress });
    });
    job.progressThrottle.poke();
  }

  get(handle: string): Job {
    const job = this.jobs.get(handle);
    if (!job) {
      const known = [...this.jobs.keys()];
      throw new ToolError(`no job "${handle}" in this session${known.length ? `; known jobs: ${known.join(", ")}` : ""}`);
    }
    return job;
  }

  list(): Job[] {
    this.forgetOld();
    return [...this.jobs.values()];
  }

  /** Waits until the job finishes or the timeout passes; a finished result counts as seen. */
  async wait(handle: string, timeoutMs: number, signal: AbortSignal): Promise<JobView> {
    const job = this.get(handle);
    if (job.status === "running") {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const stopped = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
        signal.addEventListener("abort", () => resolve(), { once: true });
      });
      await Promise.race([job.done, stopped]);
      clearTimeout(timer);
    }
    return this.describe(job, true);
  }

  /** Cancels a running job exactly as closing the session would; no report turn follows. */
  async cancel(handle: string): Promise<JobView> {
    const job = this.get(handle);
    if (job.status !== "running") return { ...this.describe(job, true), note: `${job.job} had already finished (${job.status}); nothing to cancel` };
    job.seen = true;
    job.abort.abort();
    await Promise.race([job.done, Bun.sleep(CANCEL_SETTLE_MS)]);
    if (job.status === "running") return { ...this.describe(job, false), note: `${job.job} was told to stop and has not settled within ${CANCEL_SETTLE_MS / 1000} s` };
    job.status = "cancelled";
    if (job.result) job.result = { ...job.result, status: "cancelled" };
    return this.describe(job, true);
  }

  describe(job: Job, markSeen: boolean): JobView {
    if (markSeen && job.status !== "running") job.seen = true;
    const view: JobView = {
      job: job.job,
      agent: job.agent,
      status: job.status,
      elapsed_seconds: Math.round(((job.finishedAt ?? Date.now()) - job.startedAt) / 100) / 10,
    };
    const conversation = job.result?.session ?? job.conversation;
    if (conversation) view.conversation = conversation;
    if (job.status === "running") {
      if (job.progress) view.progress = job.progress;
      const tail = job.tail?.();
      if (tail) view.output_tail = tail;
    } else if (job.result) view.result = job.result;
    if (job.status === "interrupted") view.note = `${job.job} was cut off: the SCV process running this session stopped before the job finished, and its result was lost`;
    return view;
  }

  /** The next report turn: finished jobs the model has not seen, at most four. */
  nextReport(): { prompt: string; origin: { kind: "background"; jobs: string[] } } | undefined {
    const due = [...this.jobs.values()].filter((j) => j.status !== "running" && !j.seen).slice(0, REPORTS_PER_TURN);
    if (due.length === 0) return undefined;
    for (const j of due) j.seen = true;
    this.forgetOld();
    const perJob = Math.max(512, Math.floor(this.scope.config.tools.output_limit_bytes / REPORTS_PER_TURN));
    const blocks = due.map((j) => {
      const r = j.result;
      const conv = r?.session ?? j.conversation;
      const who = j.agent === COMMAND_JOB ? `command \`${cutUtf8(j.label ?? "", 200)}\`` : `agent ${j.agent}${conv ? `, conversation ${conv}` : ""}`;
      const head = `${j.job}: ${who}, status ${j.status}`;
      const reply = r?.reply ? cutUtf8(r.reply, perJob) : "";
      const extra = [r?.error && `error: ${cutUtf8(r.error, 1024)}`, r?.hint && `hint: ${r.hint}`, r?.note && `note: ${r.note}`].filter(Boolean);
      return [head, reply && `reply:\n${reply}${reply.length < (r?.reply.length ?? 0) ? "\n[reply truncated]" : ""}`, ...extra].filter(Boolean).join("\n");
    });
    const prompt = [
      `${REPORT_PREFIX} Background ${due.length === 1 ? "job" : "jobs"} you started finished while the user was away from this conversation's turn. Tell the user what came back: what each agent did or found, and anything they need to decide or act on. The user has not seen these results yet.`,
      ...blocks,
    ].join("\n\n");
    return { prompt, origin: { kind: "background", jobs: due.map((j) => j.job) } };
  }

  /** Session close: cancel every running job and wait for its processes to be stopped. */
  async closeAll(): Promise<void> {
    this.closed = true;
    const running = this.running().filter((j) => !j.keep);
    for (const j of running) {
      j.seen = true;
      j.abort.abort();
    }
    await Promise.allSettled(running.map((j) => Promise.race([j.done, Bun.sleep(CANCEL_SETTLE_MS)])));
  }

  private finish(job: Job, result: AgentCallResult) {
    job.result = result;
    job.status = job.abort.signal.aborted && result.status !== "completed" ? "cancelled" : result.status;
    job.finishedAt = Date.now();
    job.finishSeq = ++this.finished;
    job.progress = undefined;
    this.scope.journal?.recorder.append({
      type: "job_finished",
      job: job.job,
      agent: job.agent,
      ...(job.conversation ? { conversation: job.conversation } : {}),
      status: job.status,
      started_at: job.startedAt,
      finished_at: job.finishedAt,
      result: result as unknown as Record<string, unknown>,
    });
    this.forgetOld();
    if (!job.seen) this.scope.turns.wake();
  }

  /** Keeps the 16 newest finished jobs; an older one goes once the model has seen it (never before its report). */
  private forgetOld() {
    const finished = [...this.jobs.values()]
      .filter((j) => j.status !== "running")
      .sort((a, b) => (a.finishSeq ?? 0) - (b.finishSeq ?? 0));
    let excess = finished.length - REMEMBERED_FINISHED;
    for (const j of finished) {
      if (excess <= 0) break;
      if (!j.seen) continue;
      this.jobs.delete(j.job);
      excess--;
    }
  }
}

function failedResult(agent: string, cancelled: boolean, e: unknown): AgentCallResult {
  return {
    agent,
    status: cancelled ? "cancelled" : "failed",
    reply: "",
    usage: null,
    exit_code: null,
    stderr_tail: "",
    truncated: false,
    ...(cancelled ? {} : { error: e instanceof Error ? e.message : String(e) }),
  };
}

declare module "../scope" {
  interface SessionServices {
    /** The session's background jobs (jobsFor). */
    jobs?: JobManager;
  }
}

/** The session's job manager, created on first use; closing the session cancels its jobs. */
export function jobsFor(scope: SessionScope): JobManager {
  const existing = scope.services.jobs;
  if (existing) return existing;
  const jobs = new JobManager(scope);
  scope.services.jobs = jobs;
  scope.turns.addIdleSource(() => jobs.nextReport());
  scope.onClose(() => jobs.closeAll());
  return jobs;
}
