// The contract of the one process runner every caller uses (bash, agent CLIs, ACP servers, nested SCV).
export interface CapturedStream {
  /** Head and tail joined with a marker when the middle was dropped. */
  text: string;
  totalBytes: number;
  /** Newlines, plus one when the output ends without a newline. */
  totalLines: number;
  truncated: boolean;
  /** Bytes shown before the marker (all bytes when not truncated). Always set by the runner. */
  headBytes?: number;
  /** Bytes shown after the marker (0 when not truncated). */
  tailBytes?: number;
  /** Bytes left out between head and tail. */
  omittedBytes?: number;
}

export interface RunOptions {
  argv: string[];
  cwd: string;
  /** The complete environment for the child; BUN_OPTIONS/BUN_BE_BUN are removed regardless. */
  env: Record<string, string | undefined>;
  /** "null" gives the child /dev/null (EOF at once); "pipe" gives a writable stdin on the handle. */
  stdin: "null" | "pipe";
  /**
   * With stdin "pipe": bytes written to it as soon as the child exists, before the runner's own bookkeeping
   * (what the pipe takes at once, the rest queued), then stdin is closed. A child that exits without reading
   * them is not an error. A hook's input goes this way, so the hook starts reading while SCV records the run.
   */
  input?: string | Uint8Array;
  /** Turn cancellation: TERM to the group, KILL after graceMs. */
  signal?: AbortSignal;
  /** Deadline: KILL the group at once. */
  timeoutMs?: number;
  /** Grace between TERM and KILL on cancellation and descendant cleanup (default 2000). */
  graceMs?: number;
  /** Bytes kept per stream, split between head and tail. */
  captureBytes: number;
  /**
   * Also keep one combined stdout+stderr capture in exact write order. The child's fd 1 and fd 2 then share
   * one real pipe (like `2>&1`), so the streams cannot be told apart: `stdout` and `combined` hold the same
   * merged capture, `stderr` is empty, and every chunk goes to `onStdout`.
   */
  combined?: boolean;
  /** After the leader exits and descendants are stopped, how long to wait for EOF before closing the pipes (default 250). */
  drainMs?: number;
  /** Each chunk as it arrives (the chunk is the caller's to keep); errors thrown here are ignored. */
  onStdout?(chunk: Uint8Array): void;
  onStderr?(chunk: Uint8Array): void;
  /**
   * Value of SCV_RUN_TAG set in the child, used to find escaped descendants; generated when omitted (as
   * `<env.SCV_RUN_TAG>/<id>` when the given env already carries a tag, so nested runs stay under their parent).
   */
  tag?: string;
  /**
   * Starts the child instead of Bun.spawn (the sandbox's direct start, sandbox/direct.ts), given the final argv,
   * environment and the child's ends of its pipes (closed by the runner after the call). The child must lead a
   * new session (its pid its group), as Bun.spawn's `detached` makes it.
   */
  spawn?(child: ChildSpec): StartedChild;
}

/** What a `spawn` of RunOptions is given. */
export interface ChildSpec {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  /** The read end of the stdin pipe; undefined: the child gets /dev/null. */
  stdin?: number;
  stdout: number;
  stderr: number;
}

/** A started child as the runner needs it (Bun's Subprocess is one). */
export interface StartedChild {
  readonly pid: number;
  readonly exited: Promise<unknown>;
  readonly exitCode: number | null;
  /** The signal that ended it, by name (or number). */
  readonly signalCode: string | number | null;
}

export interface ProcessIdentity {
  pid: number;
  /** /proc/<pid>/stat field 22, so a reused PID never matches. */
  startTime: string;
}

export interface RunResult {
  exitCode: number | null;
  /** e.g. "SIGKILL" when killed by a signal. */
  signal: string | null;
  timedOut: boolean;
  cancelled: boolean;
  stdout: CapturedStream;
  stderr: CapturedStream;
  combined?: CapturedStream;
  durationMs: number;
  /** Processes (other than the leader) stopped after the leader exited: group, session, tagged, orphans. */
  cleanedUp?: number;
  /** False when the output pipes were still held open after cleanup and were closed after drainMs. */
  drained?: boolean;
  /** What the runner did after the command that its reader should know (the sandbox's set-aside entries). */
  notes?: string[];
}

/** A started process; `R` is what its end reports (the runner's RunResult, or a wrapper's typed result, e.g. the sandbox's). */
export interface RunningProcess<R = RunResult> {
  identity: ProcessIdentity;
  tag: string;
  /** Present when stdin: "pipe". */
  stdin?: { write(data: string | Uint8Array): Promise<void>; end(): Promise<void> };
  /** Resolves once the leader has exited, descendants are cleaned up and output drained (bounded). */
  result: Promise<R>;
  /** Same as aborting `signal`: TERM, grace, KILL. */
  cancel(): void;
}
