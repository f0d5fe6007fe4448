// One delegated call. The one-process-per-turn backend lives here (ACP and the nested SCV, which keep a server
// per conversation, are handed to acp/call and nested/run): start the CLI through the delegation tracker with a
// private home and a scrubbed environment, read its output as it arrives, and shape the result. Kept apart
// from the tool wrapper so a background job can run the very same call.
import { constants, fstatSync, mkdirSync, openSync, readSync, closeSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { newHandle, startDelegated } from "../process/delegations";
import type { RunResult } from "../process/types";
import { ToolError } from "../errors";
import type { Conversation } from "./conversations";
import { agentEnvironment, preparePrivateHome, privateRunTmp, removeRunTmp } from "./environment";
import { readerFor, type TokenUsage } from "./formats";
import { isExecutableFile } from "./offer";
import type { CallPlan } from "./plan";
import { tailUtf8 } from "../text/cut";
import { type AgentCallResult, type AgentStatus, buildResult } from "./result";
import { callCwd, relayProgress, startCall } from "./call-start";
import type { AgentSessionState } from "./service";
import type { AgentRunContext } from "./call-context";


export async function runAgentCall(ctx: AgentRunContext, state: AgentSessionState, plan: CallPlan): Promise<AgentCallResult> {
  // Loaded on first use: sessions that never talk ACP or to a nested SCV never load those clients.
  if (plan.offered.transport === "acp") return (await import("./acp/call")).runAcpCall(ctx, state, plan);
  if (plan.offered.descriptor.backend === "nested-scv") return (await import("./nested/run")).runNestedCall(ctx, state, plan);
  const { descriptor: d, executable, settings } = plan.offered;
  const { offeredNames, unavailable } = startCall(state, plan);
  const cwd = callCwd(ctx.scope.workspace, plan);
  if (!isExecutableFile(executable)) {
    throw unavailable(`${d.name} cannot run: its executable ${executable} is missing or not executable.`);
  }
  const environment = agentEnvironment(d, { scvHome: ctx.scope.scvHome, env: ctx.scope.env, full: settings.permissions === "full" });
  preparePrivateHome(environment);
  if (plan.outputFile) mkdirSync(dirname(plan.outputFile), { recursive: true, mode: 0o700 });

  let conv: Conversation | undefined;
  if (plan.conversation) {
    conv = plan.conversation;
    state.conversations.beginTurn(conv);
  } else if (plan.startsConversation) {
    conv = state.conversations.start(d.name, cwd, plan.newSessionId);
  }

  const handle = newHandle(d.name);
  const tmp = privateRunTmp(environment, handle);
  try {
    const reader = readerFor(d.format, {
      progress: relayProgress(ctx),
      session: (id) => {
        if (conv) state.conversations.reported(conv, id);
      },
    });
    let result: RunResult;
    try {
      const run = startDelegated(
        ctx.scope,
        { handle, agent: d.name, cwd, conversation: conv?.handle, turn: conv?.turns },
        {
          argv: plan.argv,
          cwd,
          env: environment.env,
          stdin: "null",
          signal: ctx.signal,
          timeoutMs: plan.timeoutSeconds * 1000,
          captureBytes: ctx.outputLimitBytes + 4096,
          onStdout: (chunk) => reader.push(chunk),
        },
      );
      result = await run.result;
    } catch (e) {
      if (ctx.signal.aborted) throw new ToolError("cancelled");
      throw unavailable(`${d.name} could not start (${executable}): ${(e as Error).message}.`);
    }
    const parsed = reader.end();
    const stderr = withoutHarmless(result.stderr.text, d.harmlessStderr);

    const structured = d.format !== "text" && parsed.sawJson;
    let status: AgentStatus;
    if (result.timedOut) status = "timeout";
    else if (result.cancelled || ctx.signal.aborted) status = "cancelled";
    else if (result.exitCode !== 0 || (structured && parsed.failed)) status = "failed";
    else status = structured && parsed.declined ? "declined" : "completed";

    let reply = structured ? (parsed.reply ?? "") : result.stdout.text.trim();
    let replyTruncated = !structured && result.stdout.truncated;
    if (plan.outputFile && !reply && structured) {
      const fromFile = readBounded(plan.outputFile, ctx.outputLimitBytes);
      reply = fromFile.text.trim();
      replyTruncated = fromFile.truncated;
    }

    let error = structured ? parsed.error : undefined;
    let errorFromReply = false;
    if (status === "failed" && !error) {
      error = tailUtf8(stderr, 1024).trim() || undefined;
      if (!error && !structured) {
        // A failed plain-text run's closing output: its stdout, which is also its reply.
        error = tailUtf8(result.stdout.text, 1024).trim() || undefined;
        errorFromReply = !!error;
      }
    }

    return buildResult(
      {
        agent: d.name,
        status,
        reply,
        replyTruncated,
        usage: usageForTurn(conv, parsed.usage, d.name === "codex"),
        exitCode: result.exitCode,
        crashSignal: result.signal && !result.timedOut && status === "failed" ? result.signal : undefined,
        stderr,
        error,
        errorFromReply,
        errorStatus: parsed.errorStatus,
        timeoutSeconds: plan.timeoutSeconds,
        session: conv?.reported ? conv.handle : undefined,
        turn: conv?.reported ? conv.turns : undefined,
        note: structured ? parsed.note : undefined,
      },
      { offered: offeredNames, outputLimitBytes: ctx.outputLimitBytes },
    );
  } finally {
    if (conv) state.conversations.endTurn(conv);
    if (plan.outputFile) rmSync(plan.outputFile, { force: true });
    removeRunTmp(tmp);
  }
}

/** stderr without the agent's known-harmless notices. */
function withoutHarmless(text: string, harmless: readonly RegExp[] | undefined): string {
  if (!harmless?.length || !text) return text;
  return text
    .split("\n")
    .filter((line) => !harmless.some((re) => re.test(line.trim())))
    .join("\n");
}

/** Codex reports a running total for the thread (across resume); the turn's share is the difference. */
function usageForTurn(conv: Conversation | undefined, usage: TokenUsage | undefined, cumulative: boolean): TokenUsage | undefined {
  if (!usage || !cumulative) return usage;
  const prev = conv?.usageTotal;
  if (conv) conv.usageTotal = usage;
  if (!prev || usage.input_tokens < prev.input_tokens || usage.output_tokens < prev.output_tokens) return usage;
  const cached = Math.max(0, (usage.cached_input_tokens ?? 0) - (prev.cached_input_tokens ?? 0));
  return { input_tokens: usage.input_tokens - prev.input_tokens, output_tokens: usage.output_tokens - prev.output_tokens, cached_input_tokens: cached };
}

/** Up to `limit` bytes of a file (Codex's -o message), saying whether more was there. */
function readBounded(path: string, limit: number): { text: string; truncated: boolean } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK); // the agent could leave a FIFO there
  } catch {
    return { text: "", truncated: false };
  }
  try {
    if (!fstatSync(fd).isFile()) return { text: "", truncated: false };
    const buf = Buffer.alloc(limit + 1);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const truncated = n > limit;
    let end = Math.min(n, limit);
    if (truncated) while (end > 0 && (buf[end]! & 0xc0) === 0x80) end--;
    return { text: buf.subarray(0, end).toString("utf8"), truncated };
  } finally {
    closeSync(fd);
  }
}
