// A minimal real SessionScope and ToolCallContext for tool tests: config from loadConfig's defaults (the
// preload points SCV_HOME at an empty temp dir), optional per-section overrides, and a workspace temp dir.
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, scvHome } from "../../src/config/load";
import type { Config } from "../../src/config/schema";
import { createApprovalGate } from "../../src/approval/gate";
import type { IdleTurn, SessionScope, ToolRisk, TurnScheduler } from "../../src/scope";
import type { Tool, ToolCallContext, ToolResult } from "../../src/tools/tool";

/** Per-section overrides merged over the defaults, e.g. `{ tools: { output_limit_bytes: 2048 } }`. */
export type ConfigOverrides = { [K in keyof Config]?: Partial<Config[K]> };

export interface FakeScope extends SessionScope {
  turns: FakeTurns;
  /** Runs every onClose cleanup, like a session closing. */
  close(): Promise<void>;
}

/** A scheduler that records instead of running: tests pull idle turns themselves. */
export interface FakeTurns extends TurnScheduler {
  wakes: number;
  /** Set to make busy() report a running turn. */
  isBusy: boolean;
  /** The first idle turn any source offers now, as the server would ask when idle. */
  nextIdleTurn(): IdleTurn | undefined;
}

export interface ScopeOptions {
  /** Defaults to a fresh temp dir; resolved through symlinks like a real session's. */
  workspace?: string;
  config?: ConfigOverrides;
  env?: Record<string, string | undefined>;
  sessionId?: string;
  delegationDepth?: number;
  /** The client declared auto_approve (decideUnattended then approves what the policy leaves open). */
  autoApprove?: boolean;
}

let counter = 0;

export function makeTempWorkspace(prefix = "scv-ws-"): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

export function makeScope(opts: ScopeOptions = {}): FakeScope {
  const env = { ...process.env, ...opts.env };
  const workspace = realpathSync(opts.workspace ?? makeTempWorkspace());
  const base = loadConfig({ env }).config;
  const config = { ...base } as Record<string, unknown>;
  for (const [section, values] of Object.entries(opts.config ?? {})) {
    config[section] = { ...(base as unknown as Record<string, object>)[section], ...values };
  }
  const cleanups: Array<() => void | Promise<void>> = [];
  const n = ++counter;
  const gate = createApprovalGate({ policy: (config as unknown as Config).tools.approval_policy, autoApprove: opts.autoApprove ?? false });
  return {
    sessionId: opts.sessionId ?? `test-session-${n}`,
    instanceId: `test-instance-${process.pid}`,
    workspace,
    config: config as unknown as Config,
    scvHome: scvHome(env),
    env,
    delegationDepth: opts.delegationDepth ?? 0,
    version: "0.0.0-test",
    services: {},
    onClose(cleanup) {
      cleanups.push(cleanup);
    },
    turns: makeTurns(),
    decideUnattended: (risk) => gate.decideUnattended(risk),
    async close() {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    },
  };
}

function makeTurns(): FakeTurns {
  const sources: Array<() => IdleTurn | undefined> = [];
  const turns: FakeTurns = {
    wakes: 0,
    isBusy: false,
    addIdleSource(source) {
      sources.push(source);
    },
    wake() {
      turns.wakes++;
    },
    busy() {
      return turns.isBusy;
    },
    nextIdleTurn() {
      for (const source of sources) {
        const turn = source();
        if (turn) return turn;
      }
      return undefined;
    },
  };
  return turns;
}

export interface FakeCallContext extends ToolCallContext {
  /** Every progress line the tool reported, in order. */
  progressLines: string[];
  /** Aborts the call's signal (cancellation). */
  cancel(): void;
}

export function makeCallContext(scope: SessionScope, opts: { callId?: string; outputLimitBytes?: number } = {}): FakeCallContext {
  const controller = new AbortController();
  const progressLines: string[] = [];
  return {
    ...scope,
    callId: opts.callId ?? `call-${++counter}`,
    signal: controller.signal,
    outputLimitBytes: opts.outputLimitBytes ?? scope.config.tools.output_limit_bytes,
    progress: (line) => void progressLines.push(line),
    progressLines,
    cancel: () => controller.abort(),
  };
}

export interface Invocation {
  /** Present when assess accepted the call. */
  risk?: ToolRisk;
  summary?: string;
  result: ToolResult;
}

/** Assess then run, as the turn loop does with an approving gate: a refused assessment is the result. */
export async function invokeTool(tool: Tool, rawArgs: unknown, ctx: ToolCallContext): Promise<Invocation> {
  const assessment = await tool.assess(rawArgs, ctx);
  if (!assessment.ok) return { result: assessment.result };
  const result = await tool.run(assessment.args, ctx);
  return { risk: assessment.risk, summary: assessment.summary, result };
}
