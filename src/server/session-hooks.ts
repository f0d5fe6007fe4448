// A session's hooks (src/hooks): built from the user's `[[hooks.<Event>]]`, with the environment `bash` gets and
// the secrets the configuration holds, reporting to the session's client. Every event that ran a hook is
// recorded as `hook.completed`; a failing hook is said once per session; `systemMessage` lines are shown.
import { configuredSecrets } from "../config/configured-secrets";
import type { HookEvent } from "../config/schema";
import { resolve } from "node:path";
import { claudeToolName, claudeToolNames, createHooks, type HookDecision, hookRecords, oneLine } from "../hooks/index";
import type { SessionScope } from "../scope";
import { bashEnvironment } from "../tools/bash-env";
import type { NotificationMethod, NotificationParams } from "../protocol/schema";

type Emit = <M extends NotificationMethod>(method: M, params: NotificationParams<M>) => void;

export interface SessionHooks {
  has(event: HookEvent): boolean;
  /** Runs the event's hooks and reports them; `turnId`/`callId` place the record. Never throws. */
  run(event: HookEvent, input: Record<string, unknown>, at?: { turnId?: string; callId?: string; subject?: readonly string[]; signal?: AbortSignal }): Promise<HookDecision>;
}

/** The session's hooks, or undefined when the user configured none (the usual case costs nothing). */
export function sessionHooks(scope: SessionScope, emit: Emit, currentTurn: () => string | undefined): SessionHooks | undefined {
  const configured = scope.config.hooks;
  if (!configured || !Object.values(configured).some((list) => list?.length)) return undefined;
  const ids = { session_id: scope.sessionId };
  const notice = (message: string, turnId = currentTurn()) => {
    if (turnId) emit("model.notice", { ...ids, turn_id: turnId, message });
  };
  const hooks = createHooks({
    hooks: configured,
    cwd: scope.workspace,
    sessionId: scope.sessionId,
    env: bashEnvironment(scope.env, scope.config.tools.bash_env),
    secrets: configuredSecrets(scope.config, scope.env as NodeJS.ProcessEnv),
    report: (message) => notice(message),
  });
  return {
    has: hooks.has,
    async run(event, input, at = {}) {
      const decision = await hooks.run(event, input, { ...(at.subject ? { subject: at.subject } : {}), ...(at.signal ? { signal: at.signal } : {}) });
      if (!decision.runs.length) return decision;
      const turnId = at.turnId ?? currentTurn();
      emit("hook.completed", { ...ids, ...(turnId ? { turn_id: turnId } : {}), ...(at.callId ? { call_id: at.callId } : {}), event, hooks: hookRecords(decision.runs) as never });
      for (const message of decision.messages) notice(`${event} hook: ${message}`, turnId);
      return decision;
    },
  };
}

/** A tool call as a PreToolUse/PostToolUse hook reads it: SCV's name, Claude Code's beside it, absolute `file_path`. */
export function toolHookInput(tool: string, args: unknown, callId: string, workspace: string): Record<string, unknown> {
  const input = args && typeof args === "object" && !Array.isArray(args) ? { ...(args as Record<string, unknown>) } : {};
  // Claude Code's file tools name the file `file_path`, always absolute; SCV's take `path`, maybe relative.
  if (typeof input.path === "string" && input.file_path === undefined) input.file_path = resolve(workspace, input.path);
  const claude = claudeToolName(tool);
  return { tool_name: tool, ...(claude ? { claude_tool_name: claude } : {}), tool_input: input, tool_use_id: callId };
}

/** The names a tool event's matcher is tried against: SCV's and Claude Code's. */
export function toolSubject(tool: string): string[] {
  return [tool, ...claudeToolNames(tool)];
}

/** How a hook's refusal or reason reads to the model, naming the hook. */
export function hookSays(event: HookEvent, d: { command: string; reason: string }): string {
  return `${event} hook \`${oneLine(d.command)}\`: ${d.reason}`;
}
