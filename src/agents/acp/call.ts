// One `agent` call over ACP: a new conversation starts the agent's server (initialize → session/new → set mode
// for full permissions), every call selects model/effort when asked and sends one session/prompt, relaying
// updates as progress and permission requests through the calling session's gate. A cancelled or timed-out
// turn sends session/cancel; an agent that settles within 2 seconds keeps its conversation.
import { type AgentCallResult, type AgentStatus, buildResult } from "../result";
import { callCwd, relayProgress, startCall } from "../call-start";
import type { Conversation } from "../conversations";
import type { AgentDescriptor } from "../descriptors";
import { agentEnvironment, preparePrivateHome, privateRunTmp, removeRunTmp } from "../environment";
import { isExecutableFile } from "../offer";
import type { CallPlan } from "../plan";
import type { AgentRunContext } from "../call-context";
import type { AgentSessionState } from "../service";
import { RpcError } from "./connection";
import { permissionOutcome, permissionRisk, permissionSummary } from "./permissions";
import { describeRpcError, exitWords, fromStopReason, usageOf } from "./outcome";
import type { ConfigOption, PermissionOutcome } from "../../protocol/acp";
import { LIVE_GRACE_MS } from "../live-server";
import { AcpServer } from "./server";
import { TurnUpdates } from "./updates";

/** What a conversation keeps between turns: its server and the ACP session on it. */
class AcpConversation {
  sessionId: string | undefined;
  configOptions: ConfigOption[] = [];
  constructor(
    readonly server: AcpServer,
    tmp: string,
  ) {
    // The private TMPDIR goes with the server, however it ends.
    void server.exited.then(() => removeRunTmp(tmp));
  }
  close(): Promise<void> {
    return this.server.shutdown();
  }
}

type Stop = "cancelled" | "timeout";

/** Failures of the call that end with a result rather than a thrown error. */
class CallFailure extends Error {
  constructor(
    message: string,
    readonly errorStatus?: number,
  ) {
    super(message);
  }
}

export async function runAcpCall(ctx: AgentRunContext, state: AgentSessionState, plan: CallPlan): Promise<AgentCallResult> {
  const d = plan.offered.descriptor;
  const { offeredNames, unavailable } = startCall(state, plan);
  const store = state.conversations;
  const cwd = callCwd(ctx.scope.workspace, plan);
  const { conv, acp } = openConversation(ctx, state, plan, cwd, unavailable);
  const server = acp.server;
  const updates = new TurnUpdates(relayProgress(ctx), ctx.outputLimitBytes);
  const stop = callStop(ctx.signal, plan.timeoutSeconds);
  const turn: TurnOutcome = { keep: true, status: "completed", died: false };
  try {
    await promptTurn(ctx, plan, { conv, acp, cwd, store }, updates, stop, turn);
  } finally {
    stop.dispose();
    server.endTurn();
    if (!turn.keep || !server.alive) {
      // forget() starts the shutdown (stdin closed, 2 seconds, group stop); the call does not wait for it, so a
      // cancel returns at once, and the session's close hook still awaits it.
      store.forget(conv);
    } else {
      store.endTurn(conv);
    }
  }
  const status = stop.stopped && turn.status !== "failed" ? stop.stopped : turn.status;
  const exit = server.exit;
  const kept = turn.keep && !!acp.sessionId && store.get(conv.handle) === conv;
  return buildResult(
    {
      agent: d.name,
      status,
      reply: status === "failed" ? "" : updates.reply,
      replyTruncated: false,
      usage: turn.usage,
      exitCode: exit ? exit.exitCode : null,
      crashSignal: turn.died && exit?.signal ? exit.signal : undefined,
      stderr: server.takeStderr(),
      error: turn.error,
      errorStatus: turn.errorStatus,
      unavailable: turn.died,
      timeoutSeconds: plan.timeoutSeconds,
      note: turn.note,
      session: kept ? conv.handle : undefined,
      turn: kept ? conv.turns : undefined,
    },
    { offered: offeredNames, outputLimitBytes: ctx.outputLimitBytes },
  );
}

/** The conversation the call continues (its server must still run) or a new one with its server started. */
function openConversation(
  ctx: AgentRunContext,
  state: AgentSessionState,
  plan: CallPlan,
  cwd: string,
  unavailable: (message: string) => Error,
): { conv: Conversation; acp: AcpConversation } {
  const { descriptor: d, executable, settings } = plan.offered;
  const store = state.conversations;
  if (plan.conversation) {
    const conv = plan.conversation;
    const live = conv.live;
    if (!(live instanceof AcpConversation) || !live.server.alive) {
      store.forget(conv);
      throw unavailable(`conversation ${conv.handle} has ended: its server exited. Omit session to start a new conversation.`);
    }
    store.beginTurn(conv);
    live.server.beginTurn(conv.turns);
    return { conv, acp: live };
  }
  if (!isExecutableFile(executable)) {
    throw unavailable(`${d.name} cannot run: its ACP server ${executable} is missing or not executable.`);
  }
  const full = settings.permissions === "full";
  const environment = agentEnvironment(d, { scvHome: ctx.scope.scvHome, env: ctx.scope.env, full });
  if (full) Object.assign(environment.env, d.acp?.fullEnv);
  preparePrivateHome(environment);
  const conv = store.start(d.name, cwd);
  const tmp = privateRunTmp(environment, `acp-${conv.handle}-${Date.now().toString(36)}`);
  let server: AcpServer;
  try {
    server = new AcpServer({
      scope: ctx.scope,
      agent: d.name,
      argv: plan.argv,
      cwd,
      env: environment.env,
      conversation: conv.handle,
      turn: conv.turns,
      version: ctx.scope.version,
    });
  } catch (e) {
    store.endTurn(conv);
    removeRunTmp(tmp);
    throw unavailable(`${d.name} could not start its ACP server (${executable}): ${(e as Error).message}.`);
  }
  const acp = new AcpConversation(server, tmp);
  conv.live = acp;
  return { conv, acp };
}

/** The stop of a call (cancel or deadline), as a promise every wait races against. */
interface CallStop {
  readonly promise: Promise<Stop>;
  readonly stopped: Stop | undefined;
  orStop<T>(p: Promise<T>): Promise<T | Stop>;
  dispose(): void;
}

function callStop(signal: AbortSignal, timeoutSeconds: number): CallStop {
  let stopped: Stop | undefined;
  let onStop: (s: Stop) => void = () => {};
  const promise = new Promise<Stop>((resolve) => (onStop = resolve));
  const trigger = (s: Stop) => {
    if (stopped) return;
    stopped = s;
    onStop(s);
  };
  const onAbort = () => trigger("cancelled");
  if (signal.aborted) onAbort();
  signal.addEventListener("abort", onAbort, { once: true });
  const deadline = setTimeout(() => trigger("timeout"), timeoutSeconds * 1000);
  return {
    promise,
    get stopped() {
      return stopped;
    },
    orStop: (p) => Promise.race([p, promise]),
    dispose() {
      clearTimeout(deadline);
      signal.removeEventListener("abort", onAbort);
    },
  };
}

/** How the turn went, filled in as it goes (a thrown error leaves what was known, for the conversation's fate). */
interface TurnOutcome {
  /** The conversation stays open for another turn. */
  keep: boolean;
  status: AgentStatus;
  error?: string;
  errorStatus?: number;
  note?: string;
  /** The server exited mid-turn on its own. */
  died: boolean;
  usage?: { input_tokens: number; output_tokens: number };
}

/** Starts the ACP session when the conversation has none, selects model and effort, and sends the prompt. */
async function promptTurn(
  ctx: AgentRunContext,
  plan: CallPlan,
  where: { conv: Conversation; acp: AcpConversation; cwd: string; store: AgentSessionState["conversations"] },
  updates: TurnUpdates,
  stop: CallStop,
  turn: TurnOutcome,
): Promise<void> {
  const { conv, acp, cwd, store } = where;
  const { descriptor: d, settings } = plan.offered;
  const server = acp.server;
  try {
    if (!acp.sessionId) {
      const started = await stop.orStop(startSession(server, acp, d, cwd, settings.permissions === "full"));
      if (typeof started === "string") {
        turn.keep = false;
        turn.status = started;
      } else {
        store.reported(conv, acp.sessionId!);
      }
    }
    if (!stop.stopped && acp.sessionId) {
      const selected = await stop.orStop(selectOptions(server, acp, d, plan));
      if (typeof selected === "string") turn.status = selected;
    }
    if (!stop.stopped && acp.sessionId) await sendPrompt(ctx, plan, conv.handle, acp, updates, stop, turn);
  } catch (e) {
    if (e instanceof CallFailure || (e instanceof RpcError && server.alive)) {
      turn.status = "failed";
      const failure = describeRpcError(e);
      turn.error = failure.message;
      turn.errorStatus = failure.status;
      // A failure before the session exists ends the conversation; a later one keeps it.
      if (!acp.sessionId) turn.keep = false;
    } else if (e instanceof RpcError) {
      await server.exited;
      turn.keep = false;
      // Killed by `scv agents kill`, or shut down because the call or its session is being cancelled.
      if (server.exit?.cancelled || ctx.signal.aborted) turn.status = "cancelled";
      else {
        turn.status = "failed";
        turn.died = true;
        turn.error = `${d.name}'s ACP server exited mid-turn${exitWords(server)}`;
      }
    } else {
      throw e;
    }
  }
}

/** session/prompt, relaying updates and permission requests; a stop sends session/cancel and waits briefly. */
async function sendPrompt(ctx: AgentRunContext, plan: CallPlan, handle: string, acp: AcpConversation, updates: TurnUpdates, stop: CallStop, turn: TurnOutcome): Promise<void> {
  const server = acp.server;
  const sessionId = acp.sessionId!;
  const prompt = server.prompt(sessionId, plan.prompt, {
    update: (u) => updates.update(u),
    permission: (p) => relayPermission(ctx, handle, p, stop.promise),
  });
  const outcome = await stop.orStop(prompt);
  if (typeof outcome === "string") {
    turn.status = outcome;
    // session/cancel; an agent that answers within 2 seconds keeps the conversation.
    server.cancel(sessionId);
    const grace = new Promise<"gone">((r) => setTimeout(() => r("gone"), LIVE_GRACE_MS).unref());
    const settled = await Promise.race([prompt.then(() => "settled" as const, () => "gone" as const), grace]);
    if (settled !== "settled") turn.keep = false;
  } else {
    ({ status: turn.status, note: turn.note } = fromStopReason(outcome));
    turn.usage = usageOf(outcome);
  }
}

/** initialize → session/new → session/set_mode for full permissions. */
async function startSession(server: AcpServer, acp: AcpConversation, d: AgentDescriptor, cwd: string, full: boolean): Promise<void> {
  await server.initialize();
  const session = await server.newSession(cwd);
  acp.configOptions = session.configOptions ?? [];
  if (full && d.acp?.fullModes.length) {
    const offered = session.modes?.availableModes.map((m) => m.id) ?? [];
    const mode = d.acp.fullModes.find((m) => offered.includes(m));
    if (!mode) {
      throw new CallFailure(
        `${d.name}'s ACP server offers no full-permission session mode (it offers: ${offered.join(", ") || "none"}); set [agents.${d.name}] transport = "resume" to use the CLI's own switches, or permissions = "default"`,
      );
    }
    await server.setMode(session.sessionId, mode);
  }
  acp.sessionId = session.sessionId;
}

/** session/set_config_option for the call's model and effort; a value the agent does not offer fails the call. */
async function selectOptions(server: AcpServer, acp: AcpConversation, d: AgentDescriptor, plan: CallPlan): Promise<void> {
  const wanted: [string, string | undefined, readonly string[] | undefined][] = [
    ["model", plan.model, d.acp?.modelOptions],
    ["effort", plan.effort, d.acp?.effortOptions],
  ];
  for (const [what, value, ids] of wanted) {
    if (value === undefined || !ids) continue;
    const option = ids.map((id) => acp.configOptions.find((o) => o.id === id)).find(Boolean);
    if (!option) throw new CallFailure(`${d.name} offers no ${what} selection in this session; omit ${what}`);
    const values = (option.options ?? []).flatMap((o) => ("value" in o ? [o.value] : o.options.map((v) => v.value)));
    if (values.length && !values.includes(value)) {
      throw new CallFailure(`${d.name} does not offer ${what} ${JSON.stringify(value)}; it offers: ${values.join(", ")}. Pass one of them, or omit ${what}`);
    }
    const result = await server.setConfigOption(acp.sessionId!, option.id, value);
    if (result?.configOptions) acp.configOptions = result.configOptions;
  }
}

async function relayPermission(
  ctx: AgentRunContext,
  handle: string,
  p: Parameters<typeof permissionOutcome>[0],
  stop: Promise<Stop>,
): Promise<PermissionOutcome> {
  if (!ctx.approve) return permissionOutcome(p, false); // no approval gate: every request is rejected
  const decision = await Promise.race([ctx.approve({ risk: permissionRisk(p), summary: permissionSummary(handle, p) }), stop]);
  // After session/cancel every pending request is answered "cancelled", as the protocol requires.
  if (typeof decision === "string") return { outcome: "cancelled" };
  return permissionOutcome(p, decision.approved);
}
