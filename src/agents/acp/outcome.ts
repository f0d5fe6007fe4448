// How an ACP turn ended, in the result's terms: stop reasons, usage, JSON-RPC errors, a server's exit.
import type { AgentStatus } from "../result";
import { redactSecrets } from "../../text/redact";
import { RpcError } from "./connection";
import type { PromptResult } from "../../protocol/acp";
import type { AcpServer } from "./server";

export function fromStopReason(r: PromptResult): { status: AgentStatus; note?: string } {
  switch (r.stopReason) {
    case "end_turn":
      return { status: "completed" };
    case "cancelled":
      return { status: "cancelled" };
    case "refusal":
      return { status: "declined" };
    default:
      return { status: "completed", note: `(stopped early: ${r.stopReason})` };
  }
}

export function usageOf(r: PromptResult): { input_tokens: number; output_tokens: number; cached_input_tokens: number } | undefined {
  const u = r.usage;
  if (!u) return undefined;
  return {
    input_tokens: (u.inputTokens ?? 0) + (u.cachedReadTokens ?? 0) + (u.cachedWriteTokens ?? 0),
    output_tokens: u.outputTokens ?? 0,
    cached_input_tokens: u.cachedReadTokens ?? 0,
  };
}

/** The agent's message (with Grok's `data.message` detail), redacted, and any HTTP status it names. */
export function describeRpcError(e: Error): { message: string; status?: number } {
  if (!(e instanceof RpcError)) return { message: e.message };
  const data = e.data && typeof e.data === "object" ? (e.data as Record<string, unknown>) : {};
  const detail = typeof data.message === "string" && data.message !== e.message ? `: ${data.message}` : "";
  const status = typeof data.http_status === "number" ? data.http_status : undefined;
  return { message: redactSecrets(`${e.message}${detail}`), status };
}

export function exitWords(server: AcpServer): string {
  const exit = server.exit;
  if (!exit) return "";
  if (exit.signal) return ` (killed by ${exit.signal})`;
  return exit.exitCode === null ? "" : ` with code ${exit.exitCode}`;
}
