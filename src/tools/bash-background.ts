// `bash` with `background: true`: the command runs as one of the session's jobs (src/agents/jobs.ts), so it has
// the same handles, agent_status/agent_wait/agent_cancel, report turn when it ends, and is stopped when the
// session closes. It runs through the same process runner as a foreground command (its own group, tracked by
// the death watch), with tools.max_timeout_seconds as its deadline. Its output goes to a log under
// $SCV_HOME/jobs/<session>/ capped at tools.background_log_bytes (the older half is dropped when it fills), whose
// end is readable while it runs; the session's logs are removed when the session closes.
import { closeSync, fstatSync, mkdirSync, openSync, readSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { COMMAND_JOB, type Job, jobsFor } from "../agents/jobs";
import type { AgentCallResult } from "../agents/result";
import { ToolError } from "../errors";
import { type runProcess, type RunningProcess, type RunOptions, type RunResult, startProcess } from "../process";
import { newHandle, startDelegated } from "../process/delegations";
import { type SandboxedResult, startSandboxed, type SandboxSettings } from "../sandbox";
import type { SessionScope } from "../scope";
import { tailUtf8 } from "../text/cut";
import type { ToolResult } from "./tool";

/** The end of the log agent_status shows while a command runs. */
const TAIL_BYTES = 4096;
/** The most of the combined output the finished job's result holds (its first and last parts). */
const RESULT_BYTES = 16 * 1024;

export interface BackgroundCommand {
  command: string;
  /** The shell that runs it (a plain bash -c with the session's login snapshot, bash-login.ts). */
  argv: string[];
  env: Record<string, string>;
  timeoutSeconds: number;
  /** Runs confined by this sandbox (src/sandbox) when set, as the foreground command would. */
  sandbox?: SandboxSettings;
  /** Outlives the session (an owner session's `keep`): recorded as a delegation, listed by scv agents ps. */
  keep: boolean;
  /** Hides bound secrets' values in what the model sees. */
  redact?: (text: string) => string;
  /** Formats the finished run as the foreground tool would (status line, output). */
  format(result: Awaited<ReturnType<typeof runProcess>>): { ok: boolean; output: string };
  /** Feeds the job's progress line from the output. */
  progress(emit: (line: string) => void): { push(chunk: Uint8Array): void; stop(): void };
}

export function startBackgroundCommand(scope: SessionScope, cmd: BackgroundCommand): ToolResult {
  if (cmd.keep && !scope.owner) throw new ToolError("keep is for the owner's own sessions only; run it without keep (it stops when this session closes)");
  const jobs = jobsFor(scope);
  const limit = scope.config.tools.max_background_commands;
  const room = {
    check() {
      const running = jobs.running(COMMAND_JOB);
      if (running.length >= limit) {
        const names = running.map((j) => `${j.job} (\`${j.label ?? ""}\`)`).join(", ");
        throw new ToolError(`${running.length} background commands are already running (tools.max_background_commands = ${limit}): ${names}; stop one with agent_cancel or wait for one with agent_wait first`);
      }
    },
  };
  const logDir = join(scope.scvHome, "jobs", scope.sessionId);
  const job = jobs.start(COMMAND_JOB, (signal, emit, job) => runLogged(scope, cmd, cmd.keep ? join(scope.scvHome, "jobs", "kept") : logDir, job, signal, emit), undefined, room);
  job.label = cmd.command;
  job.keep = cmd.keep;
  return {
    ok: true,
    output: JSON.stringify({ job: job.job, status: "running", note: "started in the background; agent_status shows its latest output, agent_wait waits for it, agent_cancel stops it; you are told when it ends" }),
    display: `started ${job.job} in the background`,
    event: { command_jobs: [job.job] },
  };
}

/** Sessions whose log folder is already set to be removed at close. */
const logsRemovedAtClose = new WeakSet<object>();

async function runLogged(scope: SessionScope, cmd: BackgroundCommand, logDir: string, job: Job, signal: AbortSignal, emit: (line: string) => void): Promise<AgentCallResult> {
  if (!logsRemovedAtClose.has(scope.services)) {
    logsRemovedAtClose.add(scope.services);
    // Close handlers run newest first, so this one stops the jobs itself before their logs go.
    scope.onClose(async () => {
      await jobsFor(scope).closeAll();
      rmSync(logDir, { recursive: true, force: true });
    });
  }
  const handle = cmd.keep ? newHandle(COMMAND_JOB) : undefined;
  const log = new CappedLog(join(logDir, `${handle ?? job.job}.log`), scope.config.tools.background_log_bytes);
  job.tail = () => redacted(cmd, log.tail(TAIL_BYTES));
  const progress = cmd.progress(emit);
  try {
    const start = cmd.sandbox ? (o: RunOptions) => startSandboxed(o, cmd.sandbox!) : (o: RunOptions): RunningProcess<RunResult | SandboxedResult> => startProcess(o);
    // A kept command is a recorded delegation, so `scv agents ps` lists it and `scv agents kill` stops it.
    const run = handle
      ? (o: RunOptions) => startDelegated(scope, { handle, agent: COMMAND_JOB, kind: "command", cwd: scope.workspace, outlivesSession: true }, o, start).result
      : (o: RunOptions) => start(o).result;
    const result = await run({
      argv: cmd.argv,
      cwd: scope.workspace,
      env: cmd.env,
      stdin: "null",
      signal,
      timeoutMs: cmd.timeoutSeconds * 1000,
      captureBytes: RESULT_BYTES,
      combined: true,
      onStdout: (chunk) => {
        log.write(chunk);
        progress.push(chunk);
      },
    });
    if ("why" in result) {
      return { agent: COMMAND_JOB, status: "failed", reply: `${result.why} (the sandbox could not be applied; see scv doctor)`, usage: null, exit_code: null, stderr_tail: "", truncated: false };
    }
    const formatted = cmd.format(result);
    return {
      agent: COMMAND_JOB,
      status: result.timedOut ? "timeout" : result.cancelled ? "cancelled" : formatted.ok ? "completed" : "failed",
      reply: redacted(cmd, formatted.output),
      usage: null,
      exit_code: result.exitCode,
      stderr_tail: "",
      truncated: (result.combined ?? result.stdout).truncated,
    };
  } finally {
    progress.stop();
    job.tail = undefined;
    log.close();
    if (handle) log.remove();
  }
}

function redacted(cmd: BackgroundCommand, text: string): string {
  return cmd.redact ? cmd.redact(text) : text;
}

/** An append-only log that keeps at most `cap` bytes: when the current file reaches half, it becomes the older one. */
class CappedLog {
  private fd: number;
  private written = 0;
  constructor(
    private readonly path: string,
    private readonly cap: number,
  ) {
    mkdirSync(join(path, ".."), { recursive: true, mode: 0o700 });
    this.fd = openSync(path, "w", 0o600);
  }

  write(chunk: Uint8Array): void {
    if (this.fd < 0) return;
    try {
      if (this.written + chunk.length > this.cap / 2) {
        closeSync(this.fd);
        renameSync(this.path, `${this.path}.1`);
        this.fd = openSync(this.path, "w", 0o600);
        this.written = 0;
      }
      writeSync(this.fd, chunk.length > this.cap / 2 ? chunk.subarray(chunk.length - Math.floor(this.cap / 2)) : chunk);
      this.written += Math.min(chunk.length, Math.floor(this.cap / 2));
    } catch {
      // A full disk loses log lines, never the command: the result still holds the output's ends.
    }
  }

  /** The last `bytes` of the output (from the older file too when the current one is short), as text. */
  tail(bytes: number): string {
    const current = readEnd(this.path, bytes);
    const older = current.length < bytes ? readEnd(`${this.path}.1`, bytes - current.length) : Buffer.alloc(0);
    return tailUtf8(Buffer.concat([older, current]).toString("utf8"), bytes);
  }

  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }

  remove(): void {
    rmSync(this.path, { force: true });
    rmSync(`${this.path}.1`, { force: true });
  }
}

function readEnd(path: string, bytes: number): Buffer {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return Buffer.alloc(0);
  }
  try {
    const size = fstatSync(fd).size;
    const start = Math.max(0, size - bytes);
    const buf = Buffer.alloc(size - start);
    readSync(fd, buf, 0, buf.length, start);
    return buf;
  } finally {
    closeSync(fd);
  }
}
