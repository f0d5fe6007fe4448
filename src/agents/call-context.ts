// What every backend of a delegated call (one process per turn, ACP, nested SCV) is handed: the session it runs
// for, its cancellation, its progress line and, when someone can be asked, the session's approval gate.
import type { SessionScope, ToolRisk } from "../scope";

export interface AgentRunContext {
  scope: SessionScope;
  signal: AbortSignal;
  /** A status line for the client; the server throttles and never adds it to history or the result. */
  progress(line: string): void;
  outputLimitBytes: number;
  /** Asks the calling session's approval gate for an agent's own permission request (absent: nobody can). */
  approve?(request: { tool?: string; risk: ToolRisk; summary: string }): Promise<{ approved: boolean; reason: string }>;
}
