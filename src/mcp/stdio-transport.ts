// The SDK's Transport over SCV's own process runner, so a stdio server is tracked like every process SCV
// starts: recorded before it runs, in its own process group, listed by `scv agents ps` (kind mcp), stopped
// with its session (TERM, 2 s, KILL) and reaped at start-up after a killed SCV. The SDK's StdioClientTransport
// would spawn an untracked child, which is why this exists.
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { redactSecrets } from "../text/redact";
import { newHandle, startDelegated, type TrackedRun } from "../process/delegations";
import type { RunOptions, RunResult } from "../process/index";
import type { SessionScope } from "../scope";
import { floodGuard, JsonLineReader } from "./lines";
import type { Launch } from "./launch";

/** More notifications than this in FLOOD_WINDOW_MS disconnects the server (memory and the event loop stay ours). */
export const FLOOD_MAX = 5000;
export const FLOOD_WINDOW_MS = 5000;
const STDERR_TAIL_BYTES = 16 * 1024;
/** How long a server may take to exit on its own once its input is closed, before it is signalled. */
const EOF_GRACE_MS = 500;

export class RunnerStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Why the connection ended, in words for the person (set before onclose). */
  closedBecause?: string;
  private run?: TrackedRun;
  private closing = false;
  private readonly flooded = floodGuard(FLOOD_MAX, FLOOD_WINDOW_MS);

  constructor(
    private readonly scope: SessionScope,
    private readonly server: string,
    private readonly launch: Extract<Launch, { kind: "stdio" }>,
    private readonly maxMessageBytes: number,
  ) {}

  /** Starts the program; a second call (the SDK's connect after an early start) does nothing. */
  async start(): Promise<void> {
    if (this.run) return;
    const reader = new JsonLineReader(this.maxMessageBytes, (event) => {
      if (event.kind === "oversized") return this.fail(`sent a message over ${this.maxMessageBytes} bytes (mcp.max_message_bytes), so it was disconnected`);
      if (event.kind === "invalid") return this.fail(`wrote a line that is not JSON-RPC on stdout (${JSON.stringify(redactSecrets(event.sample))}), so it was disconnected; a server must log to stderr`);
      const message = event.value as JSONRPCMessage;
      if (typeof message !== "object" || message === null || Array.isArray(message)) return this.fail("sent a JSON value that is not a JSON-RPC message, so it was disconnected");
      if (!("id" in message) && this.flooded()) return this.fail(`sent more than ${FLOOD_MAX} notifications in ${FLOOD_WINDOW_MS / 1000} s, so it was disconnected`);
      this.onmessage?.(message);
    });
    const plain = {
      argv: this.launch.argv,
      cwd: this.launch.cwd,
      env: this.launch.env,
      stdin: "pipe" as const,
      captureBytes: STDERR_TAIL_BYTES,
      graceMs: 2000,
      onStdout: (chunk: Uint8Array) => reader.push(chunk),
    };
    // `sandbox = true` on the server: started through the sandbox's launcher, confined as a bash command is.
    const confined = this.launch.sandbox ? confineServer(this.scope, plain) : undefined;
    this.run = startDelegated(
      this.scope,
      { handle: newHandle(`mcp-${this.server.toLowerCase().replace(/_/g, "-")}`), agent: this.server, kind: "mcp", cwd: this.launch.cwd },
      confined?.opts ?? plain,
    );
    confined?.started(this.run.identity.pid);
    if (confined) this.run.result.finally(confined.done).catch(() => {});
    this.run.result.then(
      (r) => this.exited(r),
      (e) => this.exited(undefined, e as Error),
    );
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.run?.stdin || this.closedBecause || this.closing) throw new Error(`MCP server "${this.server}" ${this.closedBecause ?? "is not running"}`);
    const run = this.run;
    try {
      await run.stdin!.write(`${JSON.stringify(message)}\n`);
    } catch (e) {
      // A pipe that broke says less than the exit that broke it (killed by a signal, its stderr): wait for that.
      await Promise.race([run.result.catch(() => {}), Bun.sleep(1000)]);
      throw this.closedBecause ? new Error(`MCP server "${this.server}" ${this.closedBecause}`) : e;
    }
  }

  /**
   * Stops the server as the MCP spec asks for stdio: its input closed first (it reads what was already sent, a
   * notifications/cancelled say, and may exit by itself), then after EOF_GRACE_MS TERM to its group and KILL
   * after 2 s. Waits until it and its descendants are gone.
   */
  async close(): Promise<void> {
    if (!this.run) return;
    const run = this.run;
    this.closing = true;
    await run.stdin?.end().catch(() => {});
    const gone = await Promise.race([run.result.then(() => true, () => true), Bun.sleep(EOF_GRACE_MS).then(() => false)]);
    if (!gone) run.cancel();
    await run.result.catch(() => {}); // the reason is set by then (exited)
  }

  /** The process id and run handle, for `scv mcp test` and the tests. */
  get pid(): number | undefined {
    return this.run?.identity.pid;
  }

  private fail(why: string): void {
    if (this.closedBecause) return;
    this.closedBecause = why;
    this.onerror?.(new Error(`MCP server "${this.server}" ${why}`));
    void this.close();
  }

  private exited(result: RunResult | undefined, error?: Error): void {
    // Stopped by us: cancelled and ended by a signal (or a clean exit on TERM). A run that ended by itself first,
    // even while we were closing (its exit not yet seen), keeps its own code: that is the reason worth telling.
    if (!this.closedBecause && (result?.cancelled || this.closing) && (result?.signal !== null || result.exitCode === 0)) this.closedBecause = "was disconnected";
    if (!this.closedBecause) {
      const how = result ? (result.signal ? `was killed by ${result.signal}` : `exited with code ${result.exitCode}`) : `could not run: ${error?.message}`;
      const tail = result?.stderr.text.trim().split("\n").slice(-3).join(" ⏎ ");
      this.closedBecause = `${how}${tail ? ` (stderr: ${redactSecrets(tail).slice(-400)})` : ""}`;
    }
    this.onclose?.();
  }
}

/** The server's run options confined by the session's `[sandbox]` (mode "off" still confines: the user asked for it). */
function confineServer(scope: SessionScope, opts: RunOptions) {
  const { confine, sandboxSettingsIn } = require("../sandbox") as typeof import("../sandbox");
  const sandbox = scope.config.sandbox;
  const settings = sandboxSettingsIn(sandbox.mode === "off" ? { ...sandbox, mode: "workspace-write" } : sandbox, scope);
  return confine(opts, settings!);
}
